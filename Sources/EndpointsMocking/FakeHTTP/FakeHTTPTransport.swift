import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that answers HTTP requests with responses registered by the test, so the whole
/// real pipeline runs — building, authentication with refresh and retry, middleware, validation,
/// decoding — without a network.
///
/// ```swift
/// let fake = FakeHTTPTransport()
/// fake.register(.get, "/profile", .json(ProfileEndpoint.Response(name: "Zac")))
///
/// try await withFakeTransport(fake) {
///     let profile = try await URLSession.shared.response(with: ProfileEndpoint())
///     #expect(profile.name == "Zac")
/// }
/// #expect(fake.requests.map(\.path) == ["/profile"])
/// ```
///
/// Install it for a task tree with ``withFakeTransport(_:isolation:test:)``, or hand code that
/// needs a `URLSession` one from ``makeSession(configuration:)``. Each fake answers only its own
/// requests, so parallel tests each use their own. A request nothing matches fails with
/// ``UnmatchedRequestError``. Redirects are not followed: a 3xx is returned as it is.
public final class FakeHTTPTransport: HTTPTransport {
    /// Answers one request.
    public typealias Handler = @Sendable (FakeHTTPRequest) async throws -> FakeHTTPResponse

    private struct State {
        var routes: [FakeRoute: Handler] = [:]
        var fallbacks: [@Sendable (FakeHTTPRequest) async throws -> FakeHTTPResponse?] = []
        var requests: [FakeHTTPRequest] = []
    }

    private let state = Locked(State())

    /// Creates a fake with nothing registered.
    public init() {}

    // MARK: Registering

    /// Answers every `method` request for `path` with `response`.
    ///
    /// `path` is the URL's whole path, including any path of the server's base URL
    /// (`/v1/profile` for a base URL ending in `/v1`). Registering a route again replaces it.
    public func register(_ method: Method, _ path: String, _ response: FakeHTTPResponse) {
        register(method, path) { _ in response }
    }

    /// Answers successive `method` requests for `path` with successive responses; the last one
    /// answers every request after that.
    ///
    /// ```swift
    /// fake.register(.get, "/feed", responses: [.status(503), .json(feed)])
    /// ```
    public func register(_ method: Method, _ path: String, responses: [FakeHTTPResponse]) {
        precondition(!responses.isEmpty, "FakeHTTPTransport.register(responses:) needs at least one response")
        let next = Locked(0)
        register(method, path) { _ in
            let index = next.withLock { index in
                defer { index += 1 }
                return min(index, responses.count - 1)
            }
            return responses[index]
        }
    }

    /// Answers `method` requests for `path` with a closure that sees the request, its body
    /// included. Throw a `URLError` to simulate a transport failure.
    ///
    /// ```swift
    /// fake.register(.get, "/profile") { request in
    ///     request.header("Authorization") == "Bearer fresh" ? .json(profile) : .status(401)
    /// }
    /// ```
    public func register(_ method: Method, _ path: String, handler: @escaping Handler) {
        let route = FakeRoute(method: method.rawValue, path: path)
        state.withLock { $0.routes[route] = handler }
    }

    /// Adds a closure consulted for requests no method-and-path route matches, in the order
    /// added; return `nil` to leave a request to the next one.
    ///
    /// ```swift
    /// fake.register { request in
    ///     request.path.hasPrefix("/users/") ? .json(User(id: 1, name: "Ada")) : nil
    /// }
    /// ```
    public func register(_ handler: @escaping @Sendable (FakeHTTPRequest) async throws -> FakeHTTPResponse?) {
        state.withLock { $0.fallbacks.append(handler) }
    }

    // MARK: Recorded requests

    /// Every request received, oldest first, matched or not.
    public var requests: [FakeHTTPRequest] { state.withLock { $0.requests } }

    /// The requests received for `method` and `path`, oldest first.
    public func requests(_ method: Method, _ path: String) -> [FakeHTTPRequest] {
        let route = FakeRoute(method: method.rawValue, path: path)
        return requests.filter { FakeRoute(method: $0.method, path: $0.path) == route }
    }

    /// Forgets the recorded requests; the routes stay.
    public func removeAllRequests() {
        state.withLock { $0.requests.removeAll() }
    }

    // MARK: Answering

    /// Answers `request` as the pipeline's transport.
    public func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
        try await respond(to: FakeHTTPRequest(request, context: context))
    }

    /// Records `request` and answers it with the matching route, then the fallbacks.
    /// - Throws: ``UnmatchedRequestError`` when nothing answers, or what a handler throws.
    public func respond(to request: FakeHTTPRequest) async throws -> (Data, HTTPURLResponse) {
        Self.pack(try await answer(to: request), for: request)
    }

    /// The registered answer for `request`, recorded.
    func answer(to request: FakeHTTPRequest) async throws -> FakeHTTPResponse {
        let route = FakeRoute(method: request.method, path: request.path)
        let (handler, fallbacks) = state.withLock { state in
            state.requests.append(request)
            return (state.routes[route], state.fallbacks)
        }
        if let handler {
            return try await handler(request)
        }
        for fallback in fallbacks {
            if let response = try await fallback(request) {
                return response
            }
        }
        throw UnmatchedRequestError(method: request.method, path: request.path)
    }

    private static func pack(_ response: FakeHTTPResponse, for request: FakeHTTPRequest) -> (Data, HTTPURLResponse) {
        (response.body, response.httpResponse(for: request.url))
    }
}

/// A method and a normalised path.
struct FakeRoute: Hashable {
    let method: String
    let path: String

    init(method: String, path: String) {
        self.method = method.uppercased()
        var path = path
        if !path.hasPrefix("/") { path = "/" + path }
        self.path = path
    }

    /// The percent-decoded path of `url`, `/` when it has none.
    static func path(of url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.path ?? url.path
        return path.isEmpty ? "/" : path
    }
}
