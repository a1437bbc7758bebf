/// Runs `test` with `endpoint` mocked by `action`, and returns what `test` returns.
///
/// ```swift
/// @Test func testMyEndpoint() async throws {
///     try await withMock(MyEndpoint.self, action: .return(.init(resourceId: "123", resourceName: "Test"))) {
///         let response = try await URLSession.shared.response(with: MyEndpoint())
///         #expect(response.resourceId == "123")
///     }
/// }
/// ```
///
/// The mock applies to `test` and the child tasks it starts (task groups, `async let`, `Task {}`),
/// never to other tests running at the same time. Other endpoints pass through to the transport.
/// Scopes nest: the mocks of the scopes around this one still apply, and this one's shadows
/// theirs for the same endpoint type.
@discardableResult
public func withMock<T: Endpoint, R, E: Error>(
    _ endpoint: T.Type,
    action: MockAction<T>,
    isolation: isolated (any Actor)? = #isolation,
    test: () async throws(E) -> R
) async throws(E) -> R {
    let registry = MockRegistry()
    registry.register(endpoint, action: action)
    return try await withMock(registry, isolation: isolation, test: test)
}

/// Runs `test` with the mocks `configure` registers, and returns what `test` returns.
///
/// When a flow touches several endpoints, register them together instead of nesting scopes:
///
/// ```swift
/// try await withMock { mocks in
///     mocks.register(RefreshEndpoint.self, action: .return(.init(access: "new", refresh: "next")))
///     mocks.register(ProfileEndpoint.self, action: .return(.init(name: "Zac")))
/// } test: {
///     let profile = try await session.response(with: ProfileEndpoint())
/// }
/// ```
///
/// - Parameters:
///   - strict: When `true`, an endpoint without a mock fails with
///     `.middlewareError(UnmockedEndpointError)` instead of reaching the network.
///   - configure: Registers the mocks.
///   - isolation: The actor `test` runs on; the caller's, so `test` may touch its state.
///   - test: The code that sends requests.
@discardableResult
public func withMock<R, E: Error>(
    strict: Bool = false,
    _ configure: (MockRegistry) -> Void,
    isolation: isolated (any Actor)? = #isolation,
    test: () async throws(E) -> R
) async throws(E) -> R {
    let registry = MockRegistry(strict: strict)
    configure(registry)
    return try await withMock(registry, isolation: isolation, test: test)
}

/// Runs `test` with `registry` installed, and returns what `test` returns. Keep the registry to
/// assert afterwards what was called:
///
/// ```swift
/// let mocks = MockRegistry()
/// mocks.register(ProfileEndpoint.self, action: .return(.init(name: "Zac")))
/// try await withMock(mocks) {
///     _ = try await URLSession.shared.response(with: ProfileEndpoint())
/// }
/// #expect(mocks.callCount(to: ProfileEndpoint.self) == 1)
/// ```
@discardableResult
public func withMock<R, E: Error>(
    _ registry: MockRegistry,
    isolation: isolated (any Actor)? = #isolation,
    test: () async throws(E) -> R
) async throws(E) -> R {
    var overrides = PipelineOverrides.current
    overrides.mocks = MockScope(registry, inside: overrides.mocks)
    return try await withOverrides(overrides, isolation: isolation, test)
}

/// Runs `body` with `overrides` installed, keeping `body`'s typed error.
func withOverrides<R, E: Error>(
    _ overrides: PipelineOverrides,
    isolation: isolated (any Actor)?,
    _ body: () async throws(E) -> R
) async throws(E) -> R {
    let result: Result<R, E> = await PipelineOverrides.$current.withValue(overrides) {
        do throws(E) {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }
    return try result.get()
}
