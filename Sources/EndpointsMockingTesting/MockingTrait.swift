// The trait lives in its own product, as swift-dependencies keeps its trait in
// DependenciesTestSupport: a library that imports Testing cannot be linked into an app on Apple
// platforms (Testing ships only with the test tools), and on Linux it makes every executable that
// uses EndpointsMocking load libTesting. EndpointsMocking itself stays free of Testing.
@_exported import EndpointsMocking

#if compiler(>=6.1) && canImport(Testing)
    import Testing

    /// A Swift Testing trait that runs a test with typed mocks installed, as ``withMock`` would.
    ///
    /// Create it with ``Testing/Trait/mocking(strict:_:)`` or ``Testing/Trait/mocking(_:action:)``:
    ///
    /// ```swift
    /// @Test(.mocking { mocks in mocks.register(ProfileEndpoint.self, action: .return(.init(name: "Zac"))) })
    /// func profileLoads() async throws {
    ///     let profile = try await URLSession.shared.response(with: ProfileEndpoint())
    ///     #expect(profile.name == "Zac")
    ///     #expect(MockingTrait.registry?.callCount(to: ProfileEndpoint.self) == 1)
    /// }
    /// ```
    ///
    /// Each test (each case of a parameterized test) gets a fresh ``MockRegistry``, installed in the
    /// same task-local scope `withMock` uses, so tests running in parallel never see each other's
    /// mocks or calls. On a `@Suite` the trait applies to every test in it; a test's own `.mocking`
    /// trait and any `withMock` inside the test nest in it, the innermost mock winning.
    public struct MockingTrait: TestTrait, SuiteTrait, TestScoping {
        let strict: Bool
        let configure: @Sendable (MockRegistry) -> Void

        /// The registry the innermost `.mocking` trait installed for the running test, to assert
        /// what was called; `nil` outside such a test.
        ///
        /// ```swift
        /// #expect(MockingTrait.registry?.callCount(to: ProfileEndpoint.self) == 1)
        /// ```
        public static var registry: MockRegistry? { current }

        // A task-local, not global state: each test's task tree sees only its own registry.
        @TaskLocal private static var current: MockRegistry?

        /// `true`: on a suite, the trait applies to each test in it.
        public var isRecursive: Bool { true }

        /// The trait for each test case only: a suite, or a parameterized test as a whole, gets no
        /// registry of its own, so test cases never share one.
        public func scopeProvider(for test: Test, testCase: Test.Case?) -> MockingTrait? {
            testCase == nil ? nil : self
        }

        /// Runs `function` with a new registry, configured by the trait, installed.
        public func provideScope(
            for test: Test,
            testCase: Test.Case?,
            performing function: @Sendable () async throws -> Void
        ) async throws {
            let registry = MockRegistry(strict: strict)
            configure(registry)
            try await MockingTrait.$current.withValue(registry) {
                try await withMock(registry) { try await function() }
            }
        }
    }

    extension Trait where Self == MockingTrait {
        /// Runs the test with the mocks `configure` registers.
        ///
        /// ```swift
        /// @Test(.mocking { mocks in mocks.register(ProfileEndpoint.self, action: .return(.init(name: "Zac"))) })
        /// ```
        ///
        /// - Parameters:
        ///   - strict: When `true`, an endpoint without a mock fails with
        ///     `.middlewareError(UnmockedEndpointError)` instead of reaching the network.
        ///   - configure: Registers the mocks; it runs once for each test, on a fresh registry.
        public static func mocking(
            strict: Bool = false,
            _ configure: @escaping @Sendable (MockRegistry) -> Void
        ) -> Self {
            MockingTrait(strict: strict, configure: configure)
        }

        /// Runs the test with `endpoint` answered by `action`.
        ///
        /// ```swift
        /// @Test(.mocking(ProfileEndpoint.self, action: .return(.init(name: "Zac"))))
        /// ```
        public static func mocking<T: Endpoint>(_ endpoint: T.Type, action: MockAction<T>) -> Self {
            MockingTrait(strict: false) { $0.register(endpoint, action: action) }
        }
    }
#endif
