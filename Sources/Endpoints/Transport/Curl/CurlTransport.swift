#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking

    /// The transport that sends requests through libcurl itself, on Linux: what `EndpointClient()`
    /// sends with there.
    ///
    /// ```swift
    /// let client = EndpointClient()   // this transport on Linux, URLSession.shared on Apple platforms
    /// let user = try await client.response(with: UserEndpoint(pathComponents: .init(userId: 42)))
    ///
    /// // Or with settings of your own:
    /// let backend = EndpointClient(transport: try CurlTransport(maximumRequestsPerHost: 32))
    /// ```
    ///
    /// URLSession on Linux is built on the same libcurl, and most of what a request costs there is
    /// its layers above libcurl (see BENCHMARKS.md); they are also where Linux's URLSession defects
    /// live. This transport drives libcurl's multi interface from one thread of its own and keeps
    /// the library's semantics:
    ///
    /// - **Connections** are reused (HTTP/1.1 keep-alive, HTTP/2 multiplexing over TLS when the
    ///   server offers it), with TCP keep-alive on. At most `maximumRequestsPerHost` requests go to
    ///   one host (scheme, host, port) at once; the others wait in order, and one cancelled while it
    ///   waits is never sent. A token refresh skips the queue.
    /// - **Redirects** are followed by the library's policy, the same as ``URLSessionTransport``'s:
    ///   credentials are dropped for another origin, 303 (and 301/302 after POST) become a GET,
    ///   at most 16 hops, and only to `http` and `https`.
    /// - **Timeouts**: a request's `timeoutInterval` is an idle timeout, fractions of a second
    ///   included: the request fails with `URLError.timedOut` when nothing arrives for that long.
    ///   Use ``DeadlineMiddleware`` to bound the whole exchange.
    /// - **Bodies** stream through ``ResponseBody`` with backpressure: while 1 MiB waits unread the
    ///   transfer is paused (libcurl stops reading the socket), so memory stays bounded for any
    ///   response size; the body is gathered in buffers of 256 KiB the transport reuses (up to eight
    ///   kept). Uploads are read from their data, file or stream as they are sent, and never
    ///   wait for `100 Continue`. Responses compressed with gzip, deflate, brotli or zstd (or several
    ///   of them in turn) are decoded, 64 KiB at a time; decompression bombs and bodies that end
    ///   inside their coding's stream (cut short) are refused.
    /// - **Hostile answers** fail with a typed error and never a crash: a head larger than 64 KB, a
    ///   folded or malformed header line, a head or body cut off by a closed connection, conflicting
    ///   framing, a transfer coding other than `chunked`. A field value that is not UTF-8 reads as
    ///   ISO-8859-1, every byte kept.
    /// - **Errors** are the `URLError` codes URLSession reports on Apple platforms; TLS failures
    ///   carry their cause (``TLSFailure``).
    /// - **Sent again once**: a request whose reused connection went away before any byte of its
    ///   answer (an HTTP/2 `GOAWAY` for a stream the server never processed, which libcurl 7.88
    ///   fails; a keep-alive connection the server closed) goes out once more on another
    ///   connection, when its method is idempotent and its body is not a stream.
    /// - **Proxies** come from the environment as curl reads them (`http_proxy`, `https_proxy`,
    ///   `no_proxy`), unless the transport is given one (``Proxy``), whose Basic or Digest
    ///   challenges it answers.
    /// - **Metrics**: each attempt's ``RequestMetrics/Attempt/connection`` holds libcurl's timings.
    ///
    /// - **Cookies** are kept only when it is given a store (`cookies:`): then each hop of a
    ///   request, redirects included, carries the store's cookies for its URL and the cookies of
    ///   every response are kept, as URLSession does with its configuration's store. Without one
    ///   (the default, as servers' HTTP clients have none), no cookie is kept or added: a cookie a
    ///   server sets for one user is never sent for another. ``CookieAuth`` works either way.
    ///
    /// It has no `URLCache`: use ``HTTPCache`` for caching.
    ///
    /// libcurl is loaded when the first transport is made; see ``CurlUnavailable``.
    public struct CurlTransport: HTTPTransport {
        /// The loop and the settings, shared by copies of this transport.
        let engine: Engine
        /// The most requests in flight to one host at once.
        public var maximumRequestsPerHost: Int { engine.maximumRequestsPerHost }

        /// The default most requests in flight per host: 16. More than browsers' 6 connections and
        /// AsyncHTTPClient's 8, because a server calls few hosts with many requests at once: 16 in
        /// flight carry a backend 20 ms away at 740 requests a second.
        public static let defaultMaximumRequestsPerHost = 16

        /// A transport with its own connections and thread.
        ///
        /// ```swift
        /// let transport = try CurlTransport(maximumRequestsPerHost: 32, tls: try TLSTrust(pinnedPublicKeys: [pin]))
        ///
        /// // A client that keeps cookies, shared with URLSession.shared's:
        /// let browserLike = EndpointClient(transport: try CurlTransport(cookies: .shared))
        /// ```
        ///
        /// - Parameters:
        ///   - maximumRequestsPerHost: The most requests in flight to one host at once (at least 1);
        ///     the rest wait in order.
        ///   - tls: Which servers to trust and the client certificate to show (see ``TLSTrust``);
        ///     the system's roots when `nil`.
        ///   - cookies: Where to keep the cookies servers set, and take those each request carries:
        ///     `.shared` (on Linux, saved to a file as for `URLSession.shared`), or
        ///     `URLSessionConfiguration.ephemeral.httpCookieStorage` for one in memory. Its
        ///     `cookieAcceptPolicy` applies; a request whose `httpShouldHandleCookies` is off neither
        ///     takes nor keeps any. `nil`, the default, keeps none.
        ///   - proxy: The proxy requests go through (see ``Proxy``): by default those the
        ///     environment names, as curl reads them.
        /// - Throws: ``CurlUnavailable`` when libcurl cannot be loaded or is older than 7.68.
        public init(
            maximumRequestsPerHost: Int = defaultMaximumRequestsPerHost, tls: TLSTrust? = nil,
            cookies: HTTPCookieStorage? = nil, proxy: Proxy = .environment
        ) throws(CurlUnavailable) {
            let library = try CurlLibrary.loaded.get()
            engine = Engine(
                library: library, maximumRequestsPerHost: max(1, maximumRequestsPerHost), tls: tls, cookies: cookies,
                proxy: proxy)
        }

        /// The transport `EndpointClient()` uses on Linux, made once per process; the reason it
        /// could not be.
        static let shared: Result<CurlTransport, CurlUnavailable> = Result { () throws(CurlUnavailable) in
            try CurlTransport()
        }

        /// Sends `request` and returns the whole body with the response.
        public func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
            let (request, admission) = try await HostLimiter.admit(request, limit: hostLimit, context: context)
            let (answer, response): (CurlAnswer, HTTPURLResponse)
            do {
                (answer, response) = try await exchange(request, context: context, mode: .buffered)
                admission.release(answered: true)
            } catch {
                admission.release(answered: false)
                throw error
            }
            let data = answer.body.bufferedData ?? Data()
            if let violation = ResponseFraming.violation(
                status: response.statusCode, url: response.url, bodyLength: data.count,
                requestMethod: request.httpMethod, field: answer.head.value(of:))
            {
                throw violation
            }
            return (data, response)
        }

        /// Sends `request` and returns the response head as soon as it arrives, the body still
        /// arriving. The host's slot is given back when the head is in.
        public func stream(_ request: URLRequest, context: RequestContext) async throws -> (
            ResponseBody, HTTPURLResponse
        ) {
            if let sink = context.upgrade { return try await upgrade(request, context: context, into: sink) }
            let (request, admission) = try await HostLimiter.admit(request, limit: hostLimit, context: context)
            do {
                let (answer, response) = try await exchange(request, context: context, mode: .streamed)
                admission.release(answered: true)
                return (answer.body, response)
            } catch {
                admission.release(answered: false)
                throw error
            }
        }

        /// This transport's per-host limit: its loop's connections, the maximum always (libcurl
        /// keeps its connections where corelibs churns them).
        private var hostLimit: HostLimiter.Limit {
            HostLimiter.Limit(pool: engine.loop, maximumPerHost: engine.maximumRequestsPerHost, adaptsToLatency: false)
        }

        /// Sends `request`, following redirects by the library's policy: the final answer with
        /// its head as an `HTTPURLResponse`.
        private func exchange(
            _ request: URLRequest, context: RequestContext, mode: CurlExchange.Mode
        ) async throws -> (CurlAnswer, HTTPURLResponse) {
            let policy = RedirectPolicy(
                original: request, credentialHeaders: context.credentialHeaders,
                currentCredentials: context.currentCredentials)
            var current = request
            var hops = 0
            // What libcurl measured of each hop; the exchange that ends the request reports them all.
            var connections: [RequestMetrics.ConnectionMetrics] = []
            var sentAgain = false
            // Whether the request was sent again for its proxy's challenge (once a request).
            var answeredProxy = false
            while true {
                // The store's cookies go on this hop alone: the next one takes its own URL's.
                let sent = engine.withStoredCookies(current)
                let exchange = try CurlExchange.make(
                    sent, context: context, mode: mode, loop: engine.loop, settings: engine.settings,
                    proxyScheme: engine.proxyScheme, answersProxyRefusal: !answeredProxy)
                exchange.earlierConnections = connections
                let answer: CurlAnswer
                do {
                    answer = try await exchange.run()
                } catch let lost as CurlErrors.LostReusedConnection {
                    // A reused connection went away before any byte of the answer (an HTTP/2
                    // GOAWAY, a keep-alive connection the server closed): sent once more, as
                    // browsers, OkHttp and Apple's URLSession do for an idempotent request.
                    guard !sentAgain, Self.maySendAgain(sent) else { throw lost.error }
                    sentAgain = true
                    continue
                } catch let refusal as CurlErrors.ProxyRefusal {
                    // The proxy refused the tunnel, asking for another scheme: learnt, and sent again.
                    guard engine.learnProxyScheme(sentWith: refusal.scheme, offering: refusal.offered) else {
                        throw refusal.error
                    }
                    answeredProxy = true
                    continue
                }
                if answer.isHeldBack, let connection = exchange.connection {
                    connections.append(connection)
                }
                if let offered = answer.proxyRefusal, let scheme = exchange.proxyRound.scheme,
                    engine.learnProxyScheme(sentWith: scheme, offering: offered)
                {
                    // The proxy refused the request, asking for another scheme: learnt, and sent again.
                    answeredProxy = true
                    continue
                }
                engine.keepCookies(of: answer.head, from: answer.url, for: current)
                guard let response = answer.head.response(url: answer.url) else {
                    throw URLError(.badServerResponse, userInfo: [NSURLErrorFailingURLErrorKey: answer.url])
                }
                guard let target = answer.redirectTarget else { return (answer, response) }
                hops += 1
                guard hops <= RedirectPolicy.maximumHops else {
                    throw RedirectPolicy.tooManyRedirects(from: request.url)
                }
                guard let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                    throw URLError(
                        .unsupportedURL,
                        userInfo: [
                            NSLocalizedDescriptionKey:
                                "The server redirected to a URL that is not http or https; it was not followed.",
                            NSURLErrorFailingURLErrorKey: answer.url,
                        ])
                }
                let next = policy.nextRequest(after: current, status: response.statusCode, target: target)
                context.recorder?.redirected(
                    status: response.statusCode,
                    droppedCredentials: RedirectPolicy.droppedCredentials(from: current, to: next))
                current = next
            }
        }
    }

    extension CurlTransport {
        /// Whether `request` may go out again after its connection went away before any answer:
        /// an idempotent method (RFC 9110 §9.2.2) and a body that can be read again (not a stream).
        static func maySendAgain(_ request: URLRequest) -> Bool {
            Method.idempotentNames.contains(request.httpMethod?.uppercased() ?? "GET") && request.httpBodyStream == nil
        }

        /// The loop and the settings of a transport, shared by its copies; when the last copy is
        /// gone, the loop ends once its transfers have.
        final class Engine: Sendable {
            let loop: CurlLoop
            let settings: CurlSettings
            let maximumRequestsPerHost: Int
            let cookies: HTTPCookieStorage?

            /// Which scheme the proxy's challenges are answered with, learned from its `407`s.
            let proxyAuthentication = Locked(ProxyAuthentication())

            init(
                library: CurlLibrary, maximumRequestsPerHost: Int, tls: TLSTrust?, cookies: HTTPCookieStorage?,
                proxy: Proxy
            ) {
                self.maximumRequestsPerHost = maximumRequestsPerHost
                self.cookies = cookies
                loop = CurlLoop(maximumRequestsPerHost: maximumRequestsPerHost)
                // A trust that cannot be set up (its CA file not written) fails each request before
                // anything is sent; it never falls back to weaker settings.
                let resolved = tls.map { trust in Result { () throws(TLSTrust.Invalid) in try CurlTLS(trust) } }
                settings = CurlSettings(
                    library: library,
                    userAgentLine:
                        "User-Agent: \(ProcessInfo.processInfo.processName) Endpoints (libcurl/\(library.version))",
                    followsRedirects: true,
                    tls: resolved,
                    proxy: proxy
                )
            }

            /// The proxy refused a request sent with `scheme`, asking for `offered`: whether to send
            /// it again with the scheme learnt (``ProxyAuthentication/refused(sentWith:offering:)``).
            func learnProxyScheme(sentWith scheme: ProxyAuthentication.Scheme, offering offered: Int) -> Bool {
                proxyAuthentication.withLock { $0.refused(sentWith: scheme, offering: offered) }
            }

            /// The scheme a request answers the proxy's challenges with; `nil` without credentials.
            var proxyScheme: ProxyAuthentication.Scheme? {
                settings.proxy.hasCredentials ? proxyAuthentication.withLock { $0.scheme } : nil
            }

            deinit { loop.close() }

            /// `request` with the cookie store's cookies for its URL; as it is without a store.
            func withStoredCookies(_ request: URLRequest) -> URLRequest {
                cookies.map { CookieHeader.withStoredCookies(request, storage: $0) } ?? request
            }

            /// Keeps the `Set-Cookie` fields of `head` (an answer from `url` to `request`) in the
            /// cookie store, if there is one.
            func keepCookies(of head: CurlResponseHead, from url: URL, for request: URLRequest) {
                guard let cookies else { return }
                CookieHeader.store(head.values(of: "Set-Cookie"), from: url, for: request, in: cookies)
            }
        }
    }
#endif
