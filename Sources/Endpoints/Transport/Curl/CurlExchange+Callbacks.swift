#if canImport(FoundationNetworking)
    import CEndpointsCurl
    import Foundation

    /// libcurl's callbacks, on the loop thread. Each finds its exchange through the context pointer
    /// it was configured with (unretained: the loop holds the exchange while its transfer runs).
    enum CurlCallbacks {
        /// A response header line (the status line, a field, the blank line that ends a head).
        static let header: ep_data_callback = { buffer, size, count, context in
            let exchange = Unmanaged<CurlExchange>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            return exchange.received(headerLine: UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
        }

        /// Body bytes (decoded, when the response was compressed).
        static let write: ep_data_callback = { buffer, size, count, context in
            let exchange = Unmanaged<CurlExchange>.fromOpaque(context!).takeUnretainedValue()
            return exchange.received(body: UnsafeRawBufferPointer(start: buffer, count: size * count))
        }

        /// The next bytes of an upload.
        static let read: ep_data_callback = { buffer, size, count, context in
            let exchange = Unmanaged<CurlExchange>.fromOpaque(context!).takeUnretainedValue()
            return exchange.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
        }

        /// libcurl sends an upload again from `offset` (a reused connection that had closed).
        static let seek: ep_seek_callback = { context, offset, origin in
            let exchange = Unmanaged<CurlExchange>.fromOpaque(context!).takeUnretainedValue()
            guard origin == SEEK_SET, let upload = exchange.upload else { return Int32(EP_CURL_SEEKFUNC_CANTSEEK) }
            return upload.seek(to: offset) ? Int32(EP_CURL_SEEKFUNC_OK) : Int32(EP_CURL_SEEKFUNC_CANTSEEK)
        }
    }

    extension CurlExchange {
        /// Takes a header line; `false` ends the transfer (the head is refused, see ``failure``).
        func received(headerLine line: UnsafeRawBufferPointer) -> Bool {
            lastActivity = RequestRecorder.now()
            if proxyRound.state == .pending, CurlResponseHead.isStatusLine(line) {
                proxyRound.statusLineArrived()
                // libcurl answered the proxy's 407 itself (Digest) and sent the request again: the
                // head of that answer follows, and the 407 was not the answer.
                head.startOver()
            }
            switch head.consume(line) {
            case .more, .interimEnded, .ignored:
                return true
            case .invalid(let problem):
                failure = CurlErrors.refusedHead(problem, url: url)
                return false
            case .ended:
                if followsRedirects, RedirectPolicy.isRedirect(status: head.statusCode),
                    let target = RedirectLocation.target(of: head.value(of: "Location"), from: url)
                {
                    redirectTarget = target
                } else if head.statusCode == 407, proxyRound.scheme != nil,
                    proxyRound.headEnded(offering: handle.proxyAuthOffered) == .holdBack
                {
                    // Held back: the transport sends the request again with the scheme asked for.
                } else {
                    decoder = CurlDecoder(contentEncoding: head.value(of: "Content-Encoding"))
                    if mode == .buffered, decoder == nil,
                        let length = head.value(of: "Content-Length").flatMap(Int.init),
                        length > 0
                    {
                        received.reserveCapacity(min(length, 16 << 20))
                    }
                }
                if proxyRound.state != .pending { headEnded() }
                return true
            }
        }

        /// Takes body bytes: the count taken, or `CURL_WRITEFUNC_PAUSE` while the reader is behind
        /// (libcurl keeps them and hands them over again after ``loopResumes()``), or 0 to end the
        /// transfer with ``failure``.
        func received(body bytes: UnsafeRawBufferPointer) -> Int {
            lastActivity = RequestRecorder.now()
            if isHeldBack { return bytes.count }
            // libcurl passes on the body of a 407 only when it does not answer it: the answer.
            if proxyRound.answerContinues() { headEnded() }
            if paused { return EP_CURL_WRITEFUNC_PAUSE }
            guard let decoder else {
                deliver(bytes)
                return bytes.count
            }
            switch decoder.decode(bytes, shouldStop: { paused }, deliver: deliver) {
            case .failure(let problem):
                failure = CurlDecoder.error(problem, url: url)
                return 0
            case .success(let used):
                // The reader fell behind mid-chunk: the rest waits here, decoded when it catches up.
                if used < bytes.count { undecoded = Data(bytes[used...]) }
                return bytes.count
            }
        }

        /// Fills `buffer` with the next bytes of the upload: the count, 0 at its end.
        func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
            lastActivity = RequestRecorder.now()
            guard let upload else { return 0 }
            switch upload.read(into: buffer) {
            case .success(let count):
                return count
            case .failure(let error):
                failure = error
                return EP_CURL_READFUNC_ABORT
            }
        }
    }
#endif
