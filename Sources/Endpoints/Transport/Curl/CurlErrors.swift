#if canImport(FoundationNetworking)
    import CEndpointsCurl
    import Foundation
    import FoundationNetworking

    /// What a libcurl transfer's failure and measurements mean in the library's terms.
    enum CurlErrors {
        /// The `URLError` for CURLcode `code`: the code URLSession reports for the same failure on
        /// Apple platforms, with libcurl's sentence in the description and the failing URL.
        static func urlError(code: Int32, handle: CurlHandle, url: URL, head: CurlResponseHead) -> URLError {
            let detail = handle.errorText ?? String(cString: ep_curl_strerror(code))
            let urlCode: URLError.Code
            var sentence: String
            let lowered = detail.lowercased()
            // A malformed chunked body, an HTTP/0.9 answer and the other refusals in curl's words
            // are the server's fault, whatever code libcurl gives them (a receive error, an
            // unsupported protocol): the same words Linux's URLSession is read by.
            if let status = URLError.curlTunnelStatus(detail) {
                return URLError.proxyRefusedTunnel(status: status, detail: detail, failingURL: url, underlying: nil)
            }
            // The proxy asked the tunnel's CONNECT for credentials (Digest: libcurl asks without,
            // for the nonce) and closed the connection: libcurl answers only on the same one, so
            // the proxy's challenge cannot be answered; sending again asks again.
            if lowered.hasPrefix("proxy connect aborted"), handle.proxyAuthOffered != 0 {
                return URLError.proxyRefusedTunnel(
                    status: 407, detail: "\(detail): the proxy closed the connection after its 407", failingURL: url,
                    underlying: nil)
            }
            if URLError.isCurlMalformedResponse(detail) {
                return URLError(
                    .badServerResponse,
                    userInfo: [
                        NSLocalizedDescriptionKey: "The server's response is malformed (\(detail)).",
                        NSURLErrorFailingURLErrorKey: url,
                    ])
            }
            switch Int(code) {
            case EP_CURLE_PARTIAL_FILE, EP_CURLE_RECV_ERROR, EP_CURLE_SEND_ERROR, EP_CURLE_GOT_NOTHING,
                EP_CURLE_HTTP2, EP_CURLE_HTTP2_STREAM:
                if Int(code) == EP_CURLE_PARTIAL_FILE || head.isComplete {
                    return URLError.partialTransfer("curl: \(detail)", failingURL: url, underlying: nil)
                }
                // A TLS 1.3 server refusing the client's certificate sends its alert after the
                // client's side of the handshake is done, so libcurl reads it as the request goes
                // out ("tlsv13 alert certificate required"): a TLS failure, not a lost connection.
                if lowered.contains(" alert "), lowered.contains("ssl") || lowered.contains("tls") {
                    return tlsError(code: code, handle: handle, url: url, detail: detail)
                }
                // An HTTP/2 head nghttp2 refused (a field with CR, LF or NUL, an upper-case or
                // connection-specific name, no valid `:status`: it resets the stream with
                // PROTOCOL_ERROR), or one larger than libcurl keeps (128 KB, past which its header
                // callback fails): malformed, as the same head over HTTP/1.1 is, not a lost connection.
                if lowered.contains("protocol_error") || lowered.contains("-902") {
                    urlCode = .badServerResponse
                    sentence = "The server's response is malformed (\(detail))."
                } else {
                    urlCode = .networkConnectionLost
                    sentence = "The network connection was lost (\(detail))."
                }
            case EP_CURLE_COULDNT_RESOLVE_HOST, EP_CURLE_COULDNT_RESOLVE_PROXY:
                urlCode = .cannotFindHost
                sentence = "The host could not be found (\(detail))."
            case EP_CURLE_COULDNT_CONNECT, EP_CURLE_PROXY:
                urlCode = .cannotConnectToHost
                sentence = "Could not connect to the server (\(detail))."
            case EP_CURLE_OPERATION_TIMEDOUT:
                urlCode = .timedOut
                sentence = "The request timed out (\(detail))."
            case EP_CURLE_UNSUPPORTED_PROTOCOL:
                // The transport sends only http and https URLs: this is libcurl refusing a response
                // (a status it does not take, an HTTP version it does not speak).
                urlCode = .badServerResponse
                sentence = "The server's response is malformed (\(detail))."
            case EP_CURLE_URL_MALFORMAT:
                urlCode = .badURL
                sentence = "The URL is malformed (\(detail))."
            case EP_CURLE_WEIRD_SERVER_REPLY:
                urlCode = .badServerResponse
                sentence = "The server's response is malformed (\(detail))."
            case EP_CURLE_OUT_OF_MEMORY:
                // libcurl's answer to a header line of over ~100 KB.
                urlCode = .badServerResponse
                sentence = "The server's response could not be read (\(detail))."
            case EP_CURLE_BAD_CONTENT_ENCODING:
                urlCode = .cannotDecodeContentData
                sentence = "The response body could not be decoded (\(detail))."
            case EP_CURLE_SEND_FAIL_REWIND:
                // The connection went away under the request (a kept-alive one the server closed
                // as it arrived) and libcurl would send it again on a new one, but its body is a
                // stream already read: what Apple's URLSession reports when it needs a new body
                // stream and has none. An upload's file is read again, and goes.
                urlCode = .requestBodyStreamExhausted
                sentence =
                    "The connection was lost and the request's body stream cannot be read again to resend it (\(detail))."
            case EP_CURLE_FILESIZE_EXCEEDED:
                urlCode = .dataLengthExceedsMaximum
                sentence = "The response body is too large (\(detail))."
            case EP_CURLE_SSL_CONNECT_ERROR, EP_CURLE_SSL_CIPHER, EP_CURLE_SSL_CERTPROBLEM,
                EP_CURLE_SSL_CACERT_BADFILE, EP_CURLE_SSL_CRL_BADFILE, EP_CURLE_SSL_ISSUER_ERROR,
                EP_CURLE_PEER_FAILED_VERIFICATION, EP_CURLE_SSL_PINNEDPUBKEYNOTMATCH,
                EP_CURLE_SSL_INVALIDCERTSTATUS, EP_CURLE_SSL_CLIENTCERT:
                return tlsError(code: code, handle: handle, url: url, detail: detail)
            default:
                urlCode = .unknown
                sentence = "The request failed (curl error \(code): \(detail))."
            }
            return URLError(
                urlCode, userInfo: [NSLocalizedDescriptionKey: sentence, NSURLErrorFailingURLErrorKey: url])
        }

        /// Whether a transfer that failed with CURLcode `code` lost a connection it had reused before
        /// any byte of its answer arrived: closed or reset under it, or an HTTP/2 server's `GOAWAY`
        /// (libcurl 7.88 fails the streams a `GOAWAY` says were never processed with
        /// `CURLE_HTTP2`, where later versions send them again). Not a stream the server reset
        /// (its refusal) nor a timeout.
        static func reusedConnectionWasLost(code: Int32, handle: CurlHandle, head: CurlResponseHead) -> Bool {
            guard head.size == 0 else { return false }
            switch Int(code) {
            case EP_CURLE_HTTP2, EP_CURLE_SEND_ERROR, EP_CURLE_RECV_ERROR, EP_CURLE_GOT_NOTHING: break
            case EP_CURLE_HTTP2_STREAM:
                // "HTTP/2 stream 3 was not closed cleanly before end of the underlying stream".
                guard handle.errorText?.contains("end of the underlying stream") == true else { return false }
            default: return false
            }
            var connects = 0
            _ = ep_easy_getinfo_long(handle.easy, Int32(EP_CURLINFO_NUM_CONNECTS), &connects)
            return connects == 0
        }

        /// A transfer's failure on a connection it had reused, before any byte of its answer
        /// (``reusedConnectionWasLost(code:handle:head:)``), as the exchange delivers it: the
        /// transport may send an idempotent request again, and throws `error` otherwise. The
        /// decision travels with the failure, not beside it in the exchange, which the loop thread
        /// may still write after a cancelled caller has gone on.
        struct LostReusedConnection: Error {
            let error: URLError
        }

        /// A proxy refused a request's tunnel (`CONNECT`) with a `407` asking for another scheme
        /// than the one `scheme` answered with: the transport learns it and sends the request again
        /// once (nothing of it was sent), or throws `error`.
        struct ProxyRefusal: Error {
            let error: URLError
            /// The schemes the proxy asked for (`CURLAUTH_*` bits).
            let offered: Int
            let scheme: ProxyAuthentication.Scheme
        }

        /// The `URLError` for a TLS failure, its ``TLSFailure`` under `NSUnderlyingErrorKey`.
        private static func tlsError(code: Int32, handle: CurlHandle, url: URL, detail: String) -> URLError {
            let failure = TLSFailure(curlCode: code, verifyResult: handle.verifyResult, detail: detail)
            return URLError(
                failure.urlErrorCode,
                userInfo: [
                    NSLocalizedDescriptionKey: failure.description, NSURLErrorFailingURLErrorKey: url,
                    NSUnderlyingErrorKey: failure,
                ])
        }

        /// The error for a response head refused as it arrived.
        static func refusedHead(_ problem: CurlResponseHead.Problem, url: URL) -> URLError {
            let reason =
                switch problem {
                case .tooLarge: "its header is larger than \(CurlResponseHead.maximumBytes / 1024) KB"
                case .malformedStatusLine: "its status line is malformed"
                case .foldedLine: "a header line is folded (obs-fold, RFC 9112 §5.2)"
                case .invalidFieldName: "a header name is not a token"
                case .invalidFieldValue: "a header value holds a CR, LF or NUL"
                case .unsupportedTransferCoding:
                    "its Transfer-Encoding names a coding other than chunked, which this client did not ask for (RFC 9112 §6.1)"
                }
            return URLError(
                .badServerResponse,
                userInfo: [
                    NSLocalizedDescriptionKey: "The server's response is malformed: \(reason).",
                    NSURLErrorFailingURLErrorKey: url,
                ])
        }

        /// What libcurl measured of the finished transfer on `handle`.
        static func connectionMetrics(of handle: CurlHandle) -> RequestMetrics.ConnectionMetrics {
            func time(_ info: Int32) -> TimeInterval? {
                var value: Int64 = 0
                guard Int(ep_easy_getinfo_off(handle.easy, info, &value)) == EP_CURLE_OK else { return nil }
                return TimeInterval(value) / 1_000_000
            }
            var connects = 0
            _ = ep_easy_getinfo_long(handle.easy, Int32(EP_CURLINFO_NUM_CONNECTS), &connects)
            var version = 0
            _ = ep_easy_getinfo_long(handle.easy, Int32(EP_CURLINFO_HTTP_VERSION), &version)
            let lookup = time(Int32(EP_CURLINFO_NAMELOOKUP_TIME_T)) ?? 0
            let connected = time(Int32(EP_CURLINFO_CONNECT_TIME_T)) ?? 0
            let secured = time(Int32(EP_CURLINFO_APPCONNECT_TIME_T)) ?? 0
            let reused = connects == 0
            let networkProtocol: String? =
                switch version {
                case Int(EP_CURL_HTTP_VERSION_1_0): "http/1.0"
                case Int(EP_CURL_HTTP_VERSION_1_1): "http/1.1"
                case Int(EP_CURL_HTTP_VERSION_2_0): "h2"
                case Int(EP_CURL_HTTP_VERSION_3): "h3"
                default: nil
                }
            func count(_ info: Int32) -> Int64 {
                var value: Int64 = 0
                _ = ep_easy_getinfo_off(handle.easy, info, &value)
                return value
            }
            func size(_ info: Int32) -> Int64 {
                var value = 0
                _ = ep_easy_getinfo_long(handle.easy, info, &value)
                return Int64(value)
            }
            var ip: UnsafePointer<CChar>?
            _ = ep_easy_getinfo_string(handle.easy, Int32(EP_CURLINFO_PRIMARY_IP), &ip)
            var port = 0
            _ = ep_easy_getinfo_long(handle.easy, Int32(EP_CURLINFO_PRIMARY_PORT), &port)
            let address = ip.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }.map { ip in
                (ip.utf8.contains(UInt8(ascii: ":")) ? "[\(ip)]" : ip) + (port > 0 ? ":\(port)" : "")
            }
            let firstByte = time(Int32(EP_CURLINFO_STARTTRANSFER_TIME_T))
            return RequestMetrics.ConnectionMetrics(
                reusedConnection: reused,
                domainLookup: reused ? nil : lookup,
                connect: reused ? nil : max(0, connected - lookup),
                secureConnection: reused || secured == 0 ? nil : max(0, secured - connected),
                networkProtocol: networkProtocol,
                firstByte: firstByte == 0 ? nil : firstByte,
                total: time(Int32(EP_CURLINFO_TOTAL_TIME_T)),
                bytesSent: size(Int32(EP_CURLINFO_REQUEST_SIZE)),
                bytesReceived: size(Int32(EP_CURLINFO_HEADER_SIZE)) + count(Int32(EP_CURLINFO_SIZE_DOWNLOAD_T)),
                remoteAddress: address
            )
        }
    }

    extension CurlHandle {
        /// OpenSSL's verification result of the last TLS handshake (0 when it verified).
        var verifyResult: Int {
            var value = 0
            _ = ep_easy_getinfo_long(easy, Int32(EP_CURLINFO_SSL_VERIFYRESULT), &value)
            return value
        }
    }
#endif
