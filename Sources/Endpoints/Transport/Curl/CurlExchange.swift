#if canImport(FoundationNetworking)
    import CEndpointsCurl
    import Foundation
    import FoundationNetworking

    /// One HTTP exchange through libcurl: a request out, its response head and body in, on the
    /// loop's thread; a redirect is one exchange per hop (``CurlTransport`` follows it).
    ///
    /// It is configured on the caller's thread (`CurlExchange+Request.swift`), then only the loop
    /// thread touches its easy handle and the fields marked "loop", through libcurl's callbacks
    /// (`CurlExchange+Callbacks.swift`) and the loop's calls (`loopStarts`, `loopFinished`, …).
    /// Who waits for it, and whether it was stopped, is a ``CurlDelivery`` under a lock, the one
    /// state the caller's side (a cancel, a reader that went away) and the loop both change.
    ///
    /// - Buffered: the body is gathered here and the answer delivered when the transfer is done,
    ///   one hand-over per request.
    /// - Streamed: the head is delivered as soon as its blank line arrives, and the body goes into
    ///   a ``BodyBuffer`` whose reader paces it: while more than its limit waits unread, the write
    ///   callback pauses the transfer (`CURL_WRITEFUNC_PAUSE`, so libcurl stops reading the socket)
    ///   until the reader has drained half of it. libcurl hands a body over in pieces of at most
    ///   16 KB, however much one `recv` read; the pieces are gathered here (``pending``) and go to
    ///   the reader together, at the end of the loop's turn or once ``handOverSize`` bytes wait, so
    ///   that a fast body wakes its reader once per turn rather than once per 16 KB.
    /// - A response that redirects (301, 302, 303, 307, 308 with a `Location`) is not delivered
    ///   early, whatever the mode: its body is dropped as it arrives, and its head handed over at
    ///   the end for the transport to follow. So is a proxy's `407` the transport answers by
    ///   sending the request again with another scheme (``CurlProxyRound``).
    final class CurlExchange: @unchecked Sendable {
        // @unchecked Sendable: `delivery` is guarded by its lock (`Locked`). Every other mutable
        // field is the configuring caller's until `CurlLoop.add`, then the loop thread's alone,
        // which is the only thread libcurl calls back on.

        enum Mode {
            /// The body is gathered and delivered with the head at the end.
            case buffered
            /// The head is delivered as soon as it arrives; the body streams.
            case streamed
        }

        let handle: CurlHandle
        let loop: CurlLoop
        let mode: Mode
        /// The request's URL: the response's.
        let url: URL
        /// The idle timeout in nanoseconds (`timeoutInterval`; none when 0 or less).
        private let timeout: UInt64
        /// Whether a redirect's head ends the exchange (the transport follows it).
        let followsRedirects: Bool
        /// A streamed body's buffer.
        let body: BodyBuffer?
        /// Who waits, and whether the exchange was stopped.
        private let delivery: Locked<CurlDelivery>

        // MARK: Loop

        /// The response head as it arrives.
        var head = CurlResponseHead()
        /// A buffered body.
        var received = Data()
        /// A streamed body's bytes from this turn of the loop, not handed to the reader yet
        /// (``flushPending()``), in a buffer of the loop's ``CurlLoop/chunks``.
        private(set) var pending = CurlChunk()
        /// When a byte last went out or came in (uptime nanoseconds).
        var lastActivity: UInt64 = 0
        /// The reader is behind: the next write pauses the transfer.
        var paused = false
        /// Where the answer redirects to, when it is a redirect to follow: its body, which nobody
        /// reads, is dropped.
        var redirectTarget: URL?
        /// What the exchange does with its proxy's `407`s (``CurlProxyRound``).
        var proxyRound = CurlProxyRound.none
        /// The answer is not handed over as it arrives: a redirect, or a proxy's refusal, which the
        /// transport acts on.
        var isHeldBack: Bool { redirectTarget != nil || proxyRound.refusal != nil }
        /// Why a callback ended the transfer, which libcurl then reports as a write error.
        var failure: URLError?
        /// The request's header lines (a `curl_slist`), freed with the exchange.
        var headerList: OpaquePointer?
        /// The request's body, when it came as data: libcurl reads it from here (`CURLOPT_POSTFIELDS`).
        var requestBody: UnsafeMutableRawBufferPointer?
        /// An upload from a file or a stream.
        var upload: CurlUpload?
        /// Decodes a compressed body (see ``CurlDecoder``).
        var decoder: CurlDecoder?
        /// Compressed bytes taken from libcurl but not decoded yet: decoding stopped for the reader.
        var undecoded = Data()
        /// Decoding stopped for the reader with bytes left: in ``undecoded``, or already taken by
        /// the decoder (``CurlDecoder/holdsOutput``).
        var decodingWaits: Bool { !undecoded.isEmpty || decoder?.holdsOutput == true }
        /// The transfer ended while decoding waited: the body ends once nothing is left to decode.
        var endsAfterDecoding = false
        /// Measures the request: told of the head as it arrives, and of what libcurl measured of
        /// this hop and the hops before it (``earlierConnections``) when the transfer ends.
        let recorder: RequestRecorder?
        /// What libcurl measured of the redirect hops before this exchange.
        var earlierConnections: [RequestMetrics.ConnectionMetrics] = []
        /// What libcurl measured of this exchange, once it ended (read by the transport after a
        /// redirect's answer, which is delivered after it is set).
        private(set) var connection: RequestMetrics.ConnectionMetrics?

        init(
            request: URLRequest, handle: CurlHandle, loop: CurlLoop, mode: Mode, followsRedirects: Bool,
            recorder: RequestRecorder?
        ) {
            self.handle = handle
            self.loop = loop
            self.mode = mode
            self.url = request.url ?? URL(fileURLWithPath: "/")
            self.followsRedirects = followsRedirects
            self.recorder = recorder
            let seconds = request.timeoutInterval
            timeout = seconds > 0 ? UInt64(min(seconds, 1e9) * 1e9) : .max
            let body = mode == .streamed ? BodyBuffer(limit: ResponseBody.defaultBufferLimit) : nil
            self.body = body
            delivery = Locked(CurlDelivery(streamedBody: body.map { ResponseBody(buffer: $0) }))
            body?.setHooks(
                BodyBuffer.Hooks(
                    // Called by the write callback's append, on the loop thread.
                    pause: { [weak self] in self?.paused = true },
                    resume: { [weak self] in if let self { self.loop.resume(self) } },
                    terminate: { [weak self] in self?.stop(with: CancellationError()) }
                ))
        }

        deinit {
            if let headerList { ep_slist_free_all(headerList) }
            requestBody?.deallocate()
            pending.release(to: loop.chunks)
        }

        // MARK: Running (the caller's task)

        /// Hands the exchange to the loop and waits for its answer: the head with the whole body
        /// (buffered), the head with the body arriving (streamed), or a redirect's head.
        func run() async throws -> CurlAnswer {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation {
                    (continuation: CheckedContinuation<CurlAnswer, any Error>) in
                    switch delivery.withLock({ $0.start(continuation) }) {
                    case .send: loop.add(self)
                    case .fail(let error): continuation.resume(throwing: error)
                    }
                }
            } onCancel: {
                stop(with: CancellationError())
            }
        }

        /// Stops the exchange with `error` (a cancel, a reader that went away) from any thread:
        /// who waits gets `error` now, and the loop removes the transfer.
        func stop(with error: any Error) {
            switch delivery.withLock({ $0.stop(with: error) }) {
            case .none:
                // Over (rare: a reader that went away), but its body may still be decoding for the
                // reader: the loop drops that, and ignores an exchange it does not know.
                loop.remove(self)
                return
            case .notStarted:
                return
            case .fail(let continuation):
                continuation.resume(throwing: error)
            case .endBody:
                body?.finish(throwing: error)
            }
            loop.remove(self)
        }

        // MARK: The loop's calls

        /// The loop is about to add the transfer; `false` when it was stopped first (nothing is sent).
        func loopStarts(at now: UInt64) -> Bool {
            lastActivity = now
            return delivery.withLock { $0.isWaiting }
        }

        /// When the transfer times out unless something arrives: never while paused for its reader.
        var idleDeadline: UInt64 {
            paused || timeout == .max ? .max : lastActivity &+ timeout
        }

        /// The reader caught up: what was left undecoded is decoded, then the transfer goes on
        /// (libcurl may call the write callback now). An error ends the exchange: the loop removes it.
        func loopResumes() -> URLError? {
            paused = false
            lastActivity = RequestRecorder.now()
            if let error = decodeUndecoded() { return error }
            if !paused { _ = ep_easy_pause(handle.easy, Int32(EP_CURLPAUSE_CONT)) }
            return nil
        }

        /// The reader caught up after the transfer ended with bytes left to decode: decodes more,
        /// and ends the body once none is left.
        func loopResumesAfterEnd() {
            guard endsAfterDecoding else { return }
            paused = false
            let error = decodeUndecoded()
            flushPending()
            if let error {
                endsAfterDecoding = false
                body?.finish(throwing: error)
            } else if !decodingWaits {
                endsAfterDecoding = false
                if let error = truncation() { body?.finish(throwing: error) } else { body?.finish() }
            }
        }

        /// The reader went away while the body was still being decoded after the transfer ended.
        func loopAbandonsDecoding() {
            endsAfterDecoding = false
            undecoded = Data()
            pending.release(to: loop.chunks)
        }

        /// The error for a body that ended, all of it decoded, inside a coding's stream: a
        /// truncated gzip, deflate, brotli or zstd body is refused, however the body was framed.
        private func truncation() -> URLError? {
            guard let decoder, !decoder.isComplete else { return nil }
            return CurlDecoder.error(.truncated, url: url)
        }

        /// Decodes what waits undecoded, until the reader is behind again.
        private func decodeUndecoded() -> URLError? {
            guard let decoder, decodingWaits else { return nil }
            let pending = undecoded
            let result = pending.withUnsafeBytes { bytes in
                decoder.decode(bytes, shouldStop: { paused }, deliver: deliver)
            }
            switch result {
            case .failure(let failure):
                undecoded = Data()
                return CurlDecoder.error(failure, url: url)
            case .success(let used):
                undecoded = used == pending.count ? Data() : pending.subdata(in: used..<pending.count)
                return nil
            }
        }

        /// 256 KiB: the most a streamed exchange asks one `recv` for (`CURLOPT_BUFFERSIZE`; 16 KB by
        /// default), and the most body bytes gathered before they go to the reader in one chunk.
        static let receiveBufferSize = 256 << 10
        static let handOverSize = receiveBufferSize

        /// Gathers decoded (or plain) body bytes for the reader, handing them over once
        /// ``handOverSize`` bytes wait; or gathers the whole body (buffered).
        func deliver(_ bytes: UnsafeRawBufferPointer) {
            guard body != nil else {
                received.append(contentsOf: bytes)
                return
            }
            var rest = bytes
            while !rest.isEmpty {
                let copied = pending.append(rest, from: loop.chunks)
                rest = UnsafeRawBufferPointer(rebasing: rest[copied...])
                if pending.count >= Self.handOverSize { flushPending() }
            }
        }

        /// Hands the gathered body bytes to the reader: called when enough wait, by the loop at the
        /// end of each turn, and before the body ends. May call the buffer's pause hook, which sets
        /// `paused`.
        func flushPending() {
            guard !pending.isEmpty, let body else { return }
            body.append(pending.take(from: loop.chunks))
        }

        /// The loop removed the transfer for `error` (nothing arrived for the timeout, a body that
        /// could not be decoded).
        func loopEnded(with error: URLError) {
            switch delivery.withLock({ $0.stop(with: error) }) {
            case .fail(let continuation): continuation.resume(throwing: error)
            case .endBody: body?.finish(throwing: error)
            case .none, .notStarted: break
            }
        }

        /// The transfer ended with CURLcode `code`; the loop removed it.
        func loopFinished(code: Int32) {
            // A proxy's 407 that libcurl did not answer again is the answer, with an empty body.
            if proxyRound.answerContinues(), failure == nil, Int(code) == EP_CURLE_OK { headEnded() }
            // The body's last bytes go before its end.
            flushPending()
            let outcome: Result<CurlAnswer, any Error>
            if let failure {
                outcome = .failure(failure)
            } else if Int(code) != EP_CURLE_OK {
                let error = CurlErrors.urlError(code: code, handle: handle, url: url, head: head)
                // Only before any byte of the answer, so only to a caller still waiting for the head.
                if CurlErrors.reusedConnectionWasLost(code: code, handle: handle, head: head) {
                    outcome = .failure(CurlErrors.LostReusedConnection(error: error))
                } else if error.code == .userAuthenticationRequired, let scheme = proxyRound.scheme,
                    case let offered = handle.proxyAuthOffered, proxyRound.reopensTunnel(offering: offered)
                {
                    // The proxy refused the tunnel with a 407 another scheme answers: nothing was sent.
                    outcome = .failure(CurlErrors.ProxyRefusal(error: error, offered: offered, scheme: scheme))
                } else {
                    outcome = .failure(error)
                }
            } else if !head.isComplete {
                // libcurl ends a connection closed inside the head with success and an empty body.
                outcome = .failure(
                    URLError.partialTransfer(
                        "the connection closed before the response head ended", failingURL: url, underlying: nil))
            } else if !decodingWaits, let error = truncation() {
                outcome = .failure(error)
            } else {
                outcome = .success(answer(body: ResponseBody(received)))
            }
            if let recorder {
                let measured = CurlErrors.connectionMetrics(of: handle)
                connection = measured
                recorder.connections(earlierConnections + [measured])
            }
            switch delivery.withLock({ $0.finish() }) {
            case .resume(let continuation):
                continuation.resume(with: outcome)
            case .endBody:
                switch outcome {
                case .success where decodingWaits:
                    // The reader is behind; the rest is decoded as it catches up.
                    endsAfterDecoding = true
                case .success: body?.finish()
                case .failure(let error): body?.finish(throwing: error)
                }
            case .none:
                break
            }
        }

        /// The final head arrived: its time is the time to first byte, and a streamed exchange hands
        /// it over now, with its body to come.
        func headEnded() {
            guard !isHeldBack else { return }
            recorder?.headArrived(status: head.statusCode)
            guard mode == .streamed else { return }
            guard let handover = delivery.withLock({ $0.headArrived() }) else { return }
            handover.continuation.resume(returning: answer(body: handover.body))
        }

        private func answer(body: ResponseBody) -> CurlAnswer {
            CurlAnswer(
                head: head, url: url, body: body, redirectTarget: redirectTarget, proxyRefusal: proxyRound.refusal)
        }
    }

    /// What an exchange gives its caller.
    struct CurlAnswer: Sendable {
        /// The response head (the final one, or a redirect's).
        var head: CurlResponseHead
        /// The URL it answers.
        var url: URL
        /// The body: whole (buffered), arriving (streamed), or empty (a redirect).
        var body: ResponseBody
        /// Where a redirect's head sends the request next, or `nil` when this is the answer.
        var redirectTarget: URL?
        /// The schemes a proxy's `407` asked for, when the transport sends the request again with
        /// another (``CurlProxyRound/refusal``).
        var proxyRefusal: Int?
        /// A redirect or a proxy's refusal: the transport acts on it, nobody reads it.
        var isHeldBack: Bool { redirectTarget != nil || proxyRefusal != nil }
    }
#endif
