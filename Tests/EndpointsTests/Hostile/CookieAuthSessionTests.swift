import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private let cookieValue = "hostileCookieAuthValue"

private struct CookieServer: ServerDefinition {
    var baseUrls: [TypicalEnvironments: URL] { [.production: Loopback.baseURL] }
    static let auth = CookieAuth(name: "session", value: cookieValue)
}

/// `GET /{route}` authenticated with ``CookieAuth``.
private struct CookieEchoEndpoint: Endpoint {
    typealias Server = CookieServer
    typealias Response = Echo
    typealias ErrorResponse = APIError
    static let definition: Definition<CookieEchoEndpoint> = Definition(path: "\(path: \.route)")
    let pathComponents: Route
    init(_ route: String = "echo") { pathComponents = Route(route: route) }
}

/// A session with its own cookie store, holding a cookie for the loopback host.
private func sessionWithStoredCookie(setsCookies: Bool) throws -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpShouldSetCookies = setsCookies
    let cookie = try #require(
        HTTPCookie(properties: [.name: "tracking", .value: "from-store", .domain: "127.0.0.1", .path: "/"]))
    configuration.httpCookieStorage?.setCookie(cookie)
    return URLSession(configuration: configuration)
}

/// Issue 12: CookieAuth's cookie arrives, or the request fails loudly before it is sent.
@Suite struct CookieAuthSessionTests {
    @Test func sessionThatLeavesCookiesToTheRequestDeliversTheCookieOnEveryPlatform() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let session = try sessionWithStoredCookie(setsCookies: false)
        defer { session.invalidateAndCancel() }
        _ = try await send(CookieEchoEndpoint(), to: server, session: session).get()
        #expect(server.requests.last?.header("Cookie") == "session=\(cookieValue)")
    }

    @Test func storeThatWouldReplaceTheCookieRefusesLoudlyOnLinux() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let session = try sessionWithStoredCookie(setsCookies: true)
        defer { session.invalidateAndCancel() }
        let result = await send(CookieEchoEndpoint(), to: server, session: session)
        #if canImport(FoundationNetworking)
            guard case .failure(.authenticationError(.invalidCredentials(let reason))) = result else {
                Issue.record("expected invalidCredentials, got \(result)")
                return
            }
            #expect(reason.contains("httpShouldSetCookies = false"))
            #expect(!reason.contains(cookieValue))
            #expect(server.requestCount == 0, "nothing is sent")
        #else
            _ = try result.get()
            #expect(server.requests.last?.header("Cookie") == "session=\(cookieValue)")
        #endif
    }

    /// CookieAuth turns `httpShouldHandleCookies` off, so a same-origin redirect keeps its cookie
    /// and adds none from the store; another origin gets neither.
    @Test func redirectsKeepTheCookieOnTheOriginOnly() async throws {
        let origin = try TestServer()
        let other = try TestServer()
        defer {
            origin.stop()
            other.stop()
        }
        origin.route("/same") { _ in TestServer.Response(status: 302, headers: [("Location", "/echo/final")]) }
        origin.route("/away") { _ in
            TestServer.Response(status: 302, headers: [("Location", other.url("/echo/final").absoluteString)])
        }
        let session = try sessionWithStoredCookie(setsCookies: false)
        defer { session.invalidateAndCancel() }
        _ = try await send(CookieEchoEndpoint("same"), to: origin, session: session).get()
        #expect(origin.requests.map { $0.header("Cookie") } == Array(repeating: "session=\(cookieValue)", count: 2))
        _ = try await send(CookieEchoEndpoint("away"), to: origin, session: session).get()
        #expect(other.requests.last?.header("Cookie") == nil)
    }
}
