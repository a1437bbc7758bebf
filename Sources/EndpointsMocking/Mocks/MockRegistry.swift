import Foundation

/// A set of typed mocks, one per endpoint type, and the record of every request made while it
/// is installed.
///
/// Register the endpoints a flow touches, install the registry with ``withMock(_:isolation:test:)``,
/// then ask it what was called:
///
/// ```swift
/// let mocks = MockRegistry()
/// mocks.register(RefreshEndpoint.self, action: .return(.init(access: "new", refresh: "next")))
/// mocks.register(ProfileEndpoint.self, action: .return(.init(name: "Zac")))
///
/// try await withMock(mocks) {
///     _ = try await session.response(with: ProfileEndpoint())
/// }
/// #expect(mocks.callCount(to: ProfileEndpoint.self) == 1)
/// #expect(mocks.calls(to: RefreshEndpoint.self).isEmpty)
/// ```
///
/// A registry is thread-safe and may be changed while installed; a change applies to the requests
/// that start after it.
public final class MockRegistry: Sendable {
    private struct State {
        var actions: [ObjectIdentifier: any Sendable] = [:]
        var requestActions: [String: any Sendable] = [:]
        var calls: [RecordedCall] = []
        var requestCalls: [String] = []
    }

    /// Whether an endpoint with no mock fails with ``UnmockedEndpointError`` instead of being sent.
    ///
    /// A strict registry makes every nested scope strict too: a request that no scope mocks fails.
    public let isStrict: Bool
    private let state = Locked(State())

    /// Creates an empty registry.
    /// - Parameter strict: When `true`, requests for endpoints without a mock fail with
    ///   `.middlewareError(UnmockedEndpointError)` rather than reaching the network.
    public init(strict: Bool = false) {
        isStrict = strict
    }

    /// Mocks `endpoint`: while this registry is installed, requests for that endpoint type are
    /// answered by `action`. Registering the same type again replaces its action.
    ///
    /// ```swift
    /// mocks.register(ProfileEndpoint.self, action: .return(.init(name: "Zac")))
    /// ```
    public func register<T: Endpoint>(_ endpoint: T.Type, action: MockAction<T>) {
        state.withLock { $0.actions[ObjectIdentifier(endpoint)] = action }
    }

    /// Removes the mock for `endpoint`, so its requests pass through again.
    public func removeMock<T: Endpoint>(for endpoint: T.Type) {
        _ = state.withLock { $0.actions.removeValue(forKey: ObjectIdentifier(endpoint)) }
    }

    /// Whether `endpoint` has a mock in this registry.
    public func hasMock<T: Endpoint>(for endpoint: T.Type) -> Bool {
        action(for: endpoint) != nil
    }

    func action<T: Endpoint>(for endpoint: T.Type) -> MockAction<T>? {
        state.withLock { $0.actions[ObjectIdentifier(endpoint)] } as? MockAction<T>
    }

    // MARK: Ad-hoc requests

    /// Mocks the ad-hoc requests named as `request` is (`AdHocRequest.name`: the method and the
    /// URL or path as written, or the name given with `named(_:)`): while this registry is
    /// installed they are answered by `outcome`, which receives the request that was sent.
    ///
    /// ```swift
    /// mocks.register(Request.estimatedAge(forName: "any")) { _ in .success(Person(name: "Zaid", age: 34, count: 1)) }
    /// ```
    ///
    /// Registering the same name again replaces its mock. The query is not part of the name, so
    /// every `estimatedAge(forName:)` request is answered.
    public func register<Response, ErrorResponse>(
        _ request: AdHocRequest<Response, ErrorResponse>,
        outcome:
            @escaping @Sendable (AdHocRequest<Response, ErrorResponse>) async -> Result<
                Response, EndpointTaskError<ErrorResponse>
            >
    ) {
        state.withLock { $0.requestActions[request.name] = outcome }
    }

    /// Mocks the ad-hoc requests named as `request` is with `response`, as if the server had
    /// returned it with status 200.
    ///
    /// ```swift
    /// mocks.register(Request<[AppUser]>.allUsers, returning: [AppUser(id: 1, name: "Leanne")])
    /// ```
    public func register<Response, ErrorResponse>(
        _ request: AdHocRequest<Response, ErrorResponse>,
        returning response: Response
    ) {
        register(request) { _ in .success(response) }
    }

    /// The names of the ad-hoc requests made while this registry was installed, oldest first,
    /// mocked or not: `#expect(mocks.requestNames == ["GET users"])`.
    public var requestNames: [String] {
        state.withLock { $0.requestCalls }
    }

    func requestAction<Response, ErrorResponse>(
        for request: AdHocRequest<Response, ErrorResponse>
    ) -> (
        @Sendable (AdHocRequest<Response, ErrorResponse>) async -> Result<Response, EndpointTaskError<ErrorResponse>>
    )? {
        state.withLock { $0.requestActions[request.name] }
            as? @Sendable (AdHocRequest<Response, ErrorResponse>) async -> Result<
                Response, EndpointTaskError<ErrorResponse>
            >
    }

    func recordRequest(named name: String) {
        state.withLock { $0.requestCalls.append(name) }
    }

    // MARK: Recorded calls

    /// Every request made while this registry was installed, oldest first, mocked or not,
    /// including those made in nested scopes.
    public var calls: [RecordedCall] {
        state.withLock { $0.calls }
    }

    /// The endpoint values of the requests for `endpoint`, oldest first.
    ///
    /// ```swift
    /// let searches = mocks.calls(to: SearchEndpoint.self)
    /// #expect(searches.map(\.parameterComponents.term) == ["sw", "swift"])
    /// ```
    public func calls<T: Endpoint>(to endpoint: T.Type) -> [T] {
        calls.compactMap { $0.endpoint as? T }
    }

    /// How many requests for `endpoint` were made: `#expect(mocks.callCount(to: RefreshEndpoint.self) == 1)`.
    public func callCount<T: Endpoint>(to endpoint: T.Type) -> Int {
        calls(to: endpoint).count
    }

    /// Forgets the recorded calls; the mocks stay.
    public func removeAllCalls() {
        state.withLock { $0.calls.removeAll() }
    }

    func record(_ call: RecordedCall) {
        state.withLock { $0.calls.append(call) }
    }
}
