import Foundation

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The base URL of the current run's server, scoped to the run's task tree.
enum StressLoopback {
    @TaskLocal static var baseURL = URL(string: "http://127.0.0.1:9")!
}

struct StressServerDefinition: ServerDefinition {
    var baseUrls: [TypicalEnvironments: URL] { [.production: StressLoopback.baseURL] }
}

/// The same server with a short timeout on every request: parked requests time out.
struct StressTimeoutServer: ServerDefinition {
    static let timeout: TimeInterval = 0.25
    var baseUrls: [TypicalEnvironments: URL] { [.production: StressLoopback.baseURL] }
    var requestProcessor: @Sendable (URLRequest) -> URLRequest {
        { request in
            var request = request
            request.timeoutInterval = Self.timeout
            return request
        }
    }
}

struct StressID: Sendable { let id: Int }

/// The part of `/echo`'s answer the run checks.
struct StressEcho: Decodable, Sendable {
    let method: String
    let path: String
    let query: String?
    let body: String?
}

/// `GET /echo?i={id}`.
struct StressGet: Endpoint {
    typealias Server = StressServerDefinition
    typealias Response = StressEcho
    static let definition: Definition<StressGet> = Definition(path: "echo", parameters: [.query("i", path: \.id)])
    let parameterComponents: StressID
}

/// `POST /echo` with a JSON body of a few bytes to a few kilobytes.
struct StressPost: Endpoint {
    typealias Server = StressServerDefinition
    typealias Response = StressEcho
    struct Body: Codable, Sendable, Equatable {
        let id: Int
        let payload: String
    }
    static let definition: Definition<StressPost> = Definition(method: .post, path: "echo")
    let body: Body
}

/// One item of a stream: the request's `id` and the item's place in its stream.
struct StressItem: Codable, Sendable, Equatable {
    let id: Int
    let index: Int
}

/// `GET /stress/stream/{id}`: ``StressServer/streamItems(_:)`` as JSON lines (even `id`) or as
/// server-sent events (odd `id`), in chunks cut at odd places.
struct StressStreamed: Endpoint {
    typealias Server = StressServerDefinition
    typealias Response = StressItem
    static let definition: Definition<StressStreamed> = Definition(path: "stress/stream/\(path: \.id)")
    let pathComponents: StressID
}

/// `GET /stress/park/{id}`: answered only once the run releases it.
struct StressParked: Endpoint {
    typealias Server = StressServerDefinition
    typealias Response = Data
    static let definition: Definition<StressParked> = Definition(path: "stress/park/\(path: \.id)")
    let pathComponents: StressID
}

/// `GET /stress/park/{id}` with ``StressTimeoutServer``'s timeout.
struct StressTimedOut: Endpoint {
    typealias Server = StressTimeoutServer
    typealias Response = Data
    static let definition: Definition<StressTimedOut> = Definition(path: "stress/park/\(path: \.id)")
    let pathComponents: StressID
}

/// `GET /close-mid-body`: the connection drops after 10 of 1,000 bytes.
struct StressDropped: Endpoint {
    typealias Server = StressServerDefinition
    typealias Response = Data
    static let definition: Definition<StressDropped> = Definition(path: "close-mid-body")
}

/// `GET /stress/busy/{id}?fail=K`: 503 with `Retry-After: 0` K times, then 200.
struct StressBusy: Endpoint {
    typealias Server = StressServerDefinition
    struct Response: Decodable, Sendable { let attempt: Int }
    struct PathComponents: Sendable { let id: Int }
    struct ParameterComponents: Sendable { let fail: Int }
    static let definition: Definition<StressBusy> = Definition(
        path: "stress/busy/\(path: \.id)", parameters: [.query("fail", path: \.fail)])
    let pathComponents: PathComponents
    let parameterComponents: ParameterComponents
    static let retry = RetryMiddleware(maximumAttempts: 3, initialDelay: 0, maximumDelay: 0, seed: 15)
    static var middleware: [any Middleware] { [retry] }
}

/// `GET /stress/auth/{id}` with the run's `JWTAuth`.
struct StressAuthenticated: Endpoint {
    typealias Server = StressServerDefinition
    typealias Auth = JWTAuth
    struct Response: Decodable, Sendable { let token: String }
    static let definition: Definition<StressAuthenticated> = Definition(path: "stress/auth/\(path: \.id)")
    /// Never used: each run passes its own `JWTAuth` to `response(with:auth:)`.
    static let auth = JWTAuth(refreshHandler: { _ in throw CancellationError() })
    let pathComponents: StressID
}

/// `POST /stress/refresh`, sent by the refresh handler without authentication.
struct StressRefreshEndpoint: Endpoint {
    typealias Server = StressServerDefinition
    typealias Response = StressTokens
    static let definition: Definition<StressRefreshEndpoint> = Definition(method: .post, path: "stress/refresh")
    let body: StressRefresh
}
