import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `GET /r/a/b`, decoded as ``Echo``: the base of the relative redirects below.
private struct DeepPathEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Echo
    typealias ErrorResponse = APIError
    static let definition: Definition<DeepPathEndpoint> = Definition(path: "r/a/b")
}

/// `GET /b/c/d;p?q`, the base URI of RFC 3986's examples.
private struct RFCBaseEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Echo
    typealias ErrorResponse = APIError
    static let definition: Definition<RFCBaseEndpoint> = Definition(
        path: "b/c/d;p", parameters: [.queryValue("q", value: "1")])
}

/// Issue 12: relative redirects, cookies on every hop and the hop limit, over loopback. The
/// redirects run through each transport (the relative ones in a loop, their arguments being
/// tuples); the cookie tests through URLSession alone, whose cookie store and settings they test
/// (libcurl's transport has none: ``CookieAuth`` or middleware carry cookies there).
@Suite struct HostileRedirectTests {
    /// `Location` as sent from `/r/a/b`, and the path and query the server must see next (RFC 3986
    /// §5.4), through each transport.
    @Test(
        arguments: [
            ("c", "/r/a/c", nil),
            ("./e", "/r/a/e", nil),
            ("../d", "/r/d", nil),
            ("c?x=1", "/r/a/c", "x=1"),
            ("?y=2", "/r/a/b", "y=2"),
            ("../../../g", "/g", nil),
            ("/top/./x/../y", "/top/y", nil),
            ("g;p/./h", "/r/a/g;p/h", nil),
        ] as [(String, String, String?)])
    func relativeLocationIsResolvedAgainstTheCurrentURL(location: String, path: String, query: String?) async throws {
        for transport in TestTransport.all {
            let server = try TestServer()
            defer { server.stop() }
            server.route("/r/a/b") { request in
                request.rawQuery == nil
                    ? TestServer.Response(status: 302, headers: [("Location", location)]) : .json(["path": "/r/a/b"])
            }
            server.route("/*") { request in
                .json(["path": request.rawPath, "query": request.rawQuery ?? ""])
            }
            _ = await send(DeepPathEndpoint(), to: server, via: transport)
            let final = try #require(server.requests.last)
            #expect(server.requests.count == 2, "\(transport)")
            #expect(final.rawPath == path, "Location \(location), \(transport)")
            #expect(final.rawQuery == query, "Location \(location), \(transport)")
        }
    }

    @Test(arguments: TestTransport.all)
    func relativeLocationResolvesAgainstTheHopBeforeIt(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        // /r/a/b -> /x/y/z (absolute path) -> ../w (relative to /x/y/z) -> /x/w
        server.route("/r/a/b") { _ in TestServer.Response(status: 302, headers: [("Location", "/x/y/z")]) }
        server.route("/x/y/z") { _ in TestServer.Response(status: 307, headers: [("Location", "../w")]) }
        server.route("/x/w") { _ in .json(["path": "/x/w"]) }
        _ = await send(DeepPathEndpoint(), to: server, via: transport)
        #expect(server.requests.map(\.rawPath) == ["/r/a/b", "/x/y/z", "/x/w"])
    }

    /// RFC 3986 §5.4.1 and §5.4.2 with base `/b/c/d;p?q` on the loopback server (the examples
    /// that stay on the same host), and the path and query the server must see next.
    @Test(
        arguments: [
            ("g", "/b/c/g", nil), ("./g", "/b/c/g", nil), ("g/", "/b/c/g/", nil), ("/g", "/g", nil),
            ("?y", "/b/c/d;p", "y"), ("g?y", "/b/c/g", "y"), ("g#s", "/b/c/g", nil), (";x", "/b/c/;x", nil),
            (".", "/b/c/", nil), ("./", "/b/c/", nil), ("..", "/b/", nil), ("../g", "/b/g", nil), ("../..", "/", nil),
            ("../../g", "/g", nil), ("../../../g", "/g", nil), ("/./g", "/g", nil), ("/../g", "/g", nil),
            ("g.", "/b/c/g.", nil), ("..g", "/b/c/..g", nil), ("./../g", "/b/g", nil), ("g/./h", "/b/c/g/h", nil),
            ("g/../h", "/b/c/h", nil), ("g;x=1/../y", "/b/c/y", nil), ("g?y/./x", "/b/c/g", "y/./x"),
        ] as [(String, String, String?)])
    func rfc3986Examples(location: String, path: String, query: String?) async throws {
        for transport in TestTransport.all {
            let server = try TestServer()
            defer { server.stop() }
            server.route("/b/c/d;p") { request in
                request.rawQuery == "q=1"
                    ? TestServer.Response(status: 302, headers: [("Location", location)]) : .json(["path": "/b/c/d;p"])
            }
            server.route("/*") { request in .json(["path": request.rawPath]) }
            _ = await send(RFCBaseEndpoint(), to: server, via: transport)
            #expect(server.requests.first?.rawQuery == "q=1", "\(transport)")
            let final = try #require(server.requests.last)
            #expect(server.requests.count == 2, "\(transport)")
            #expect(final.rawPath == path, "Location \(location), \(transport)")
            #expect(final.rawQuery == query, "Location \(location), \(transport)")
        }
    }

    @Test func cookieSetByARedirectIsSentOnTheNextHop() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/login") { _ in
            TestServer.Response(status: 302, headers: [("Location", "/echo/home"), ("Set-Cookie", "sid=abc; Path=/")])
        }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let echo = try await send(EchoEndpoint("login"), to: server, session: session).get()
        #expect(echo.path == "/echo/home")
        #expect(server.requests.last?.header("Cookie") == "sid=abc")
        // The session stored it, as plain URLSession does, and the next request carries it.
        #expect(session.configuration.httpCookieStorage?.cookies?.map(\.name) == ["sid"])
        _ = try await send(EchoEndpoint("echo"), to: server, session: session).get()
        #expect(server.requests.last?.header("Cookie") == "sid=abc")
    }

    @Test func acceptPolicyNeverKeepsARedirectsCookieOutOfTheStore() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/login") { _ in
            TestServer.Response(status: 302, headers: [("Location", "/echo/home"), ("Set-Cookie", "sid=abc; Path=/")])
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieAcceptPolicy = .never
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        _ = try await send(EchoEndpoint("login"), to: server, session: session).get()
        #expect(server.requests.map { $0.header("Cookie") } == [nil, nil])
        #expect(session.configuration.httpCookieStorage?.cookies?.isEmpty != false)
    }

    @Test func storedCookiesGoToTheirOwnOriginOnlyAndCredentialCookiesNeverCross() async throws {
        let origin = try TestServer()
        let other = try TestServer()
        defer {
            origin.stop()
            other.stop()
        }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        // A cookie for the other origin is already in the store.
        let cookie = try #require(
            HTTPCookie(properties: [.name: "theirs", .value: "1", .domain: "127.0.0.1", .path: "/echo"]))
        session.configuration.httpCookieStorage?.setCookie(cookie)
        origin.route("/start") { _ in
            TestServer.Response(status: 302, headers: [("Location", other.url("/echo/final").absoluteString)])
        }
        _ = try await send(KeyedEchoEndpoint("start"), to: origin, session: session).get()
        let final = try #require(other.requests.last)
        // The endpoint's own `Cookie` (a credential) is dropped; the store's cookie for the URL is sent.
        #expect(final.header("Cookie") == "theirs=1")
        #expect(final.header("Authorization") == nil)
    }

    @Test func sessionThatDoesNotSetCookiesSendsNoneOnTheNextHop() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        let cookie = try #require(
            HTTPCookie(properties: [.name: "sid", .value: "1", .domain: "127.0.0.1", .path: "/"]))
        configuration.httpCookieStorage?.setCookie(cookie)
        server.route("/start") { _ in TestServer.Response(status: 302, headers: [("Location", "/echo/final")]) }
        _ = try await send(EchoEndpoint("start"), to: server, session: session).get()
        #expect(server.requests.map { $0.header("Cookie") } == [nil, nil])
    }

    @Test(arguments: TestTransport.all)
    func sixteenHopsAreFollowedOnEveryPlatform(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let echo = try await send(HopsEndpoint(hops: 16), to: server, via: transport).get()
        #expect(echo.path == "/redirect-chain/0")
        #expect(server.requestCount == 17)
    }

    @Test(arguments: TestTransport.all)
    func theSeventeenthHopFails(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let error = try #require(await send(HopsEndpoint(hops: 17), to: server, via: transport).failure())
        #expect(error.urlErrorCode == .httpTooManyRedirects, "got \(error)")
        #expect(server.requestCount == 17)
    }
}

/// `GET /redirect-chain/{hops}`: `hops` redirects, then the echo.
private struct HopsEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Echo
    typealias ErrorResponse = APIError
    struct PathComponents: Sendable { let hops: Int }
    static let definition: Definition<HopsEndpoint> = Definition(path: "redirect-chain/\(path: \.hops)")
    let pathComponents: PathComponents
    init(hops: Int) { pathComponents = PathComponents(hops: hops) }
}
