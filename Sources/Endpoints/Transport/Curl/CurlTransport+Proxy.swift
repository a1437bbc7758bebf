#if canImport(FoundationNetworking)
    import CEndpointsCurl
    import Foundation

    extension CurlTransport {
        /// The way a ``CurlTransport``'s requests reach their servers: through the proxies the
        /// environment names (the default), straight, or through one HTTP proxy, answering its
        /// `407` challenges with Basic or Digest credentials.
        ///
        /// ```swift
        /// let proxy = try CurlTransport.Proxy(
        ///     URL(string: "http://proxy.internal:3128")!,
        ///     username: "svc-backend", password: ProcessInfo.processInfo.environment["PROXY_PASSWORD"] ?? "",
        ///     bypassing: ["localhost", ".internal"]
        /// )
        /// let client = EndpointClient(transport: try CurlTransport(proxy: proxy))
        /// ```
        ///
        /// A request to an `http` URL goes to the proxy whole; one to an `https` URL goes through a
        /// tunnel (`CONNECT`), so the proxy sees only the host and port, and TLS is end to end.
        ///
        /// **Credentials** answer whichever of Basic and Digest the proxy asks for, as a
        /// `URLCredential` does for a proxy on Apple platforms. They go as Basic at first, in the
        /// first request, as curl and AsyncHTTPClient send a proxy's credentials. When a proxy
        /// refuses them with a `407` that asks for Digest, the transport answers with Digest from
        /// then on: the request is sent again once (through a tunnel, nothing of it had reached
        /// the server; otherwise only when its body can be read again, which a body from a stream
        /// cannot), and every later request asks the proxy for a nonce and answers it (two round
        /// trips to the proxy, the second on the same connection). A `407` that still asks for the
        /// scheme it was answered with means the credentials were refused: it reaches you, as a
        /// response with status 407 (`http`), or as `URLError.userAuthenticationRequired`
        /// (`https`). NTLM and Negotiate are not answered.
        ///
        /// The credentials are the proxy's alone: they never go to a server, never appear in a
        /// request's headers (so no middleware, log or cURL command shows them), and the value's
        /// `description` and mirror show the user name only.
        ///
        /// Everything is checked when the value is made: a URL that is not `http://host[:port]`,
        /// a control character in the credentials, a `:` in the user name (Basic cannot carry
        /// one), or a host to bypass that is empty or holds a comma or a space is an ``Invalid``
        /// error before anything is sent.
        ///
        /// On Apple platforms, proxies are the session's (`URLSessionConfiguration`'s
        /// `connectionProxyDictionary`, or the system's settings), and a proxy's challenges are
        /// answered by the system or the session's delegate.
        public struct Proxy: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
            enum Route: Hashable, Sendable {
                /// As curl reads the environment.
                case environment
                /// No proxy, whatever the environment says.
                case direct
                /// The proxy at `http://host:port`.
                case http(host: String, port: Int)
            }

            let route: Route
            /// The user name the proxy's challenges are answered with.
            let username: String?
            let password: Secret<String>?
            /// The hosts requests go to straight, as curl's `no_proxy` reads them.
            let bypassedHosts: [String]

            /// The proxies the environment names, as curl reads them: `http_proxy`, `https_proxy`
            /// (or `HTTPS_PROXY`), `all_proxy`, with the hosts of `no_proxy` reached straight. The
            /// credentials in such a proxy's URL go as Basic. The default.
            public static let environment = Proxy(route: .environment, username: nil, password: nil, bypassing: [])

            /// Every request straight to its server, whatever the environment names.
            public static let direct = Proxy(route: .direct, username: nil, password: nil, bypassing: [])

            /// Every request through the HTTP proxy at `url`, except those to the hosts in
            /// `bypassing`; the environment's proxy variables, `no_proxy` included, are not read.
            ///
            /// - Parameters:
            ///   - url: `http://host:port` (port 80 when it names none). Credentials written in it
            ///     (`http://user:pass@host:3128`, percent-encoded) are taken as `username` and
            ///     `password`.
            ///   - username: The user name the proxy's challenges are answered with.
            ///   - password: Its password.
            ///   - bypassing: Hosts reached straight, as curl's `no_proxy` reads them: a name also
            ///     matches its subdomains (`example.com` matches `api.example.com`), a leading dot
            ///     is allowed, `*` matches every host, and an IP address matches itself.
            /// - Throws: ``Invalid`` when the URL, the credentials or a host cannot be used.
            public init(_ url: URL, username: String? = nil, password: String? = nil, bypassing: [String] = [])
                throws(Invalid)
            {
                guard url.scheme?.lowercased() == "http" else {
                    throw Invalid("the proxy's URL must be http:// (https:// and SOCKS proxies are not supported)")
                }
                guard let host = url.host, !host.isEmpty else { throw Invalid("the proxy's URL names no host") }
                guard url.path.isEmpty || url.path == "/", url.query == nil, url.fragment == nil else {
                    throw Invalid("the proxy's URL must name only a host and a port")
                }
                var username = username
                var password = password
                // Decoded once, from the encoded parts: corelibs' `URL.user` decodes and its
                // `URL.password` does not.
                let parts = URLComponents(url: url, resolvingAgainstBaseURL: true)
                if let user = parts?.percentEncodedUser {
                    guard username == nil, password == nil else {
                        throw Invalid("the credentials are given both in the URL and as arguments")
                    }
                    let encodedPassword = parts?.percentEncodedPassword ?? ""
                    guard let decodedUser = user.removingPercentEncoding,
                        let decodedPassword = encodedPassword.removingPercentEncoding
                    else { throw Invalid("the credentials in the URL are not valid percent-encoded UTF-8") }
                    username = decodedUser
                    password = decodedPassword
                }
                guard username == nil || password != nil, password == nil || username != nil else {
                    throw Invalid("a user name and a password go together")
                }
                if let username {
                    guard !username.isEmpty, !username.contains(":") else {
                        throw Invalid("the user name is empty or holds a colon")
                    }
                    guard !CredentialText.containsControl(username), !CredentialText.containsControl(password ?? "")
                    else { throw Invalid("the credentials hold a control character") }
                }
                for entry in bypassing {
                    guard !entry.isEmpty,
                        !entry.unicodeScalars.contains(where: { $0 == "," || $0 == " " || CredentialText.isControl($0) }
                        )
                    else { throw Invalid("a host to bypass is empty or holds a comma, a space or a control character") }
                }
                self.init(
                    route: .http(host: host, port: url.port ?? 80), username: username, password: password,
                    bypassing: bypassing)
            }

            private init(route: Route, username: String?, password: String?, bypassing: [String]) {
                self.route = route
                self.username = username
                self.password = password.map(Secret.init)
                self.bypassedHosts = bypassing
            }

            /// Why a proxy's settings cannot be used.
            public struct Invalid: Error, Sendable, CustomStringConvertible {
                /// What is wrong (never the credentials themselves).
                public let reason: String

                init(_ reason: String) { self.reason = reason }

                /// A sentence naming the problem.
                public var description: String { "The proxy settings are invalid: \(reason)." }
            }

            /// `environment`, `direct`, or the proxy's URL, with the user name and the hosts
            /// bypassed: `http://proxy.internal:3128 (as svc-backend; bypassing localhost)`. Never
            /// the password.
            public var description: String {
                switch route {
                case .environment: return "environment"
                case .direct: return "direct"
                case .http:
                    var text = curlProxy ?? ""
                    var notes: [String] = []
                    if let username { notes.append("as \(username)") }
                    if !bypassedHosts.isEmpty { notes.append("bypassing " + bypassedHosts.joined(separator: ", ")) }
                    if !notes.isEmpty { text += " (" + notes.joined(separator: "; ") + ")" }
                    return text
                }
            }

            /// The route, the user name and the hosts bypassed; the password as `<redacted>`.
            public var customMirror: Mirror {
                Mirror(
                    self,
                    children: [
                        "route": description, "username": username.reflected,
                        "password": Secret.placeholder(for: password), "bypassedHosts": bypassedHosts,
                    ], displayStyle: .struct)
            }

            /// The proxy as libcurl takes it (`http://host:port`, an IPv6 address in brackets), or
            /// `nil` for the environment's.
            var curlProxy: String? {
                switch route {
                case .environment: return nil
                case .direct: return ""
                case .http(let host, let port):
                    return "http://" + (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
                }
            }

            /// Whether the proxy's challenges are answered.
            var hasCredentials: Bool { username != nil }

            /// Whether an answer to a request for `url` comes from the proxy itself, so that its
            /// `407` is the proxy's: an `http` URL whose host is not bypassed. (An `https` one goes
            /// through a tunnel, and whatever comes back in it is the server's.) The hosts bypassed
            /// are read as curl reads them: `*` is every host, a name matches itself and its
            /// subdomains, a leading dot aside, in any case; an address block (`10.0.0.0/8`) may
            /// match an address, so a literal address is then taken as bypassed.
            func carries(_ url: URL) -> Bool {
                guard case .http = route, url.scheme?.lowercased() == "http",
                    var host = url.host?.lowercased()
                else { return false }
                if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
                let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
                for entry in bypassedHosts {
                    var name = entry.lowercased()
                    if name == "*" { return false }
                    if name.contains("/") {
                        if isAddress { return false }
                        continue
                    }
                    if name.hasPrefix(".") { name.removeFirst() }
                    if host == name || host.hasSuffix("." + name) { return false }
                }
                return true
            }

            /// Sets the proxy, the hosts bypassed and the credentials on an easy handle, answering
            /// with `scheme` (``ProxyAuthentication``). Nothing for the environment's.
            func apply(to easy: OpaquePointer, scheme: ProxyAuthentication.Scheme?) {
                guard let proxy = curlProxy else { return }
                _ = proxy.withCString { ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_PROXY), $0) }
                let bypassed = bypassedHosts.joined(separator: ",")
                _ = bypassed.withCString { ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_NOPROXY), $0) }
                guard let username, let password, let scheme else { return }
                _ = username.withCString { ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_PROXYUSERNAME), $0) }
                _ = password.value.withCString { ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_PROXYPASSWORD), $0) }
                _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_PROXYAUTH), scheme.curlBit)
            }
        }
    }

    /// Which scheme a transport answers its proxy's challenges with, learned from the proxy's
    /// `407`s: Basic at first (sent with the first request), Digest once a proxy that refused
    /// Basic asks for it, and back to Basic if a proxy answered with Digest asks for Basic alone.
    ///
    /// One value per transport, under its engine's lock; changed only by ``refused(sentWith:offering:)``.
    struct ProxyAuthentication: Equatable, Sendable {
        enum Scheme: Equatable, Sendable {
            case basic, digest

            /// The `CURLAUTH_*` bit (`CURLOPT_PROXYAUTH`). With Digest alone, libcurl sends the
            /// request without credentials, takes the proxy's nonce from its `407` and sends it
            /// again, answered, in the same transfer.
            var curlBit: Int {
                switch self {
                case .basic: Int(EP_CURLAUTH_BASIC)
                case .digest: Int(EP_CURLAUTH_DIGEST)
                }
            }
        }

        /// The scheme the next request is sent with.
        private(set) var scheme: Scheme = .basic

        /// The scheme to send a request again with after the proxy refused it, sent with `used`,
        /// offering the schemes of `offered` (`CURLAUTH_*` bits, `CURLINFO_PROXYAUTH_AVAIL`): Digest
        /// when offered, else Basic. `nil` when sending again cannot help: the proxy asks again for
        /// the scheme it was answered with (it refused the credentials), or for none this
        /// transport speaks (NTLM, Negotiate).
        static func answer(refusalOf used: Scheme, offering offered: Int) -> Scheme? {
            guard offered & used.curlBit == 0 else { return nil }
            if offered & Scheme.digest.curlBit != 0 { return .digest }
            if offered & Scheme.basic.curlBit != 0 { return .basic }
            return nil
        }

        /// The proxy refused a request sent with `used`, offering `offered`: learns the scheme it
        /// asks for; whether to send the request again (``answer(refusalOf:offering:)``).
        mutating func refused(sentWith used: Scheme, offering offered: Int) -> Bool {
            guard let next = Self.answer(refusalOf: used, offering: offered) else { return false }
            scheme = next
            return true
        }
    }

    /// What one exchange does with its proxy's `407`s, changed only by what arrives (a head that
    /// ends, a status line after it, a body, a refused tunnel), and unit-tested alone.
    ///
    /// - Sent with a scheme the proxy does not ask for, a request is held back for the transport
    ///   to send again with the one it asks for (``ProxyAuthentication``), when it may: its `407`
    ///   came from the proxy itself, its body can be read again, and it was not sent again already.
    /// - Sent with Digest, a request goes first without credentials: libcurl takes the nonce from
    ///   the proxy's `407` and sends it again, in the same transfer, and the header callback sees
    ///   both heads. So the first `407` waits: a status line after it starts the answer's head; its
    ///   body, or the transfer's end, makes it the answer (libcurl did not answer it).
    struct CurlProxyRound: Equatable, Sendable {
        enum State: Equatable, Sendable {
            /// No `407` yet.
            case open
            /// A `407` libcurl may answer itself: its head waits.
            case pending
            /// libcurl answered a `407`, or one was handed over: a later one is the answer.
            case settled
            /// A `407` asking for another scheme (the `CURLAUTH_*` bits it offered), held back for
            /// the transport to send the request again.
            case refused(offered: Int)
        }

        /// What the exchange does with a `407` whose head just ended.
        enum Decision: Equatable, Sendable {
            /// It is the answer, as any response.
            case handOver
            /// It waits: libcurl may answer it and read another head.
            case wait
            /// The transport sends the request again: its body is dropped and it is not handed over.
            case holdBack
        }

        /// The scheme the exchange answers the proxy with; `nil` without credentials.
        let scheme: ProxyAuthentication.Scheme?
        /// Whether a refused request may go again: the proxy carried it whole (an `http` URL not
        /// bypassed), its body reads again, and it has not been sent again for its proxy already.
        let mayResendRequest: Bool
        /// Whether a refused tunnel may be asked for again (once a request).
        let mayReopenTunnel: Bool
        private(set) var state = State.open

        /// An exchange without proxy credentials: every `407` is handed over.
        static let none = CurlProxyRound(scheme: nil, mayResendRequest: false, mayReopenTunnel: false)

        init(scheme: ProxyAuthentication.Scheme?, mayResendRequest: Bool, mayReopenTunnel: Bool) {
            self.scheme = scheme
            self.mayResendRequest = mayResendRequest
            self.mayReopenTunnel = mayReopenTunnel
        }

        /// The head of a `407` ended, the proxy offering `offered` (`CURLINFO_PROXYAUTH_AVAIL`).
        mutating func headEnded(offering offered: Int) -> Decision {
            guard let scheme, state == .open else {
                if state == .pending { state = .settled }
                return .handOver
            }
            if mayResendRequest, ProxyAuthentication.answer(refusalOf: scheme, offering: offered) != nil {
                state = .refused(offered: offered)
                return .holdBack
            }
            if scheme == .digest {
                state = .pending
                return .wait
            }
            state = .settled
            return .handOver
        }

        /// A status line arrived after the waiting `407`'s head: libcurl answered it, and the
        /// answer's head starts.
        mutating func statusLineArrived() {
            if state == .pending { state = .settled }
        }

        /// The waiting `407`'s body began, or its transfer ended: whether its head is now to be
        /// handed over as the answer.
        mutating func answerContinues() -> Bool {
            guard state == .pending else { return false }
            state = .settled
            return true
        }

        /// The schemes of a refusal held back for the transport, or `nil`.
        var refusal: Int? {
            if case .refused(let offered) = state { offered } else { nil }
        }

        /// The proxy refused the tunnel with a `407` offering `offered`: whether the transport asks
        /// for it again with another scheme (nothing of the request was sent).
        func reopensTunnel(offering offered: Int) -> Bool {
            guard mayReopenTunnel, let scheme else { return false }
            return ProxyAuthentication.answer(refusalOf: scheme, offering: offered) != nil
        }
    }
#endif
