#if canImport(FoundationNetworking)
    import CEndpointsCurl
    import Foundation
    import FoundationNetworking

    extension CurlExchange {
        /// An exchange for `request`, its easy handle configured on the caller's thread.
        ///
        /// - Only `http` and `https` URLs are sent (libcurl's own list is narrowed to them too).
        /// - The method and headers go out as given, the path as written (no dot-segment removal),
        ///   `Accept-Encoding: gzip, deflate, br, zstd` and a `User-Agent` are added when the request has
        ///   none, and a request with a body never waits for `100 Continue` (libcurl's `Expect` is
        ///   turned off). libcurl decodes nothing itself (``CurlDecoder`` does).
        /// - The body: the request's data (POST, PUT, PATCH and the others send `Content-Length`,
        ///   0 for none), the context's upload file, or the request's body stream (chunked, unless
        ///   it declares a `Content-Length`).
        ///
        /// - Throws: `URLError.unsupportedURL` for another scheme, `.cannotOpenFile` for an upload
        ///   file that cannot be read.
        ///
        /// `proxyScheme` answers the proxy's challenges (`nil` without credentials); when
        /// `answersProxyRefusal`, a `407` another scheme could answer ends the exchange with
        /// ``CurlProxyRound/refusal`` (or ``CurlErrors/ProxyRefusal`` for a tunnel) for the transport to send
        /// the request again.
        static func make(
            _ request: URLRequest, context: RequestContext, mode: Mode, loop: CurlLoop, settings: CurlSettings,
            proxyScheme: ProxyAuthentication.Scheme?, answersProxyRefusal: Bool
        ) throws(URLError) -> CurlExchange {
            guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                url.host?.isEmpty == false
            else {
                throw URLError(
                    .unsupportedURL,
                    userInfo: [
                        NSLocalizedDescriptionKey: "Only http and https URLs can be sent.",
                        NSURLErrorFailingURLErrorKey: request.url as Any,
                    ])
            }
            if case .failure(let invalid) = settings.tls {
                throw URLError(
                    .secureConnectionFailed,
                    userInfo: [NSLocalizedDescriptionKey: invalid.description, NSURLErrorFailingURLErrorKey: url])
            }
            guard let handle = loop.takeHandle() else {
                throw URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "libcurl could not make a handle."])
            }
            let exchange = CurlExchange(
                request: request, handle: handle, loop: loop, mode: mode,
                followsRedirects: settings.followsRedirects && context.followsRedirects, recorder: context.recorder)
            try exchange.configure(request, url: url, context: context, settings: settings, proxyScheme: proxyScheme)
            if let proxyScheme {
                exchange.proxyRound = CurlProxyRound(
                    scheme: proxyScheme,
                    mayResendRequest: answersProxyRefusal && settings.proxy.carries(url)
                        && exchange.upload?.readsAgain != false,
                    mayReopenTunnel: answersProxyRefusal)
            }
            return exchange
        }

        private func configure(
            _ request: URLRequest, url: URL, context: RequestContext, settings: CurlSettings,
            proxyScheme: ProxyAuthentication.Scheme?
        ) throws(URLError) {
            let easy = handle.easy
            let me = Unmanaged.passUnretained(self).toOpaque()
            _ = ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_ERRORBUFFER), handle.errorBuffer)
            _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_NOSIGNAL), 1)
            _ = url.absoluteString.withCString { ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_URL), $0) }
            if settings.library.supportsProtocolNames {
                _ = ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_PROTOCOLS_STR), CurlSettings.protocols)
            }
            _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_PATH_AS_IS), 1)
            _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_SUPPRESS_CONNECT_HEADERS), 1)
            _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_TCP_KEEPALIVE), 1)
            _ = ep_easy_setopt_data_callback(easy, Int32(EP_CURLOPT_HEADERFUNCTION), CurlCallbacks.header)
            _ = ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_HEADERDATA), me)
            _ = ep_easy_setopt_data_callback(easy, Int32(EP_CURLOPT_WRITEFUNCTION), CurlCallbacks.write)
            _ = ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_WRITEDATA), me)
            if settings.library.supportsHTTP2 {
                _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_HTTP_VERSION), Int(EP_CURL_HTTP_VERSION_2TLS))
                // Over TLS, wait for the first connection's handshake to tell whether it multiplexes
                // rather than open more. Not over plain HTTP, where libcurl learns that only from the
                // first response: a second request would wait for it.
                if url.scheme?.lowercased() == "https" { _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_PIPEWAIT), 1) }
            } else {
                _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_HTTP_VERSION), Int(EP_CURL_HTTP_VERSION_1_1))
            }
            _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_HTTP_CONTENT_DECODING), 0)
            if mode == .streamed {
                // A streamed body may be large: one `recv` takes up to this much instead of 16 KB
                // (libcurl allocates it per transfer and frees it when the transfer ends).
                _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_BUFFERSIZE), CurlExchange.receiveBufferSize)
            }
            if case .success(let tls) = settings.tls { tls.apply(to: easy) }
            settings.proxy.apply(to: easy, scheme: proxyScheme)
            let hasBody = try configureBody(request, context: context)
            // libcurl names any body it posts `application/x-www-form-urlencoded` when the request
            // names none; URLSession does that for a POST with a body alone.
            let namesForm =
                hasBody && request.httpMethod == "POST" && (upload != nil || request.httpBody?.isEmpty == false)
            configureHeaders(request, hasBody: hasBody, keepsFormType: namesForm, settings: settings)
        }

        /// Sets the method and the body; whether there is a body.
        private func configureBody(_ request: URLRequest, context: RequestContext) throws(URLError) -> Bool {
            let easy = handle.easy
            let method = request.httpMethod ?? "GET"
            // The context's file is the body of a request that still carries it as a stream: not
            // of the GET a 303 (or a POST's 301 or 302) turned it into, which has none.
            if let file = context.transfer.upload, request.httpBodyStream != nil {
                upload = try CurlUpload(file: file.file, size: file.size, progress: file.progress)
            } else if let stream = request.httpBodyStream, request.httpBody == nil {
                let length = request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) }
                upload = CurlUpload(stream: stream, size: length)
            }
            if let upload {
                let me = Unmanaged.passUnretained(self).toOpaque()
                _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_POST), 1)
                _ = ep_easy_setopt_off(easy, Int32(EP_CURLOPT_POSTFIELDSIZE_LARGE), upload.size ?? -1)
                _ = ep_easy_setopt_data_callback(easy, Int32(EP_CURLOPT_READFUNCTION), CurlCallbacks.read)
                _ = ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_READDATA), me)
                _ = ep_easy_setopt_seek_callback(easy, CurlCallbacks.seek)
                _ = ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_SEEKDATA), me)
                if method != "POST" { setMethod(method) }
                return true
            }
            let data = request.httpBody ?? Data()
            switch method {
            case "GET" where data.isEmpty:
                return false
            case "HEAD" where data.isEmpty:
                _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_NOBODY), 1)
                return false
            case "DELETE", "OPTIONS", "TRACE", "CONNECT", "GET", "HEAD":
                // No body, no Content-Length, as URLSession sends them.
                guard !data.isEmpty else {
                    setMethod(method)
                    return false
                }
            default:
                break
            }
            // A body (possibly empty) with its Content-Length, from memory the exchange owns.
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 1)
            data.copyBytes(to: buffer)
            requestBody = buffer
            _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_POST), 1)
            _ = ep_easy_setopt_off(easy, Int32(EP_CURLOPT_POSTFIELDSIZE_LARGE), Int64(data.count))
            _ = ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_POSTFIELDS), buffer.baseAddress)
            if method != "POST" { setMethod(method) }
            return true
        }

        private func setMethod(_ method: String) {
            _ = method.withCString { ep_easy_setopt_pointer(handle.easy, Int32(EP_CURLOPT_CUSTOMREQUEST), $0) }
        }

        /// The request's headers, as given: an empty value goes out empty (`Name;` in libcurl's
        /// terms), and libcurl's `Expect: 100-continue` is turned off for a body, as is its
        /// `Content-Type` for a body whose request names none, unless `keepsFormType`.
        private func configureHeaders(
            _ request: URLRequest, hasBody: Bool, keepsFormType: Bool, settings: CurlSettings
        ) {
            var list: OpaquePointer?
            var hasUserAgent = false
            var hasAcceptEncoding = false
            var hasContentType = false
            for (name, value) in request.allHTTPHeaderFields ?? [:] {
                let line = value.isEmpty ? "\(name);" : "\(name): \(value)"
                list = line.withCString { ep_slist_append(list, $0) }
                if !hasUserAgent, CurlResponseHead.sameName(name.utf8, "User-Agent".utf8) { hasUserAgent = true }
                if !hasAcceptEncoding, CurlResponseHead.sameName(name.utf8, "Accept-Encoding".utf8) {
                    hasAcceptEncoding = true
                }
                if hasBody, !hasContentType, CurlResponseHead.sameName(name.utf8, "Content-Type".utf8) {
                    hasContentType = true
                }
            }
            if !hasUserAgent { list = ep_slist_append(list, settings.userAgentLine) }
            if !hasAcceptEncoding, let line = CurlSettings.acceptEncodingLine { list = ep_slist_append(list, line) }
            if hasBody { list = ep_slist_append(list, "Expect:") }
            if hasBody, !hasContentType, !keepsFormType { list = ep_slist_append(list, "Content-Type:") }
            headerList = list
            _ = ep_easy_setopt_pointer(handle.easy, Int32(EP_CURLOPT_HTTPHEADER), UnsafeRawPointer(list))
        }
    }

    /// What every exchange of one ``CurlTransport`` is configured with.
    struct CurlSettings: Sendable {
        let library: CurlLibrary
        /// `User-Agent: …`, for requests that set none.
        let userAgentLine: String
        /// Whether a redirect ends the exchange for the transport to follow (always, but where a
        /// caller wants the 3xx itself).
        let followsRedirects: Bool
        /// The TLS options, resolved from the client's ``TLSTrust``, or why they could not be.
        let tls: Result<CurlTLS, TLSTrust.Invalid>?
        /// The proxy requests go through.
        let proxy: CurlTransport.Proxy

        static let protocols = "http,https"
        /// The codings ``CurlDecoder`` decodes (`gzip, deflate, br, zstd` where their libraries
        /// load), offered to servers unless a request offers its own; `nil` when none loads.
        static let acceptEncodingLine: String? =
            CurlDecoder.offered.isEmpty ? nil : "Accept-Encoding: " + CurlDecoder.offered.joined(separator: ", ")
    }
#endif
