#if canImport(FoundationNetworking)
    import CEndpointsCurl
    import Foundation
    import FoundationNetworking

    /// A connection libcurl opened (and secured) without sending a request (`CURLOPT_CONNECT_ONLY`),
    /// over which we write an HTTP/1.1 upgrade request ourselves, read its answer's head, and then
    /// carry bytes both ways: a WebSocket's socket on Linux.
    ///
    /// The easy handle stays in the loop's multi handle for the socket's whole life (libcurl
    /// refuses to send on a connect-only handle once it is removed). After libcurl reports the
    /// connection made, the loop waits on the socket itself (`CURLINFO_ACTIVESOCKET`, in the epoll
    /// set of its ``CurlSocketSet``) and, in each turn where the socket is ready, was
    /// touched (a send, a close, a reader that caught up) or is past its deadline, calls
    /// ``loopService(now:)``: it sends what waits (a partial send keeps its offset), then reads
    /// with `curl_easy_recv` until `CURLE_AGAIN` (OpenSSL may hold decrypted bytes the socket no
    /// longer shows, so a turn never stops reading early but for a reader that is behind).
    /// `CURLE_OK` with 0 bytes is the peer's close. An open socket the turn has nothing for costs
    /// it nothing.
    ///
    /// Backpressure: received bytes go into a ``BodyBuffer`` of ``bufferLimit`` bytes; while it is
    /// full the loop stops reading (and stops polling for input), so a slow reader leaves the
    /// bytes in the kernel and the peer's sends stall: memory stays bounded.
    ///
    /// Shared state (the head's waiter, the bytes to send, a close asked for) is a ``Shared`` under
    /// a lock; the rest is the loop thread's alone.
    final class CurlSocket: UpgradedChannel, @unchecked Sendable {
        // @unchecked Sendable: `shared` is guarded by its lock (`Locked`); every other mutable field
        // is the loop thread's alone once `CurlLoop.connect` handed the socket over (the caller
        // only configures the handle before that).

        /// The most received bytes kept for a reader that is behind.
        static let bufferLimit = 256 * 1024
        /// The most bytes a non-101 answer's body may take (it is an error page).
        static let maximumErrorBody = 64 * 1024

        typealias HeadContinuation = CheckedContinuation<(CurlResponseHead, Data), any Error>

        struct Outgoing {
            var bytes: [UInt8]
            var offset = 0
            var sent: CheckedContinuation<Void, any Error>?
        }

        struct Shared {
            var head: HeadContinuation?
            var outbox: [Outgoing] = []
            /// Close once the outbox is empty.
            var closeWhenSent = false
            /// Close now.
            var closeNow = false
            var closed = false
            /// The reader caught up: read again.
            var resumeReading = false
        }

        let handle: CurlHandle
        let loop: CurlLoop
        let url: URL
        /// What the peer sent after the head, as it arrives.
        let buffer = BodyBuffer(limit: bufferLimit)
        let shared = Locked(Shared())

        // MARK: Loop

        private var socket: Int32 = -1
        private var request: [UInt8]
        private var requestOffset = 0
        private var headBytes: [UInt8] = []
        private var head: CurlResponseHead?
        private var errorBody = Data()
        private var errorBodyLength = 0
        /// When the answer's head must have arrived (uptime nanoseconds).
        private(set) var deadline: UInt64
        private let timeout: UInt64
        var readPaused = false
        private var receiveBuffer = [UInt8](repeating: 0, count: 64 * 1024)

        init(handle: CurlHandle, loop: CurlLoop, url: URL, request: [UInt8], timeout: TimeInterval) {
            self.handle = handle
            self.loop = loop
            self.url = url
            self.request = request
            self.timeout = timeout > 0 ? UInt64(min(timeout, 1e9) * 1e9) : .max
            deadline = .max
            buffer.setHooks(
                BodyBuffer.Hooks(
                    pause: { [weak self] in self?.readPaused = true },
                    resume: { [weak self] in
                        guard let self else { return }
                        self.shared.withLock { $0.resumeReading = true }
                        self.loop.touch(self)
                    },
                    terminate: { [weak self] in self?.close() }
                ))
        }

        func receive() async throws -> Data? { try await buffer.nextIgnoringCancellation() }

        /// The file descriptor the loop polls, once connected.
        var descriptor: Int32 { socket }

        /// Whether the loop should poll for output: bytes were left to send at the end of the
        /// socket's last turn (a send asked for since then touched the socket, so it has another).
        private(set) var wantsOutput = false
        /// What the loop's ``CurlSocketSet`` waits on this socket for.
        var interest = Interest(input: false, output: false)

        struct Interest: Equatable {
            var input: Bool
            var output: Bool
            var isEmpty: Bool { !input && !output }
        }

        // MARK: The caller's side

        /// Connects, sends the request and waits for the answer's head: the head, and the bytes
        /// that came after it (the start of the WebSocket stream, or a non-101 answer's body).
        func open() async throws -> (CurlResponseHead, Data) {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: HeadContinuation) in
                    let started = shared.withLock { shared -> Bool in
                        guard !shared.closed else { return false }
                        shared.head = continuation
                        return true
                    }
                    guard started else { return continuation.resume(throwing: CancellationError()) }
                    loop.connect(self)
                }
            } onCancel: {
                fail(CancellationError())
            }
        }

        /// Sends `bytes`; returns once libcurl took all of them.
        func send(_ bytes: [UInt8]) async throws {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let queued = shared.withLock { shared -> Bool in
                    guard !shared.closed, !shared.closeWhenSent else { return false }
                    shared.outbox.append(Outgoing(bytes: bytes, sent: continuation))
                    return true
                }
                guard queued else { return continuation.resume(throwing: URLError(.networkConnectionLost)) }
                loop.touch(self)
            }
        }

        /// Sends `bytes` (a close frame) after what waits, then closes; returns at once.
        func sendThenClose(_ bytes: [UInt8]) {
            let queued = shared.withLock { shared -> Bool in
                guard !shared.closed else { return false }
                shared.outbox.append(Outgoing(bytes: bytes))
                shared.closeWhenSent = true
                return true
            }
            if queued { loop.touch(self) }
        }

        /// Closes the socket now; a waiting send fails, the reader sees the end.
        func close() {
            shared.withLock { $0.closeNow = true }
            loop.touch(self)
        }

        private func fail(_ error: any Error) {
            let head = shared.withLock { shared -> HeadContinuation? in
                shared.closeNow = true
                defer { shared.head = nil }
                return shared.head
            }
            head?.resume(throwing: error)
            loop.touch(self)
        }

        // MARK: The loop's calls

        /// libcurl connected (or failed with `code`): `false` when the socket is done with.
        func loopConnected(code: Int32, now: UInt64) -> Bool {
            guard Int(code) == EP_CURLE_OK else {
                loopEnd(CurlErrors.urlError(code: code, handle: handle, url: url, head: CurlResponseHead()))
                return false
            }
            var fd: Int32 = -1
            guard ep_easy_getinfo_socket(handle.easy, Int32(EP_CURLINFO_ACTIVESOCKET), &fd) == 0, fd >= 0 else {
                loopEnd(URLError(.cannotConnectToHost, userInfo: [NSURLErrorFailingURLErrorKey: url]))
                return false
            }
            socket = fd
            deadline = timeout == .max ? .max : now &+ timeout
            return true
        }

        /// One turn of I/O: sends, then reads. `false` once the socket is done with (the loop then
        /// removes the handle).
        func loopService(now: UInt64) -> Bool {
            defer { wantsOutput = requestOffset < request.count || shared.withLock { !$0.outbox.isEmpty } }
            let (closeNow, head, resume) = shared.withLock { shared in
                defer { shared.resumeReading = false }
                return (shared.closeNow, shared.head, shared.resumeReading)
            }
            if resume { readPaused = false }
            if closeNow {
                loopEnd(CancellationError())
                return false
            }
            if requestOffset < request.count {
                switch sendSome(&request, offset: &requestOffset) {
                case .failure(let error):
                    loopEnd(error)
                    return false
                case .success: break
                }
            }
            if self.head == nil, head != nil, now >= deadline {
                loopEnd(URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: url]))
                return false
            }
            if self.head != nil, head == nil, !flushOutbox() { return false }
            return readAvailable()
        }

        /// Sends what waits in the outbox; `false` when the socket ended.
        private func flushOutbox() -> Bool {
            while true {
                guard var first = shared.withLock({ $0.outbox.first }) else { break }
                let done = first.offset
                switch sendSome(&first.bytes, offset: &first.offset) {
                case .failure(let error):
                    loopEnd(error)
                    return false
                case .success:
                    break
                }
                if first.offset < first.bytes.count {
                    if first.offset != done { shared.withLock { $0.outbox[0].offset = first.offset } }
                    return true
                }
                shared.withLock { _ = $0.outbox.removeFirst() }
                first.sent?.resume()
            }
            if shared.withLock({ $0.closeWhenSent }) {
                loopEnd(nil)
                return false
            }
            return true
        }

        /// Sends from `offset` until done or libcurl would block.
        private func sendSome(_ bytes: inout [UInt8], offset: inout Int) -> Result<Void, URLError> {
            while offset < bytes.count {
                var sent = 0
                let code = bytes.withUnsafeBytes { raw in
                    ep_easy_send(handle.easy, raw.baseAddress! + offset, raw.count - offset, &sent)
                }
                if Int(code) == EP_CURLE_AGAIN { return .success(()) }
                guard Int(code) == EP_CURLE_OK else {
                    return .failure(CurlErrors.urlError(code: code, handle: handle, url: url, head: CurlResponseHead()))
                }
                offset += sent
            }
            return .success(())
        }

        /// Reads until libcurl would block, the reader is behind, or the peer closed.
        private func readAvailable() -> Bool {
            while !readPaused {
                var received = 0
                let code = receiveBuffer.withUnsafeMutableBytes { raw in
                    ep_easy_recv(handle.easy, raw.baseAddress, raw.count, &received)
                }
                if Int(code) == EP_CURLE_AGAIN { return true }
                guard Int(code) == EP_CURLE_OK else {
                    loopEnd(CurlErrors.urlError(code: code, handle: handle, url: url, head: CurlResponseHead()))
                    return false
                }
                guard received > 0 else {
                    // The peer closed its side.
                    if head == nil {
                        loopEnd(
                            head == nil && headBytes.isEmpty
                                ? URLError(.networkConnectionLost, userInfo: [NSURLErrorFailingURLErrorKey: url])
                                : URLError.partialTransfer(
                                    "the connection closed before the response head ended", failingURL: url,
                                    underlying: nil))
                    } else {
                        loopEnd(nil)
                    }
                    return false
                }
                let chunk = receiveBuffer[..<received]
                if head == nil {
                    if !takeHead(chunk) { return false }
                } else if shared.withLock({ $0.head != nil }) {
                    // A non-101 answer's body, until its length.
                    if !takeErrorBody(Data(chunk)) { return false }
                } else {
                    buffer.append(Data(chunk))
                }
            }
            return true
        }

        /// Gathers the head; once its blank line came, hands it over (a 101 with the bytes after
        /// it), or keeps reading a non-101 answer's body. `false` when the socket ended.
        private func takeHead(_ chunk: ArraySlice<UInt8>) -> Bool {
            let searchFrom = max(0, headBytes.count - 3)
            headBytes.append(contentsOf: chunk)
            guard let end = Self.blankLine(in: headBytes, from: searchFrom) else {
                guard headBytes.count <= CurlResponseHead.maximumBytes else {
                    loopEnd(URLError(.badServerResponse, userInfo: [NSURLErrorFailingURLErrorKey: url]))
                    return false
                }
                return true
            }
            var parsed = CurlResponseHead()
            var start = 0
            var step = CurlResponseHead.Step.more
            headBytes.withUnsafeBytes { raw in
                var index = 0
                while index < end, step == .more || step == .interimEnded {
                    if raw[index] == 0x0A {
                        step = parsed.consume(UnsafeRawBufferPointer(rebasing: raw[start...index]))
                        start = index + 1
                    }
                    index += 1
                }
            }
            guard step == .ended else {
                loopEnd(URLError(.badServerResponse, userInfo: [NSURLErrorFailingURLErrorKey: url]))
                return false
            }
            head = parsed
            let rest = Data(headBytes[end...])
            headBytes = []
            if parsed.statusCode == 101 {
                deadline = .max
                let waiting = shared.withLock { shared -> HeadContinuation? in
                    defer { shared.head = nil }
                    return shared.head
                }
                waiting?.resume(returning: (parsed, rest))
                if !rest.isEmpty { buffer.append(rest) }
                return true
            }
            let length = parsed.value(of: "Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            errorBodyLength = min(max(0, length ?? 0), Self.maximumErrorBody)
            return takeErrorBody(rest)
        }

        /// A non-101 answer's body: once it has its length (64 KiB at most), the head and body go
        /// to the caller and the socket ends.
        private func takeErrorBody(_ chunk: Data) -> Bool {
            errorBody.append(chunk.prefix(errorBodyLength - errorBody.count))
            guard errorBody.count >= errorBodyLength, let head else { return true }
            let waiting = shared.withLock { shared -> HeadContinuation? in
                defer { shared.head = nil }
                return shared.head
            }
            waiting?.resume(returning: (head, errorBody))
            loopEnd(nil)
            return false
        }

        /// Where the head's blank line ends (the index after `\r\n\r\n`), if it came.
        private static func blankLine(in bytes: [UInt8], from start: Int) -> Int? {
            var index = start
            while index + 3 < bytes.count {
                if bytes[index] == 0x0D, bytes[index + 1] == 0x0A, bytes[index + 2] == 0x0D, bytes[index + 3] == 0x0A {
                    return index + 4
                }
                index += 1
            }
            return nil
        }

        /// The socket is done with: whoever waits learns why (`nil`: the peer's or our orderly
        /// close), the reader sees the end. The loop removes the handle.
        func loopEnd(_ error: (any Error)?) {
            let (head, outbox) = shared.withLock { shared -> (HeadContinuation?, [Outgoing]) in
                shared.closed = true
                defer {
                    shared.head = nil
                    shared.outbox = []
                }
                return (shared.head, shared.outbox)
            }
            let failure = error ?? URLError(.networkConnectionLost, userInfo: [NSURLErrorFailingURLErrorKey: url])
            head?.resume(throwing: failure)
            for waiting in outbox { waiting.sent?.resume(throwing: failure) }
            if let error, !(error is CancellationError) {
                buffer.finish(throwing: error)
            } else {
                buffer.finish()
            }
        }
    }
#endif
