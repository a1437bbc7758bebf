import Endpoints
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a mock written as a closure answers with: Endpoints 0.4's continuation form of `withMock`.
///
/// ```swift
/// try await withMock(MyEndpoint.self) { continuation in
///     continuation.resume(returning: .init(resourceId: "123", resourceName: "Test"))
/// } test: {
///     let response = try await URLSession.shared.response(with: MyEndpoint())
///     #expect(response.resourceId == "123")
/// }
/// ```
///
/// The closure runs for each request to the endpoint and may suspend (to load a fixture, say).
/// A closure that resumes more than once answers with the last value; one that never resumes lets
/// the request through to the transport, as in 0.4.
public final class MockContinuation<T: Endpoint>: Sendable {
    private let outcome = Locked<Result<T.Response, T.TaskError>?>(nil)
    /// The endpoint value being answered.
    public let endpoint: T

    init(endpoint: T) { self.endpoint = endpoint }

    /// Answers with `value`, as if the server had returned it with status 200.
    public func resume(returning value: T.Response) {
        set(.success(value))
    }

    /// Answers with a typed error response: the caller catches `.errorResponse(httpResponse:response:)`
    /// with `status` (400 unless given), like ``MockAction/fail(_:status:)``.
    public func resume(failingWith errorResponse: T.ErrorResponse, status: Int = 400) {
        set(
            .failure(
                .errorResponse(
                    httpResponse: MockHTTPResponse.make(for: endpoint, status: status, headers: [:]),
                    response: errorResponse)))
    }

    /// Throws `error` from the request, e.g. `.internetConnectionOffline`.
    public func resume(throwing error: T.TaskError) {
        set(.failure(error))
    }

    private func set(_ result: Result<T.Response, T.TaskError>) {
        outcome.withLock { $0 = result }
    }

    /// The answer the closure gave, if any.
    var result: Result<T.Response, T.TaskError>? { outcome.withLock { $0 } }
}

extension MockAction {
    /// An action that runs `body` for each request and answers as it resumes the continuation.
    ///
    /// ```swift
    /// mocks.register(MyEndpoint.self, action: .continuation { $0.resume(throwing: .internetConnectionOffline) })
    /// ```
    public static func continuation(_ body: @escaping @Sendable (MockContinuation<T>) async -> Void) -> MockAction {
        MockAction(orPassThrough: { endpoint in
            let continuation = MockContinuation<T>(endpoint: endpoint)
            await body(continuation)
            return continuation.result
        })
    }
}

/// Runs `test` with `endpoint` answered by `body`, Endpoints 0.4's continuation form, and returns
/// what `test` returns.
///
/// ```swift
/// try await withMock(MyEndpoint.self) { continuation in
///     continuation.resume(throwing: .internetConnectionOffline)
/// } test: {
///     await #expect(throws: MyEndpoint.TaskError.self) {
///         try await URLSession.shared.response(with: MyEndpoint())
///     }
/// }
/// ```
///
/// Scoped to `test` and its child tasks like ``withMock(_:action:isolation:test:)``; `body` runs
/// once per request.
@discardableResult
public func withMock<T: Endpoint, R, E: Error>(
    _ endpoint: T.Type,
    _ body: @escaping @Sendable (MockContinuation<T>) async -> Void,
    isolation: isolated (any Actor)? = #isolation,
    test: () async throws(E) -> R
) async throws(E) -> R {
    try await withMock(endpoint, action: .continuation(body), isolation: isolation, test: test)
}
