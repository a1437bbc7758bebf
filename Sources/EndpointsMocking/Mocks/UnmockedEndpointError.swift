/// A request in a strict mock scope found no mock for its endpoint, so it was not sent.
///
/// Callers see it as `EndpointTaskError.middlewareError(UnmockedEndpointError)`:
///
/// ```swift
/// await #expect(throws: MyEndpoint.TaskError.self) {
///     try await withMock(strict: true) { _ in } test: {
///         try await URLSession.shared.response(with: MyEndpoint())
///     }
/// }
/// ```
public struct UnmockedEndpointError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The endpoint type's name, e.g. `ProfileEndpoint`.
    public let endpointName: String

    /// Creates the error.
    public init(endpointName: String) {
        self.endpointName = endpointName
    }

    /// A sentence naming the endpoint and the fix.
    public var description: String {
        "No mock is registered for \(endpointName) and the mock scope is strict, so the request was not sent; "
            + "register one with mocks.register(\(endpointName).self, action: ...)."
    }
}
