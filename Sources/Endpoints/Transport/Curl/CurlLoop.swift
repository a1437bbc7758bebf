#if canImport(FoundationNetworking)
    import CEndpointsCurl
    import Foundation

    /// One libcurl multi handle and the thread that drives it: the only thread that calls libcurl
    /// with the multi handle, and with an easy handle while it is added to it.
    ///
    /// Other threads hand work over through ``inbox`` (a transfer to add, one to remove, one to
    /// resume after its reader caught up) and wake the thread with `curl_multi_wakeup` when it sleeps
    /// in `curl_multi_poll`; a thread that is busy picks the work up on its next turn without a
    /// wake-up. Easy handles are configured on the caller's thread before they are added, and kept
    /// for reuse afterwards (``CurlHandle``), so the loop's turn is little more than libcurl's own
    /// work and each transfer's callbacks.
    ///
    /// The loop also enforces each transfer's idle timeout (fractions of a second included): a
    /// transfer that receives nothing for its request's `timeoutInterval`, and is not paused for
    /// its reader, ends with `URLError.timedOut`.
    ///
    /// The thread runs while the transport that made the loop exists or a transfer is running, then
    /// ends and frees the multi handle.
    final class CurlLoop: Sendable {
        /// What other threads leave for the loop, and the idle handles.
        private struct Inbox {
            var added: [CurlExchange] = []
            var removed: [CurlExchange] = []
            var resumed: [CurlExchange] = []
            /// Connect-only sockets to open, and open ones with work (bytes to send, a reader
            /// that caught up, a close).
            var connecting: [CurlSocket] = []
            var touched: [CurlSocket] = []
            /// Easy handles no transfer uses, most recently used last.
            var idle: [CurlHandle] = []
            /// Whether the loop sleeps in `curl_multi_poll` (or is about to), so that new work must wake it.
            var polling = false
            /// The transport is gone: end once no transfer runs.
            var closing = false

            var hasWork: Bool {
                !added.isEmpty || !removed.isEmpty || !resumed.isEmpty || !connecting.isEmpty || !touched.isEmpty
                    || closing
            }
        }

        private let multi: CurlMulti
        private let inbox = Locked(Inbox())
        /// The buffers streamed bodies are gathered in for their readers: up to eight (2 MiB) kept
        /// for reuse.
        let chunks = CurlChunkPool(size: CurlExchange.handOverSize, limit: 8)
        /// The most idle easy handles kept for reuse.
        private static let idleLimit = 64

        /// A loop that keeps up to four idle connections per request its transport lets run to one
        /// host (`maximumRequestsPerHost`).
        init(maximumRequestsPerHost: Int) {
            multi = CurlMulti(maximumRequestsPerHost: maximumRequestsPerHost)
            let thread = Thread { [self] in
                // Named from the thread itself: corelibs drops a name set before `start()`, and the
                // thread then keeps its creator's (a dispatch worker's "com.apple.root…"). At most
                // 15 bytes: Linux refuses a longer one.
                Thread.current.name = "Endpoints curl"
                run()
            }
            thread.start()
        }

        // MARK: Handing work over (any thread)

        /// An easy handle to configure for a new transfer: an idle one, or a new one.
        func takeHandle() -> CurlHandle? {
            if let handle = inbox.withLock({ $0.idle.popLast() }) {
                handle.reset()
                return handle
            }
            return CurlHandle()
        }

        /// Starts `exchange`, whose easy handle is configured.
        func add(_ exchange: CurlExchange) {
            hand { $0.added.append(exchange) }
        }

        /// Stops `exchange` (cancelled, timed out, its body dropped): it is removed from the multi
        /// handle, so nothing more is sent or received, and a transfer still queued for a
        /// connection is never sent.
        func remove(_ exchange: CurlExchange) {
            hand { $0.removed.append(exchange) }
        }

        /// Resumes `exchange`, paused while its reader was behind.
        func resume(_ exchange: CurlExchange) {
            hand { $0.resumed.append(exchange) }
        }

        /// Opens `socket`, whose easy handle is configured for `CURLOPT_CONNECT_ONLY`.
        func connect(_ socket: CurlSocket) {
            hand { $0.connecting.append(socket) }
        }

        /// `socket` has work: bytes to send, a reader that caught up, a close.
        func touch(_ socket: CurlSocket) {
            hand { $0.touched.append(socket) }
        }

        /// The transport is gone: the loop ends once its transfers have.
        func close() {
            hand { $0.closing = true }
        }

        private func hand(_ change: (inout Inbox) -> Void) {
            let wake = inbox.withLock { inbox -> Bool in
                change(&inbox)
                defer { inbox.polling = false }
                return inbox.polling
            }
            if wake { multi.wakeUp() }
        }

        // MARK: The loop (its thread only)

        private func run() {
            var running: [OpaquePointer: CurlExchange] = [:]
            // Exchanges whose transfer ended with compressed bytes still to decode for their reader.
            var draining: [ObjectIdentifier: CurlExchange] = [:]
            var watchAt = UInt64.max
            // Four connections kept per transfer at the busiest moment, and one per open socket.
            var busiest = multi.cachedConnections
            var cachedConnections = busiest
            // Connect-only sockets: connecting (libcurl's), then open (polled here).
            var connecting: [OpaquePointer: CurlSocket] = [:]
            let sockets = CurlSocketSet()
            while true {
                let work = inbox.withLock { inbox -> Inbox in
                    let work = Inbox(
                        added: inbox.added, removed: inbox.removed, resumed: inbox.resumed,
                        connecting: inbox.connecting, touched: inbox.touched, closing: inbox.closing)
                    inbox.added.removeAll(keepingCapacity: true)
                    inbox.removed.removeAll(keepingCapacity: true)
                    inbox.resumed.removeAll(keepingCapacity: true)
                    inbox.connecting.removeAll(keepingCapacity: true)
                    inbox.touched.removeAll(keepingCapacity: true)
                    return work
                }
                let now = RequestRecorder.now()
                for socket in work.touched { sockets.touch(socket) }
                for socket in work.connecting {
                    connecting[socket.handle.easy] = socket
                    multi.add(socket.handle)
                }
                for exchange in work.added {
                    guard exchange.loopStarts(at: now) else {
                        recycle(exchange.handle)
                        continue
                    }
                    running[exchange.handle.easy] = exchange
                    multi.add(exchange.handle)
                    watchAt = min(watchAt, exchange.idleDeadline)
                }
                // libcurl's cache counts an open socket's connection too: kept below them, it
                // closed each transfer's connection as the transfer ended.
                busiest = max(busiest, running.count * 4)
                if busiest + sockets.count + connecting.count != cachedConnections {
                    cachedConnections = busiest + sockets.count + connecting.count
                    multi.keepConnections(cachedConnections)
                }
                for exchange in work.removed {
                    guard running[exchange.handle.easy] === exchange else {
                        // A reader that went away from a body still being decoded.
                        draining.removeValue(forKey: ObjectIdentifier(exchange))?.loopAbandonsDecoding()
                        continue
                    }
                    running[exchange.handle.easy] = nil
                    multi.remove(exchange.handle)
                    recycle(exchange.handle)
                }
                for exchange in work.resumed {
                    guard running[exchange.handle.easy] === exchange else {
                        guard draining[ObjectIdentifier(exchange)] != nil else { continue }
                        exchange.loopResumesAfterEnd()
                        if !exchange.endsAfterDecoding { draining[ObjectIdentifier(exchange)] = nil }
                        continue
                    }
                    if let error = exchange.loopResumes() {
                        running[exchange.handle.easy] = nil
                        multi.remove(exchange.handle)
                        exchange.loopEnded(with: error)
                        recycle(exchange.handle)
                    }
                }
                multi.perform()
                // What the write callbacks gathered in this turn goes to the readers now, in one
                // chunk each (see `CurlExchange.deliver`).
                for exchange in running.values where !exchange.pending.isEmpty { exchange.flushPending() }
                while let (easy, code) = multi.nextDone() {
                    if let socket = connecting.removeValue(forKey: easy) {
                        // Connected: the handle stays in the multi handle for the socket's life.
                        guard socket.loopConnected(code: code, now: RequestRecorder.now()) else {
                            multi.remove(socket.handle)
                            continue
                        }
                        if let error = sockets.open(socket) {
                            socket.loopEnd(error)
                            multi.remove(socket.handle)
                        }
                        continue
                    }
                    guard let exchange = running.removeValue(forKey: easy) else { continue }
                    multi.remove(exchange.handle)
                    exchange.loopFinished(code: code)
                    recycle(exchange.handle)
                    if exchange.endsAfterDecoding { draining[ObjectIdentifier(exchange)] = exchange }
                }
                if !running.isEmpty, RequestRecorder.now() >= watchAt {
                    watchAt = expireIdle(&running)
                } else if running.isEmpty {
                    watchAt = .max
                }
                if !sockets.isEmpty || !connecting.isEmpty {
                    serviceSockets(sockets, connecting: &connecting)
                }
                if work.closing, running.isEmpty, draining.isEmpty, sockets.isEmpty, connecting.isEmpty,
                    inbox.withLock({ $0.added.isEmpty && $0.connecting.isEmpty })
                {
                    break
                }
                poll(until: min(watchAt, sockets.deadline), sockets: sockets)
            }
            inbox.withLock { $0.idle.removeAll() }
            multi.cleanUp()
        }

        /// Ends the transfers that received nothing for their timeout; returns when to look next.
        private func expireIdle(_ running: inout [OpaquePointer: CurlExchange]) -> UInt64 {
            let now = RequestRecorder.now()
            var next = UInt64.max
            for (easy, exchange) in running {
                let deadline = exchange.idleDeadline
                if deadline <= now {
                    running[easy] = nil
                    multi.remove(exchange.handle)
                    exchange.loopEnded(
                        with: URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: exchange.url]))
                    recycle(exchange.handle)
                } else {
                    next = min(next, deadline)
                }
            }
            return next
        }

        /// A turn of I/O for each open socket that has something to do; a socket still connecting
        /// that was closed is dropped.
        private func serviceSockets(_ sockets: CurlSocketSet, connecting: inout [OpaquePointer: CurlSocket]) {
            for socket in sockets.service(now: RequestRecorder.now()) { multi.remove(socket.handle) }
            for (easy, socket) in connecting where socket.shared.withLock({ $0.closeNow }) {
                connecting[easy] = nil
                multi.remove(socket.handle)
                socket.loopEnd(CancellationError())
            }
        }

        /// Sleeps in `curl_multi_poll` until libcurl has work, a wake-up, one of `sockets` is ready,
        /// or `deadline` (uptime ns).
        private func poll(until deadline: UInt64, sockets: CurlSocketSet) {
            let sleeps = inbox.withLock { inbox -> Bool in
                guard !inbox.hasWork else { return false }
                inbox.polling = true
                return true
            }
            guard sleeps else { return }
            let now = RequestRecorder.now()
            let milliseconds =
                deadline == .max ? 1000 : Int32(clamping: (deadline &- min(deadline, now)) / 1_000_000 + 1)
            var extra = sockets.pollDescriptor.map { [$0] } ?? []
            multi.poll(timeout: min(milliseconds, 1000), extra: &extra)
            inbox.withLock { $0.polling = false }
            if let descriptor = extra.first { sockets.polled(descriptor) }
        }

        /// Keeps `handle` for the next transfer, or frees it when enough are kept.
        private func recycle(_ handle: CurlHandle) {
            inbox.withLock { inbox in
                guard inbox.idle.count < Self.idleLimit else { return }
                inbox.idle.append(handle)
            }
        }
    }

    /// A libcurl multi handle.
    struct CurlMulti: @unchecked Sendable {
        // @unchecked Sendable: only the loop thread calls libcurl with it (under no lock: it is that
        // thread's alone), except `curl_multi_wakeup`, which libcurl documents as thread-safe.
        private let multi: OpaquePointer

        /// How many connections the multi handle keeps, idle ones included (``keepConnections(_:)``).
        let cachedConnections: Int

        /// No cap on connections per host here (`CURLMOPT_MAX_HOST_CONNECTIONS`): the transport's
        /// ``HostLimiter`` bounds the requests in flight to a host, and libcurl's cap also counted
        /// the connections of open WebSockets, which stay in the multi handle, so the 17th
        /// WebSocket to one host waited for ever behind 16 open ones.
        init(maximumRequestsPerHost: Int) {
            guard let multi = ep_multi_init() else { fatalError("curl_multi_init failed (out of memory)") }
            self.multi = multi
            _ = ep_multi_setopt_long(multi, Int32(EP_CURLMOPT_PIPELINING), Int(EP_CURLPIPE_MULTIPLEX))
            cachedConnections = 4 * maximumRequestsPerHost
            keepConnections(cachedConnections)
        }

        /// Keeps up to `count` connections open, idle ones included, closing the least recently
        /// used beyond. libcurl's default is four per transfer running *now*: once a burst drains,
        /// each connection handed back closes an idle one, and the next burst connects again
        /// (40 new connections per 1,000 requests at 16 in flight against nginx). The loop keeps
        /// four per transfer at the busiest moment, plus one per open WebSocket (whose connection
        /// the cache counts); idle connections still close after `CURLOPT_MAXAGE_CONN` (118 s).
        func keepConnections(_ count: Int) {
            _ = ep_multi_setopt_long(multi, Int32(EP_CURLMOPT_MAXCONNECTS), count)
        }

        func wakeUp() { _ = ep_multi_wakeup(multi) }
        func add(_ handle: CurlHandle) { _ = ep_multi_add_handle(multi, handle.easy) }
        func remove(_ handle: CurlHandle) { _ = ep_multi_remove_handle(multi, handle.easy) }

        func perform() {
            var running: Int32 = 0
            _ = ep_multi_perform(multi, &running)
        }

        func nextDone() -> (OpaquePointer, Int32)? {
            var easy: OpaquePointer?
            var code: Int32 = 0
            guard ep_multi_next_done(multi, &easy, &code) == 1, let easy else { return nil }
            return (easy, code)
        }

        func poll(timeout milliseconds: Int32, extra: inout [ep_waitfd]) {
            var ready: Int32 = 0
            let count = UInt32(extra.count)
            _ = extra.withUnsafeMutableBufferPointer { fds in
                ep_multi_poll(multi, count == 0 ? nil : fds.baseAddress, count, milliseconds, &ready)
            }
        }

        func cleanUp() { _ = ep_multi_cleanup(multi) }
    }

    /// An easy handle and its error buffer, kept for the next transfer once one ends.
    final class CurlHandle: @unchecked Sendable {
        // @unchecked Sendable: a handle belongs to one party at a time, never two: the caller that
        // took it from the loop's idle list (under the loop's inbox lock) configures it, then only
        // the loop thread uses it until the transfer ends and it goes back to the list (same lock).
        let easy: OpaquePointer
        /// `CURLOPT_ERRORBUFFER`: libcurl's sentence for the last failure (CURL_ERROR_SIZE bytes).
        let errorBuffer: UnsafeMutablePointer<CChar>

        init?() {
            guard let easy = ep_easy_init() else { return nil }
            self.easy = easy
            errorBuffer = .allocate(capacity: 256)
            errorBuffer.initialize(repeating: 0, count: 256)
        }

        /// Back to the state of a new handle; its connections stay in the multi handle's pool.
        func reset() {
            ep_easy_reset(easy)
            errorBuffer[0] = 0
        }

        /// The schemes the proxy's last `407` asked for (`CURLAUTH_*` bits; 0 for none).
        var proxyAuthOffered: Int {
            var offered = 0
            _ = ep_easy_getinfo_long(easy, Int32(EP_CURLINFO_PROXYAUTH_AVAIL), &offered)
            return offered
        }

        /// libcurl's sentence for the last failure, if it wrote one.
        var errorText: String? {
            errorBuffer[0] == 0 ? nil : String(cString: errorBuffer)
        }

        deinit {
            ep_easy_cleanup(easy)
            errorBuffer.deallocate()
        }
    }
#endif
