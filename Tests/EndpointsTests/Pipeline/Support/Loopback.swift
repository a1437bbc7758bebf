import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The base URL of the loopback server the current test talks to.
///
/// Each test starts its own `TestServer` on an ephemeral port, so the server definition cannot
/// name a fixed URL. A task-local (not global state) scopes the URL to the test's task tree, so
/// tests running in parallel never see each other's servers.
enum Loopback {
    @TaskLocal static var baseURL = URL(string: "http://127.0.0.1:9")!
}

/// A server whose production base URL is the current test's loopback server.
struct LoopbackServer: ServerDefinition {
    var baseUrls: [TypicalEnvironments: URL] { [.production: Loopback.baseURL] }
}

/// The body of `TestServer`'s `/echo` family of routes.
struct Echo: Decodable, Sendable {
    let method: String
    let path: String
    let query: String?
    let headers: [String: String]
    let body: String?
}

/// The `{"code", "message"}` error body of `TestServer`'s `/status/{code}` route.
struct APIError: Decodable, Sendable, Equatable {
    let code: Int
    let message: String
}

/// The values of an endpoint whose path is one segment, such as `echo` or a custom route.
struct Route: Sendable {
    let route: String
}

/// `GET /{route}`, decoded as ``Echo``.
struct EchoEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Echo
    typealias ErrorResponse = APIError

    static let definition: Definition<EchoEndpoint> = Definition(method: .get, path: "\(path: \.route)")

    let pathComponents: Route

    init(_ route: String = "echo") { pathComponents = Route(route: route) }
}

/// `GET /{route}`, its body as received whatever the status: `Response` and `ErrorResponse` are
/// both `Data`.
struct RawRouteEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Data
    typealias ErrorResponse = Data

    static let definition: Definition<RawRouteEndpoint> = Definition(path: "\(path: \.route)")

    let pathComponents: Route

    init(_ route: String) { pathComponents = Route(route: route) }
}

/// `GET /delay/{milliseconds}`: the echo, sent after a delay.
struct DelayEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Echo
    typealias ErrorResponse = APIError
    struct PathComponents: Sendable { let milliseconds: Int }

    static let definition: Definition<DelayEndpoint> = Definition(path: "delay/\(path: \.milliseconds)")

    let pathComponents: PathComponents

    init(milliseconds: Int) { pathComponents = PathComponents(milliseconds: milliseconds) }
}

/// `GET /delay/3600000` with an hour's timeout: a request that holds its host slot until it is
/// cancelled, however slow the machine (a 60-second delay ran out under ThreadSanitizer in CI
/// while a test still counted on its slot).
struct HeldEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Echo
    typealias ErrorResponse = APIError

    static let definition: Definition<HeldEndpoint> = Definition(path: "delay/3600000", timeout: 3600)
}

/// `GET /bytes/{count}`, returned raw.
struct BytesEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Data
    struct PathComponents: Sendable { let count: Int }

    static let definition: Definition<BytesEndpoint> = Definition(path: "bytes/\(path: \.count)")

    let pathComponents: PathComponents

    init(count: Int) { pathComponents = PathComponents(count: count) }
}

/// `DELETE /{route}`, whose body is ignored.
struct DeleteEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Void
    typealias ErrorResponse = APIError

    static let definition: Definition<DeleteEndpoint> = Definition(method: .delete, path: "\(path: \.route)")

    let pathComponents: Route

    init(_ route: String) { pathComponents = Route(route: route) }
}

/// `POST /{route}` with a JSON body, decoded as ``Echo``.
struct PostEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Echo
    typealias ErrorResponse = APIError
    struct Body: Encodable, Sendable { let name: String }

    static let definition: Definition<PostEndpoint> = Definition(method: .post, path: "\(path: \.route)")

    let pathComponents: Route
    let body: Body

    init(_ route: String, name: String = "Ada") {
        pathComponents = Route(route: route)
        body = Body(name: name)
    }
}

/// `GET /{route}` decoded as a list of named items, to see a coding path in a decoding failure.
struct ItemsEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias ErrorResponse = APIError
    struct Response: Decodable, Sendable {
        struct Item: Decodable, Sendable { let name: String }
        let items: [Item]
    }

    static let definition: Definition<ItemsEndpoint> = Definition(path: "\(path: \.route)")

    let pathComponents: Route

    init(_ route: String) { pathComponents = Route(route: route) }
}

/// Puts a key in `X-Api-Key`, plus a token in each of the standard credential headers, so redirect
/// tests can see which ones survive a hop (the endpoints' own `X-Trace` is no credential). The pipeline finds `X-Api-Key` itself (the method set
/// it); the `credentialHeaderNames` an earlier release required still compiles, unused.
struct APIKeyAuth: AuthenticationMethod {
    let key: String

    func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest {
        var request = request
        request.setValue(key, forHTTPHeaderField: "X-Api-Key")
        request.setValue("Bearer token-\(key)", forHTTPHeaderField: "Authorization")
        request.setValue("Basic proxy-\(key)", forHTTPHeaderField: "Proxy-Authorization")
        request.setValue("session=cookie-\(key)", forHTTPHeaderField: "Cookie")
        return request
    }

    var credentialHeaderNames: [String] { ["Authorization", "X-Api-Key"] }
}

/// `GET /{route}` with `X-Trace: trace-1`, authenticated with ``APIKeyAuth``, decoded as ``Echo``.
struct KeyedEchoEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Echo
    typealias ErrorResponse = APIError

    static let auth = APIKeyAuth(key: "declared-key")
    static let definition: Definition<KeyedEchoEndpoint> = Definition(
        path: "\(path: \.route)", headers: [Header("X-Trace").value("trace-1")])

    let pathComponents: Route

    init(_ route: String) { pathComponents = Route(route: route) }
}

/// `POST /{route}` authenticated with ``APIKeyAuth``, with a JSON body, decoded as ``Echo``.
struct KeyedPostEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Echo
    typealias ErrorResponse = APIError
    struct Body: Encodable, Sendable { let name: String }

    static let auth = APIKeyAuth(key: "declared-key")
    static let definition: Definition<KeyedPostEndpoint> = Definition(method: .post, path: "\(path: \.route)")

    let pathComponents: Route
    let body = Body(name: "Ada")

    init(_ route: String) { pathComponents = Route(route: route) }
}

/// Sets a request's `timeoutInterval`, as an app would for a slow endpoint.
struct TimeoutMiddleware: Middleware {
    let seconds: TimeInterval

    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        var request = request
        request.timeoutInterval = seconds
        return try await next(request)
    }
}

/// Sends `endpoint` to `server` through `transport` (over `session` for URLSession's) and returns
/// the outcome, keeping the typed error.
func send<E: Endpoint>(
    _ endpoint: E,
    to server: TestServer,
    session: URLSession = .shared,
    via transport: TestTransport = .urlSession,
    auth: E.Auth = E.auth,
    middleware: [any Middleware] = []
) async -> Result<E.Response, E.TaskError> {
    await send(endpoint, at: server.baseURL, session: session, via: transport, auth: auth, middleware: middleware)
}

/// Sends `endpoint` to the server at `baseURL` (a ``ClosedPort``'s, say) and returns the outcome.
func send<E: Endpoint>(
    _ endpoint: E,
    at baseURL: URL,
    session: URLSession = .shared,
    via transport: TestTransport = .urlSession,
    auth: E.Auth = E.auth,
    middleware: [any Middleware] = []
) async -> Result<E.Response, E.TaskError> {
    await send(endpoint, at: baseURL, through: transport.client(session: session), auth: auth, middleware: middleware)
}

/// Sends `endpoint` through `client` to the server at `baseURL` and returns the outcome.
func send<E: Endpoint>(
    _ endpoint: E,
    at baseURL: URL,
    through client: EndpointClient,
    auth: E.Auth = E.auth,
    middleware: [any Middleware] = []
) async -> Result<E.Response, E.TaskError> {
    await Loopback.$baseURL.withValue(baseURL) {
        do throws(E.TaskError) {
            return .success(try await client.response(with: endpoint, auth: auth, middleware: middleware))
        } catch {
            return .failure(error)
        }
    }
}

extension Result {
    /// The error, or `nil` (recording an issue) when the call succeeded.
    func failure(sourceLocation: SourceLocation = #_sourceLocation) -> Failure? {
        switch self {
        case .success: Issue.record("expected the request to fail", sourceLocation: sourceLocation)
        case .failure(let error): return error
        }
        return nil
    }
}

extension EndpointTaskError {
    /// The `URLError` code of `.urlLoadError`, else `nil`.
    var urlErrorCode: URLError.Code? {
        if case .urlLoadError(let error) = self { error.code } else { nil }
    }

    /// Whether this is `.cancelled`.
    var isCancelled: Bool {
        if case .cancelled = self { true } else { false }
    }
}

/// Waits until `server` has received `count` requests.
///
/// It polls the server's counter (the event), giving up after ``TestTiming/giveUp``.
func waitForRequests(_ count: Int, on server: TestServer) async throws {
    let deadline = Date().addingTimeInterval(TestTiming.giveUp)
    while server.requestCount < count, Date() < deadline {
        try await Task.sleep(nanoseconds: 5_000_000)
    }
    try #require(server.requestCount >= count, "the server never received \(count) request(s)")
}

/// How much slower than usual the tests run: `ENDPOINTS_TEST_TIME_SCALE`, 1 by default.
///
/// `.ci/run` sets it for the ThreadSanitizer pass, which slows everything several times over. The
/// few tests that bound how *promptly* something happens (a cancellation, a 0.5 s timeout) scale
/// their bound by it; the plain run keeps the bounds that tell a working timeout from a broken one.
enum TestTiming {
    static let scale: Double =
        ProcessInfo.processInfo.environment["ENDPOINTS_TEST_TIME_SCALE"].flatMap(Double.init) ?? 1

    /// How long a wait for an event (a request reaching the server, a refresh delivered) lasts
    /// before the test calls it missed: 300 s × ``scale``, only so that a broken test fails instead
    /// of hanging. Far beyond what a loaded machine needs: plain `swift test` beside two builds on
    /// two cores once took 36 s to deliver an answer a test waited 30 s for.
    static let giveUp: TimeInterval = 300 * scale

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    static func bound(_ duration: Duration) -> Duration { duration * scale }
}
