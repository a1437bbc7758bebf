import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// `GET /{area}/{page}`, returned raw; `POST` when it has a body.
    private struct CookiePage: Endpoint {
        typealias Server = LoopbackServer
        typealias Response = Data
        struct PathComponents: Sendable {
            let area: String
            let page: String
        }

        static let definition: Definition<CookiePage> = Definition(path: "\(path: \.area)/\(path: \.page)")

        let pathComponents: PathComponents

        init(_ area: String, _ page: String) { pathComponents = PathComponents(area: area, page: page) }
    }

    /// `GET /{area}/{page}` with a `Cookie` of its own, sent by ``CookieAuth``, which turns the
    /// request's cookie handling off.
    private struct CookieAuthPage: Endpoint {
        typealias Server = LoopbackServer
        typealias Response = Data
        static let auth = CookieAuth(name: "token", value: "mine")
        static let definition: Definition<CookieAuthPage> = Definition(path: "auth/page")
    }

    /// `GET /ws/cookies` upgraded: a WebSocket of text.
    private struct CookieSocket: WebSocketEndpoint {
        typealias Server = LoopbackServer
        typealias Response = Void
        typealias Outgoing = String
        typealias Incoming = String
        static let definition: Definition<CookieSocket> = Definition(path: "ws/cookies")
    }

    /// `CurlTransport(cookies:)`: a store makes it keep the cookies servers set and send them back,
    /// on every hop of a redirect, as URLSession does with its configuration's store; without one
    /// it keeps none.
    @Suite struct CurlCookieTests {
        /// A server whose `/auth/login` sets a session cookie and redirects to `/auth/home`, and
        /// whose every other page answers with the `Cookie` it got (`none` without one).
        private static func server(setting cookies: [String] = ["session=abc; Path=/; HttpOnly"]) throws -> TestServer {
            let server = try TestServer()
            server.route("/auth/login") { _ in
                TestServer.Response(
                    status: 302, headers: [("Location", "/auth/home")] + cookies.map { ("Set-Cookie", $0) },
                    body: Data())
            }
            for path in ["/auth/home", "/auth/page", "/api/items", "/apiary/x", "/web/page"] {
                server.route(path) { request in
                    TestServer.Response(status: 200, headers: [], body: Data((request.header("Cookie") ?? "none").utf8))
                }
            }
            return server
        }

        private static func client(cookies: HTTPCookieStorage?) throws -> EndpointClient {
            EndpointClient(transport: try CurlTransport(cookies: cookies))
        }

        private static func text<E: Endpoint>(_ endpoint: E, via client: EndpointClient, server: TestServer)
            async throws -> String where E.Response == Data
        {
            let data = try await Loopback.$baseURL.withValue(server.baseURL) {
                try await client.response(with: endpoint)
            }
            return String(decoding: data, as: UTF8.self)
        }

        private static func ephemeral() throws -> HTTPCookieStorage {
            try #require(URLSessionConfiguration.ephemeral.httpCookieStorage)
        }

        /// A cookie set by a redirect is sent on the hop it leads to and on later requests, and
        /// kept in the store.
        @Test func aCookieSetByARedirectIsSentOnTheNextHopAndLater() async throws {
            let server = try Self.server()
            defer { server.stop() }
            let storage = try Self.ephemeral()
            let client = try Self.client(cookies: storage)
            #expect(try await Self.text(CookiePage("auth", "login"), via: client, server: server) == "session=abc")
            #expect(try await Self.text(CookiePage("web", "page"), via: client, server: server) == "session=abc")
            #expect(storage.cookies?.map(\.name) == ["session"])
        }

        /// Without a store (the default) nothing is kept and nothing added.
        @Test func withoutAStoreNoCookieIsKept() async throws {
            let server = try Self.server()
            defer { server.stop() }
            let client = try Self.client(cookies: nil)
            #expect(try await Self.text(CookiePage("auth", "login"), via: client, server: server) == "none")
            #expect(try await Self.text(CookiePage("web", "page"), via: client, server: server) == "none")
        }

        /// RFC 6265 §5.4: a cookie goes only where its path matches (`/api` matches `/api/items`,
        /// not `/apiary/x`), a `Secure` one only over https, an expired one nowhere; longer paths
        /// first. Several `Set-Cookie` fields are read one by one, the commas of their dates too.
        @Test func cookiesGoOnlyWhereRFC6265SendsThem() async throws {
            let server = try Self.server(setting: [
                "site=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT", "api=2; Path=/api", "secure=3; Secure",
                "gone=4; Max-Age=0", "old=5; Expires=Thu, 01 Jan 1970 00:00:01 GMT",
            ])
            defer { server.stop() }
            let client = try Self.client(cookies: try Self.ephemeral())
            let home = try await Self.text(CookiePage("auth", "login"), via: client, server: server)
            let api = try await Self.text(CookiePage("api", "items"), via: client, server: server)
            let apiary = try await Self.text(CookiePage("apiary", "x"), via: client, server: server)
            #expect(home == "site=1")
            #expect(api == "api=2; site=1")
            #expect(apiary == "site=1")
        }

        /// A cookie the app stored with CR, LF or NUL in it is never sent: it was added after the
        /// request's headers were checked, and would split the request.
        @Test func aStoredCookieThatWouldSplitTheRequestIsNotSent() async throws {
            let server = try Self.server()
            defer { server.stop() }
            let storage = try Self.ephemeral()
            let url = server.baseURL.appendingPathComponent("web/page")
            for (name, value) in [("clean", "1"), ("split", "2\r\nX-Injected: 1"), ("nul", "3\u{0}")] {
                let cookie = try #require(
                    HTTPCookie(properties: [.name: name, .value: value, .domain: url.host!, .path: "/"]))
                storage.setCookie(cookie)
            }
            #expect(storage.cookies?.count == 3)
            let client = try Self.client(cookies: storage)
            #expect(try await Self.text(CookiePage("web", "page"), via: client, server: server) == "clean=1")
        }

        /// A request's own `Cookie` pairs win over stored ones of the same name; a request that
        /// turned cookie handling off (``CookieAuth`` does) gets no stored cookie and keeps none.
        @Test func aRequestsOwnCookiesWin() async throws {
            let server = try Self.server(setting: ["token=stored", "other=x"])
            defer { server.stop() }
            let storage = try Self.ephemeral()
            let client = try Self.client(cookies: storage)
            _ = try await Self.text(CookiePage("auth", "login"), via: client, server: server)
            #expect(try await Self.text(CookieAuthPage(), via: client, server: server) == "token=mine")
            let own = try await Loopback.$baseURL.withValue(server.baseURL) {
                try await client.response(
                    with: CookiePage("web", "page"),
                    middleware: [HeaderMiddleware(name: "Cookie", value: "token=given")])
            }
            #expect(String(decoding: own, as: UTF8.self) == "token=given; other=x")
        }

        /// A WebSocket's handshake carries the store's cookies too, as any request does.
        @Test func aWebSocketHandshakeCarriesTheStoresCookies() async throws {
            let server = try Self.server()
            defer { server.stop() }
            server.route("/ws/cookies") { request in
                .webSocket(request) { _ in [request.header("Cookie") ?? "none"] }
            }
            let client = try Self.client(cookies: try Self.ephemeral())
            _ = try await Self.text(CookiePage("auth", "login"), via: client, server: server)
            let connection = try await Loopback.$baseURL.withValue(server.baseURL) {
                try await client.webSocket(CookieSocket())
            }
            try await connection.send("which cookie?")
            var messages = connection.makeAsyncIterator()
            #expect(try await messages.next() == "session=abc")
            try connection.close()
        }

        /// A cookie for another domain is not kept; one for the host itself named as its domain is
        /// (the server is `localhost` here, so that a domain can be named).
        @Test func cookiesForOtherDomainsAreRefused() async throws {
            let server = try Self.server(setting: ["mine=1", "other=2; Domain=example.com", "tld=3; Domain=localhost"])
            defer { server.stop() }
            let storage = try Self.ephemeral()
            let client = try Self.client(cookies: storage)
            var components = try #require(URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false))
            components.host = "localhost"
            let local = try #require(components.url)
            let text = try await Loopback.$baseURL.withValue(local) {
                String(decoding: try await client.response(with: CookiePage("auth", "login")), as: UTF8.self)
            }
            // Both of path `/`: in no order RFC 6265 fixes without their creation times.
            #expect(text.components(separatedBy: "; ").sorted() == ["mine=1", "tld=3"])
        }

        /// A response with thousands of `Set-Cookie` fields gives the store its first 50 alone.
        @Test func aStoreTakesFiftyCookiesOfOneResponse() async throws {
            let server = try Self.server(setting: (0..<2_000).map { "c\($0)=\($0)" })
            defer { server.stop() }
            let storage = try Self.ephemeral()
            let client = try Self.client(cookies: storage)
            _ = try await Self.text(CookiePage("auth", "login"), via: client, server: server)
            let numbers = (storage.cookies ?? []).compactMap { Int($0.name.dropFirst()) }
            #expect(numbers.count == 50, "the store took \(numbers.count)")
            #expect(numbers.allSatisfy { $0 < 50 })
        }

        /// A cookie whose name corelibs' parser miscounts (an emoji, a combining mark) is ignored,
        /// where handing it to that parser would stop the process (`😀😀=1`) or lose its value
        /// (`😀=1`); the response's other cookies are kept.
        @Test func aCookieNameCorelibsWouldTrapOnIsIgnored() async throws {
            let server = try Self.server(setting: [
                "\u{1F600}\u{1F600}=1", "kept=1", "\u{1F600}=2", "e\u{301}\u{301}=3", "x=4; \u{1F1FA}\u{1F1F8}=5",
                "\u{1F600}\u{1F600}, z=7",
            ])
            defer { server.stop() }
            let storage = try Self.ephemeral()
            let client = try Self.client(cookies: storage)
            #expect(try await Self.text(CookiePage("auth", "login"), via: client, server: server) == "kept=1")
            #expect((storage.cookies ?? []).map(\.name) == ["kept"])
        }

        /// A store whose policy is `.never` keeps nothing.
        @Test func theStoresAcceptPolicyApplies() async throws {
            let server = try Self.server()
            defer { server.stop() }
            let storage = try Self.ephemeral()
            storage.cookieAcceptPolicy = .never
            let client = try Self.client(cookies: storage)
            #expect(try await Self.text(CookiePage("auth", "login"), via: client, server: server) == "none")
            #expect(storage.cookies?.isEmpty ?? true)
        }
    }

    /// Sets one header field on every request.
    private struct HeaderMiddleware: Middleware {
        let name: String
        let value: String

        func intercept(
            _ request: URLRequest, context: RequestContext,
            next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
        ) async throws -> (Data, HTTPURLResponse) {
            var request = request
            request.setValue(value, forHTTPHeaderField: name)
            return try await next(request)
        }
    }
#endif
