import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response body cut off part-way, the same error on every platform and every path (buffered,
/// streamed, download, upload); and the other failures Linux's URLSession reports as
/// `URLError.unknown` (-1), given the code Apple platforms and ``CurlTransport`` give them.
///
/// corelibs keeps no libcurl code: it reports every failure it does not map as `-1` with curl's
/// sentence for a description ("transfer closed with 990 bytes remaining to read", "Illegal or
/// missing hexadecimal sequence in chunked-encoding", "SSL certificate problem: …"), and a response
/// libcurl refuses for its status line as `-1002` (`.unsupportedURL`). Code that matches
/// `.networkConnectionLost` or `.badServerResponse` would miss them, and ``RetryMiddleware`` never
/// retries `.unknown`, so the transports report them as below, the original error kept under
/// `NSUnderlyingErrorKey` (a ``TLSFailure`` there for a TLS failure).
extension URLError {
    /// The error for a response body that stopped part-way because the connection closed:
    /// `.networkConnectionLost`, with a sentence naming `detail` for a description, the failing URL,
    /// and the error URLSession reported, if any, under `NSUnderlyingErrorKey`.
    static func partialTransfer(_ detail: String, failingURL: URL?, underlying: (any Error)?) -> URLError {
        var info: [String: Any] = [
            NSLocalizedDescriptionKey:
                "The network connection was lost before the whole response body arrived (\(detail))."
        ]
        if let failingURL { info[NSURLErrorFailingURLErrorKey] = failingURL }
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        return URLError(.networkConnectionLost, userInfo: info)
    }

    /// `error` with the code Apple platforms give the same failure when it is one of corelibs'
    /// `-1` reports that curl's words tell apart:
    ///
    /// - a body cut off part-way: ``partialTransfer(_:failingURL:underlying:)``;
    /// - a response libcurl or corelibs refused as malformed (broken chunking, a header line
    ///   without a colon or with a NUL, a status line or `Content-Length` it cannot read, HTTP/0.9,
    ///   a head too large, one corelibs' parser fails): `.badServerResponse`;
    /// - a body libcurl could not decode: `.cannotDecodeContentData`;
    /// - a TLS failure: the code of its ``TLSFailure`` (untrusted, hostname mismatch, expired, …),
    ///   which goes under `NSUnderlyingErrorKey`;
    /// - a proxy that would not open a tunnel to an https server: ``proxyRefusedTunnel(status:detail:failingURL:underlying:)``.
    ///
    /// Any other error, and every error on Apple platforms, is returned unchanged.
    static func normalizingCorelibsFailure(_ error: any Error) -> any Error {
        #if canImport(FoundationNetworking)
            let nsError = error as NSError
            let unknown = nsError.code == URLError.Code.unknown.rawValue
            guard nsError.domain == NSURLErrorDomain, unknown || nsError.code == URLError.Code.unsupportedURL.rawValue
            else { return error }
            let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError
            let texts = [nsError, underlying].compactMap { $0?.userInfo[NSLocalizedDescriptionKey] as? String }
            let failingURL = nsError.userInfo[NSURLErrorFailingURLErrorKey] as? URL
            var info: [String: Any] = [NSUnderlyingErrorKey: error]
            if let failingURL { info[NSURLErrorFailingURLErrorKey] = failingURL }
            // -1002 is libcurl refusing a status line (`CURLE_UNSUPPORTED_PROTOCOL`), or a scheme
            // it does not speak ("Protocol "ftp" not supported"), which stays: malformed answers only.
            for text in texts {
                if unknown, let status = curlTunnelStatus(text) {
                    return proxyRefusedTunnel(status: status, detail: text, failingURL: failingURL, underlying: error)
                }
                if unknown, isCurlPartialFile(text) {
                    return partialTransfer("curl: \(text)", failingURL: failingURL, underlying: error)
                }
                if unknown, let failure = TLSFailure(curlText: text) {
                    info[NSUnderlyingErrorKey] = failure
                    info[NSLocalizedDescriptionKey] = failure.description
                    return URLError(failure.urlErrorCode, userInfo: info)
                }
                if unknown, isCurlDecodingFailure(text) {
                    info[NSLocalizedDescriptionKey] = "The response body could not be decoded (curl: \(text))."
                    return URLError(.cannotDecodeContentData, userInfo: info)
                }
                if isCurlMalformedResponse(text) {
                    info[NSLocalizedDescriptionKey] = "The server's response is malformed (curl: \(text))."
                    return URLError(.badServerResponse, userInfo: info)
                }
            }
            return error
        #else
            return error
        #endif
    }

    #if canImport(FoundationNetworking)
        /// The error for a proxy that answered the `CONNECT` of an https request with `status`
        /// instead of opening the tunnel (curl: "CONNECT tunnel failed, response 407"), which libcurl
        /// reports as a receive error, as if the connection were lost:
        ///
        /// - 407: `.userAuthenticationRequired`, the proxy wants credentials (not retried: sending
        ///   again asks again);
        /// - no status (an answer that is not HTTP): `.badServerResponse`;
        /// - any other (403, 502, …): `.cannotConnectToHost`, the proxy would not or could not reach
        ///   the server.
        ///
        /// A proxy's answer to a plain `http` request is the response itself, 407 included.
        static func proxyRefusedTunnel(status: Int, detail: String, failingURL: URL?, underlying: (any Error)?)
            -> URLError
        {
            let code: URLError.Code
            let sentence: String
            switch status {
            case 407:
                code = .userAuthenticationRequired
                sentence = "The proxy requires authentication (407) to open a tunnel to the server"
            case 0:
                code = .badServerResponse
                sentence = "The proxy's answer to CONNECT is not an HTTP response"
            default:
                code = .cannotConnectToHost
                sentence = "The proxy refused to open a tunnel to the server (\(status))"
            }
            var info: [String: Any] = [NSLocalizedDescriptionKey: "\(sentence) (curl: \(detail))."]
            if let failingURL { info[NSURLErrorFailingURLErrorKey] = failingURL }
            if let underlying { info[NSUnderlyingErrorKey] = underlying }
            return URLError(code, userInfo: info)
        }

        /// The status of curl's "CONNECT tunnel failed, response N" (curl 7 and 8), the proxy's answer
        /// to an https request's `CONNECT` (0 when it was not HTTP).
        static func curlTunnelStatus(_ text: String) -> Int? {
            let prefix = "CONNECT tunnel failed, response "
            guard text.hasPrefix(prefix), let status = Int(text.dropFirst(prefix.count)), (0...999).contains(status)
            else {
                return nil
            }
            return status
        }

        /// Whether `text` is one of the messages curl gives `CURLE_PARTIAL_FILE` for an HTTP body:
        /// the error buffer's "transfer closed with N bytes remaining to read" and "transfer closed
        /// with outstanding read data remaining" (curl 7 and 8), "end of response with N bytes
        /// missing" (curl 8.6 on), or `curl_easy_strerror`'s "Transferred a partial file", which
        /// corelibs uses when the buffer is empty.
        static func isCurlPartialFile(_ text: String) -> Bool {
            text == "transfer closed with outstanding read data remaining"
                || text == "Transferred a partial file"
                || isCount(text, between: "transfer closed with ", and: " bytes remaining to read")
                || isCount(text, between: "end of response with ", and: " bytes missing")
        }

        /// Whether `text` is curl's (7.88 and 8) or corelibs' refusal of a malformed response:
        /// chunking ("Illegal or missing hexadecimal sequence in chunked-encoding", "chunk
        /// hex-length longer than 16", "invalid chunk size"; not "Failed reading the
        /// chunked-encoded stream", which is the body's writer failing, libcurl's decoder say),
        /// HTTP/0.9, "Header without colon", "Nul byte in header", "Invalid Content-Length value",
        /// "Unsupported HTTP version (1.2) in response", "Unsupported response code in HTTP
        /// response", "Weird server reply", "Too large response headers: …", "Out of memory" (its
        /// answer to a header line of over ~100 KB), and corelibs' "Failed writing header" (its
        /// own head parser failed).
        static func isCurlMalformedResponse(_ text: String) -> Bool {
            let lowered = text.lowercased()
            return [
                "chunked-encoding", "chunk hex", "invalid chunk", "http/0.9", "header without colon",
                "nul byte in header", "content-length",
                "unsupported http", "unsupported response code", "weird server reply", "response headers",
                "bytes of header", "failed writing header", "out of memory",
            ].contains { lowered.contains($0) }
        }

        /// Whether `text` is libcurl's failure to decode a body: "Error while processing content
        /// unencoding: …", "Unrecognized content encoding type …", "Reject response due to more than 5
        /// content encodings", or the code's own "Unrecognized or bad HTTP Content or
        /// Transfer-Encoding".
        static func isCurlDecodingFailure(_ text: String) -> Bool {
            let lowered = text.lowercased()
            return ["content unencoding", "content encoding", "content or transfer-encoding"].contains {
                lowered.contains($0)
            }
        }

        private static func isCount(_ text: String, between prefix: String, and suffix: String) -> Bool {
            guard text.hasPrefix(prefix), text.hasSuffix(suffix), text.count > prefix.count + suffix.count else {
                return false
            }
            return text.dropFirst(prefix.count).dropLast(suffix.count).allSatisfy { ("0"..."9").contains($0) }
        }
    #endif
}
