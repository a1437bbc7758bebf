#if canImport(FoundationNetworking)
    import CEndpointsCurl
    import Foundation
    import FoundationNetworking

    extension CurlTransport {
        /// Sends a WebSocket handshake (`request` carries its `Upgrade` fields) on a connection of
        /// its own, and returns the answer's head; for a 101 the connection goes to `sink`, the
        /// bytes after the head first in its stream.
        ///
        /// libcurl connects, with TLS, the transport's trust settings and a proxy tunnel
        /// (`CONNECT`) through the transport's proxy (answering its challenges as requests do),
        /// then sends nothing
        /// (`CURLOPT_CONNECT_ONLY`); the request's head is written here, HTTP/1.1, and the answer
        /// read here. `ws` and `wss` URLs are sent as `http` and `https`. Redirects are not
        /// followed (a 3xx is the answer), the per-host limit does not apply (a WebSocket holds
        /// its connection for long), and the request's `timeoutInterval` bounds the connection
        /// and the wait for the answer's head. A non-101 answer's body (an error page) is read up
        /// to its `Content-Length`, 64 KiB at most. With a cookie store, the handshake carries its
        /// cookies and the answer's are kept, as for any request.
        func upgrade(
            _ request: URLRequest, context: RequestContext, into sink: UpgradeSink
        ) async throws -> (ResponseBody, HTTPURLResponse) {
            try HeaderValidation.validate(request)
            guard let url = request.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
                let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty,
                ["ws", "wss", "http", "https"].contains(scheme)
            else {
                throw URLError(
                    .unsupportedURL,
                    userInfo: [
                        NSLocalizedDescriptionKey: "Only ws, wss, http and https URLs can be upgraded.",
                        NSURLErrorFailingURLErrorKey: request.url as Any,
                    ])
            }
            let secure = scheme == "wss" || scheme == "https"
            if case .failure(let invalid) = engine.settings.tls {
                throw URLError(
                    .secureConnectionFailed,
                    userInfo: [NSLocalizedDescriptionKey: invalid.description, NSURLErrorFailingURLErrorKey: url])
            }
            var target = components
            target.scheme = secure ? "https" : "http"
            target.path = ""
            target.percentEncodedQuery = nil
            target.fragment = nil
            guard let connectURL = target.url else {
                throw URLError(.badURL, userInfo: [NSURLErrorFailingURLErrorKey: url])
            }
            let sent = engine.withStoredCookies(request)
            let head = Self.upgradeHead(sent, components: components, secure: secure, settings: engine.settings)
            var answeredProxy = false
            var socket: CurlSocket
            var answer: CurlResponseHead
            var rest: Data
            while true {
                guard let handle = CurlHandle() else {
                    throw URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "libcurl could not make a handle."])
                }
                socket = CurlSocket(
                    handle: handle, loop: engine.loop, url: url, request: head, timeout: request.timeoutInterval)
                let scheme = engine.proxyScheme
                configure(handle, url: connectURL, timeout: request.timeoutInterval, proxyScheme: scheme)
                do {
                    (answer, rest) = try await socket.open()
                    break
                } catch let error as URLError where error.code == .userAuthenticationRequired {
                    // The proxy refused the tunnel asking for another scheme: learnt, and asked again once.
                    guard !answeredProxy, let scheme,
                        engine.learnProxyScheme(sentWith: scheme, offering: handle.proxyAuthOffered)
                    else { throw error }
                    answeredProxy = true
                }
            }
            engine.keepCookies(of: answer, from: url, for: request)
            guard let response = answer.response(url: url) else {
                socket.close()
                throw URLError(.badServerResponse, userInfo: [NSURLErrorFailingURLErrorKey: url])
            }
            guard answer.statusCode == 101 else { return (ResponseBody(rest), response) }
            sink.deliver(socket)
            return (ResponseBody(Data()), response)
        }

        private func configure(
            _ handle: CurlHandle, url: URL, timeout: TimeInterval, proxyScheme: ProxyAuthentication.Scheme?
        ) {
            let easy = handle.easy
            _ = ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_ERRORBUFFER), handle.errorBuffer)
            _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_NOSIGNAL), 1)
            _ = url.absoluteString.withCString { ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_URL), $0) }
            if engine.settings.library.supportsProtocolNames {
                _ = ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_PROTOCOLS_STR), CurlSettings.protocols)
            }
            _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_CONNECT_ONLY), 1)
            // Over TLS, ALPN would otherwise choose HTTP/2, where no upgrade exists.
            _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_HTTP_VERSION), Int(EP_CURL_HTTP_VERSION_1_1))
            // Through a proxy, a CONNECT tunnel: otherwise libcurl sends nothing to the proxy.
            _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_HTTPPROXYTUNNEL), 1)
            _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_SUPPRESS_CONNECT_HEADERS), 1)
            _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_TCP_KEEPALIVE), 1)
            _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_TCP_NODELAY), 1)
            if timeout > 0 {
                _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_CONNECTTIMEOUT_MS), Int(min(timeout, 1e6) * 1000))
            }
            if case .success(let tls) = engine.settings.tls { tls.apply(to: easy) }
            engine.settings.proxy.apply(to: easy, scheme: proxyScheme)
        }

        /// The request's head as it goes out: `GET <path> HTTP/1.1`, `Host`, the request's header
        /// fields (validated by the pipeline and again above: no CR, LF or NUL), a `User-Agent`
        /// when it has none.
        static func upgradeHead(
            _ request: URLRequest, components: URLComponents, secure: Bool, settings: CurlSettings
        ) -> [UInt8] {
            var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            if let query = components.percentEncodedQuery { target += "?" + query }
            var host = components.percentEncodedHost ?? ""
            if host.contains(":") { host = "[\(host)]" }
            if let port = components.port, port != (secure ? 443 : 80) { host += ":\(port)" }
            var head = "\(request.httpMethod ?? "GET") \(target) HTTP/1.1\r\nHost: \(host)\r\n"
            var hasUserAgent = false
            for (name, value) in request.allHTTPHeaderFields ?? [:] {
                if name.caseInsensitiveCompare("Host") == .orderedSame { continue }
                if name.caseInsensitiveCompare("User-Agent") == .orderedSame { hasUserAgent = true }
                head += "\(name): \(value)\r\n"
            }
            if !hasUserAgent { head += settings.userAgentLine + "\r\n" }
            head += "\r\n"
            return Array(head.utf8)
        }
    }
#endif
