import Endpoints
import EndpointsTestServer
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The README's endpoints, declared as plain endpoints so its samples compile unchanged.

struct ApiServer: ServerDefinition {
    var baseUrls: [Environments: URL] {
        return [
            .local: URL(string: "https://local-api.example.com")!,
            .staging: URL(string: "https://staging-api.example.com")!,
            .production: URL(string: "https://api.example.com")!,
        ]
    }

    static var defaultEnvironment: Environments { .production }
}

struct MyEndpoint: Endpoint {
    typealias Server = ApiServer

    static let definition: Definition<MyEndpoint> = Definition(
        method: .get,
        path: "path/to/resource"
    )

    struct Response: Decodable, Equatable {
        let resourceId: String
        let resourceName: String
    }
}

struct ProfileEndpoint: Endpoint {
    typealias Server = ApiServer
    static let definition: Definition<ProfileEndpoint> = Definition(method: .get, path: "profile")
    struct Response: Decodable { let name: String }
}

struct RefreshEndpoint: Endpoint {
    typealias Server = ApiServer
    static var auth: NoAuth { NoAuth() }
    static let definition: Definition<RefreshEndpoint> = Definition(method: .post, path: "auth/refresh")
    struct Response: Decodable {
        let access: String
        let refresh: String
    }
    struct Body: Encodable { let refreshToken: String }

    let token: String
    var body: Body { Body(refreshToken: token) }

    init(token: String = "refresh-token") { self.token = token }
}

// Endpoints against the test's own loopback server.

/// The base URL of the loopback server the current test talks to: a task-local, so tests running
/// in parallel each reach their own server.
enum Loopback {
    @TaskLocal static var url = URL(string: "http://127.0.0.1:9")!

    /// Runs `body` with loopback endpoints going to `server`.
    static func with<R>(
        _ server: TestServer,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> R
    ) async rethrows -> R {
        try await $url.withValue(server.baseURL, operation: body, isolation: isolation)
    }
}

struct LoopbackServer: ServerDefinition {
    var baseUrls: [Environments: URL] { [.production: Loopback.url] }
}

/// The `{"code", "message"}` error body used by the fake and by `/status/{code}`.
struct APIError: Codable, Sendable, Equatable {
    let code: Int
    let message: String
}

/// `GET /value?value=...`: `{"value": ...}` from `TestServer.withMockingRoutes()`.
struct ValueEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias ErrorResponse = APIError
    struct Response: Codable, Equatable { let value: String }
    struct ParameterComponents { let value: String }

    static let definition: Definition<ValueEndpoint> = Definition(
        method: .get,
        path: "value",
        parameters: [.query("value", path: \.value)]
    )

    let parameterComponents: ParameterComponents
    init(_ value: String) { parameterComponents = ParameterComponents(value: value) }
}

/// `GET /users/{id}`: used with mocks and the fake transport.
struct UserEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias ErrorResponse = APIError
    struct Response: Codable, Equatable {
        let id: Int
        let name: String
    }
    struct PathComponents { let id: Int }

    static let definition: Definition<UserEndpoint> = Definition(method: .get, path: "users/\(path: \.id)")

    let pathComponents: PathComponents
    init(id: Int) { pathComponents = PathComponents(id: id) }
}

/// An authentication method that records every call, to prove mocks never reach it.
final class RecordingAuth: AuthenticationMethod {
    private let counts = Counter()

    /// How many times `authenticate(request:)` ran.
    var authenticateCount: Int { counts.value(of: "authenticate") }
    /// How many times `reauthenticate(after:)` ran.
    var reauthenticateCount: Int { counts.value(of: "reauthenticate") }

    func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest {
        counts.increment("authenticate")
        var request = request
        request.setValue("Bearer recorded", forHTTPHeaderField: "Authorization")
        return request
    }

    func shouldReauthenticate(for request: URLRequest, response: HTTPURLResponse) -> Bool {
        response.statusCode == 401
    }

    func reauthenticate(after request: URLRequest) async throws(AuthenticationError) {
        counts.increment("reauthenticate")
    }
}

/// Named counters behind a lock.
final class Counter: @unchecked Sendable {
    // @unchecked Sendable: `values` is only touched while holding `lock`.
    private let lock = NSLock()
    private var values: [String: Int] = [:]

    func increment(_ name: String) {
        lock.lock()
        values[name, default: 0] += 1
        lock.unlock()
    }

    func value(of name: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return values[name, default: 0]
    }
}

/// A server whose endpoints authenticate with a ``RecordingAuth``. Tests pass their own instance
/// per request with `auth:`, so parallel tests never share one; the declared one is a `static let`
/// because a stateful method must be one shared instance.
struct RecordedServer: ServerDefinition {
    static let auth = RecordingAuth()
    var baseUrls: [Environments: URL] { [.production: Loopback.url] }
}

/// `GET /secure`: an authenticated endpoint for the auth-bypass tests.
struct SecureEndpoint: Endpoint {
    typealias Server = RecordedServer
    typealias ErrorResponse = APIError
    struct Response: Codable, Equatable { let secret: String }
    static let definition: Definition<SecureEndpoint> = Definition(method: .get, path: "secure")
}

extension TestServer {
    /// A server with the routes the loopback endpoints use: `/value`, `/users/*`, `/secure`.
    static func withMockingRoutes() throws -> TestServer {
        let server = try TestServer()
        server.route("/value") { request in
            .json(["value": request.queryValue("value") ?? ""])
        }
        server.route("/users/*") { request in
            let id = Int(request.rawPath.split(separator: "/").last ?? "") ?? 0
            return .json(UserEndpoint.Response(id: id, name: "server \(id)"))
        }
        server.route("/secure") { _ in .json(SecureEndpoint.Response(secret: "from server")) }
        return server
    }
}
