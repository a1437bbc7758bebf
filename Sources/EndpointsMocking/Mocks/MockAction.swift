import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a mocked endpoint answers instead of being sent: a response, a typed error response, a
/// thrown error, a value generated from the endpoint, or any of these after a delay.
///
/// ```swift
/// try await withMock(MyEndpoint.self, action: .return(.init(resourceId: "123", resourceName: "Test"))) {
///     let response = try await URLSession.shared.response(with: MyEndpoint())
///     #expect(response.resourceId == "123")
/// }
/// ```
///
/// Mocked requests are never built, authenticated or sent, so a mocked error never starts the
/// refresh/retry of the endpoint's `AuthenticationMethod`.
public struct MockAction<T: Endpoint>: Sendable {
    /// The outcome, or `nil` to send the request after all (a ``MockContinuation`` not resumed).
    let run: @Sendable (T) async -> Result<T.Response, T.TaskError>?

    /// An action from a closure that returns the whole outcome; the other factories are built on it.
    ///
    /// ```swift
    /// let flaky = MockAction<MyEndpoint> { _ in Bool.random() ? .success(value) : .failure(.cancelled) }
    /// ```
    public init(_ outcome: @escaping @Sendable (T) async -> Result<T.Response, T.TaskError>) {
        run = { await outcome($0) }
    }

    /// An action that may decline, letting the request through to the transport.
    init(orPassThrough outcome: @escaping @Sendable (T) async -> Result<T.Response, T.TaskError>?) {
        run = outcome
    }

    /// Answers with `response`, as if the server had returned it with status 200.
    ///
    /// ```swift
    /// mocks.register(ProfileEndpoint.self, action: .return(.init(name: "Zac")))
    /// ```
    public static func `return`(_ response: T.Response) -> MockAction {
        MockAction { _ in .success(response) }
    }

    /// Answers with a typed error response: the caller catches
    /// `.errorResponse(httpResponse:response:)` whose `HTTPURLResponse` carries `status`,
    /// `headers` and the URL the endpoint would have been sent to.
    ///
    /// ```swift
    /// mocks.register(LoginEndpoint.self, action: .returnError(.init(message: "Locked"), status: 423))
    /// ```
    public static func returnError(
        _ errorResponse: T.ErrorResponse,
        status: Int,
        headers: [String: String] = [:]
    ) -> MockAction {
        MockAction { endpoint in
            let httpResponse = MockHTTPResponse.make(for: endpoint, status: status, headers: headers)
            return .failure(.errorResponse(httpResponse: httpResponse, response: errorResponse))
        }
    }

    /// Answers with a typed error response, as Endpoints 0.4's `.fail` did: the caller catches
    /// `.errorResponse(httpResponse:response:)`. 0.4 attached an empty `HTTPURLResponse`; this one
    /// has `status` (400 unless given) and the URL the endpoint would have been sent to.
    ///
    /// ```swift
    /// try await withMock(LoginEndpoint.self, action: .fail(.init(message: "Locked"))) { ... }
    /// ```
    public static func fail(_ errorResponse: T.ErrorResponse, status: Int = 400) -> MockAction {
        returnError(errorResponse, status: status)
    }

    /// Throws `error` from the request, e.g. `.throw(.authenticationError(.notAuthenticated))` to
    /// simulate a signed-out user, or `.throw(.internetConnectionOffline)`.
    public static func `throw`(_ error: T.TaskError) -> MockAction {
        MockAction { _ in .failure(error) }
    }

    /// Computes the response from the endpoint value that was sent; the closure may suspend and throw.
    ///
    /// ```swift
    /// mocks.register(UserEndpoint.self, action: .generate { endpoint in
    ///     guard endpoint.pathComponents.id > 0 else { throw UserEndpoint.TaskError.urlLoadError(URLError(.badURL)) }
    ///     return User(id: endpoint.pathComponents.id, name: "User \(endpoint.pathComponents.id)")
    /// })
    /// ```
    ///
    /// A thrown `T.TaskError` reaches the caller as it is. Other errors are mapped the way the
    /// pipeline maps a transport's: `CancellationError` to `.cancelled`, a `URLError` to
    /// `.urlLoadError` (or `.cancelled`, `.internetConnectionOffline`), an `AuthenticationError`
    /// to `.authenticationError`, anything else to `.middlewareError`.
    public static func generate(_ body: @escaping @Sendable (T) async throws -> T.Response) -> MockAction {
        MockAction { endpoint in
            do {
                return .success(try await body(endpoint))
            } catch {
                return .failure(T.TaskError(error))
            }
        }
    }

    /// Runs `action` after waiting `delay`. Cancelling the calling task ends the wait and the
    /// request fails with `.cancelled`, as a real one would.
    ///
    /// ```swift
    /// mocks.register(SearchEndpoint.self, action: .delayed(by: .milliseconds(50), .return(results)))
    /// ```
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    public static func delayed(by delay: Duration, _ action: MockAction) -> MockAction {
        let (seconds, attoseconds) = delay.components
        let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
        return delayed(nanoseconds: UInt64(nanoseconds), action)
    }

    /// Runs `action` after waiting `seconds`; cancellable like ``delayed(by:_:)``, for platforms
    /// without `Duration`.
    public static func delayed(seconds: Double, _ action: MockAction) -> MockAction {
        delayed(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000), action)
    }

    private static func delayed(nanoseconds: UInt64, _ action: MockAction) -> MockAction {
        MockAction(orPassThrough: { endpoint in
            do {
                try await Task.sleep(nanoseconds: nanoseconds)
            } catch {
                return .failure(.cancelled)
            }
            return await action.run(endpoint)
        })
    }

    /// Answers the first request with the first action, the second with the second, and so on;
    /// the last action answers every request after that. Useful for "fails once, then succeeds".
    ///
    /// ```swift
    /// mocks.register(FeedEndpoint.self, action: .sequence([.throw(.internetConnectionOffline), .return(feed)]))
    /// ```
    ///
    /// The position is kept in the action value, so registering one sequence in two places shares it.
    public static func sequence(_ actions: [MockAction]) -> MockAction {
        precondition(!actions.isEmpty, "MockAction.sequence needs at least one action")
        let next = Locked(0)
        return MockAction(orPassThrough: { endpoint in
            let index = next.withLock { index in
                defer { index += 1 }
                return min(index, actions.count - 1)
            }
            return await actions[index].run(endpoint)
        })
    }
}

extension MockAction where T.ErrorResponse == EmptyCodable {
    /// Answers with an error status for an endpoint whose error body is empty: the caller catches
    /// `.errorResponse(httpResponse:response:)` with that status.
    ///
    /// ```swift
    /// mocks.register(DeleteEndpoint.self, action: .returnError(status: 404))
    /// ```
    public static func returnError(status: Int, headers: [String: String] = [:]) -> MockAction {
        returnError(EmptyCodable(), status: status, headers: headers)
    }
}

/// Builds the `HTTPURLResponse` a mocked error response carries.
enum MockHTTPResponse {
    static func make<T: Endpoint>(for endpoint: T, status: Int, headers: [String: String]) -> HTTPURLResponse {
        let url = (try? endpoint.urlRequest().url) ?? URL(string: "endpoints-mock:unbuildable")!
        return HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
    }
}
