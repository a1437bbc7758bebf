/// Runs `test` with every request of its task tree sent through `fake` instead of the network,
/// and returns what `test` returns.
///
/// ```swift
/// let fake = FakeHTTPTransport()
/// fake.register(.get, "/profile", .json(ProfileEndpoint.Response(name: "Zac")))
/// let profile = try await withFakeTransport(fake) {
///     try await URLSession.shared.response(with: ProfileEndpoint())
/// }
/// ```
///
/// Unlike typed mocks, the whole pipeline runs: the endpoint's authentication (refresh and retry
/// included), middleware, status validation and decoding. Typed mocks installed with `withMock`
/// still answer first, in either nesting order.
@discardableResult
public func withFakeTransport<R, E: Error>(
    _ fake: FakeHTTPTransport,
    isolation: isolated (any Actor)? = #isolation,
    test: () async throws(E) -> R
) async throws(E) -> R {
    var overrides = PipelineOverrides.current
    overrides.transport = fake
    return try await withOverrides(overrides, isolation: isolation, test)
}
