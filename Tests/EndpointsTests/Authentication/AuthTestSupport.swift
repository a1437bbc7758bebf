import Endpoints
import EndpointsTestServer
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The base URL of the loopback server the current test talks to. A task-local, so tests running
/// in parallel each reach their own server, and the refresh task a ``JWTAuth`` starts inherits it.
enum AuthBase {
    @TaskLocal static var url = URL(string: "http://127.0.0.1:9")!

    /// Runs `body` with requests going to `server`.
    static func with<R>(_ server: TestServer, _ body: () async throws -> R) async rethrows -> R {
        try await $url.withValue(server.baseURL, operation: body)
    }

    /// Sends `endpoint` to `server` through `transport` (over `session` for URLSession's) and
    /// returns the typed result, keeping the typed error.
    static func send<T: Endpoint>(
        _ endpoint: T,
        to server: TestServer,
        auth: T.Auth = T.auth,
        session: URLSession = .shared,
        via transport: TestTransport = .urlSession,
        middleware: [any Middleware] = []
    ) async throws(T.TaskError) -> T.Response {
        let result = await $url.withValue(server.baseURL) { () async -> Result<T.Response, T.TaskError> in
            do throws(T.TaskError) {
                return .success(
                    try await transport.client(session: session).response(
                        with: endpoint, auth: auth, middleware: middleware))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// A server whose production URL is the current test's loopback server.
struct AuthTestServer: ServerDefinition {
    var baseUrls: [Environments: URL] { [.production: AuthBase.url] }
}

/// What `/echo` answers.
struct AuthEchoResponse: Decodable, Sendable {
    let method: String
    let path: String
    let headers: [String: String]
    let headerList: [[String]]

    /// Every value sent for `name` (case-insensitive), in order.
    func values(_ name: String) -> [String] {
        headerList.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
    }
}

/// The secrets the built-in tests use, so descriptions can be searched for them.
enum AuthSecret {
    static let key = "sk-live-0123456789abcdef"
    static let password = "hunter2-correct-horse"
    static let cookie = "c00kieSecretValue42"
}

struct HeaderKeyEcho: Endpoint {
    typealias Server = AuthTestServer
    typealias Response = AuthEchoResponse
    static let auth = HeaderKeyAuth(key: AuthSecret.key)
    static let definition: Definition<HeaderKeyEcho> = Definition(method: .get, path: "echo")
}

struct ClientKeyEcho: Endpoint {
    typealias Server = AuthTestServer
    typealias Response = AuthEchoResponse
    static let auth = HeaderKeyAuth(key: AuthSecret.key, header: "X-Client-Key", prefix: nil)
    static let definition: Definition<ClientKeyEcho> = Definition(method: .get, path: "echo")
}

struct BasicEcho: Endpoint {
    typealias Server = AuthTestServer
    typealias Response = AuthEchoResponse
    static let auth = BasicAuth(username: "Aladdin", password: "open sesame")
    static let definition: Definition<BasicEcho> = Definition(method: .get, path: "echo")
}

struct CookieEcho: Endpoint {
    typealias Server = AuthTestServer
    typealias Response = AuthEchoResponse
    static let auth = CookieAuth(name: "session", value: AuthSecret.cookie)
    static let definition: Definition<CookieEcho> = Definition(
        method: .get,
        path: "echo",
        headers: [Header("Cookie").value("theme=dark; session=stale; lang=en")]
    )
}

struct NoAuthEcho: Endpoint {
    typealias Server = AuthTestServer
    typealias Response = AuthEchoResponse
    static let definition: Definition<NoAuthEcho> = Definition(method: .get, path: "echo")
}
