import Endpoints
import EndpointsMocking
import EndpointsMockingTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The trait needs Swift 6.1 (TestScoping), like EndpointsMockingTesting itself.
#if compiler(>=6.1)
    @Suite struct MockingTraitTests {
        // The Mocking article's sample, verbatim.
        @Test(.mocking { mocks in mocks.register(ProfileEndpoint.self, action: .return(.init(name: "Zac"))) })
        func profileLoads() async throws {
            let profile = try await URLSession.shared.response(with: ProfileEndpoint())
            #expect(profile.name == "Zac")
            #expect(MockingTrait.registry?.callCount(to: ProfileEndpoint.self) == 1)
        }

        @Test(.mocking(UserEndpoint.self, action: .return(.init(id: 7, name: "one endpoint"))))
        func oneEndpointForm() async throws {
            let user = try await URLSession.shared.response(with: UserEndpoint(id: 7))
            #expect(user.name == "one endpoint")
        }

        @Test func withoutTheTraitNothingIsInstalled() {
            #expect(MockingTrait.registry == nil)
            #expect(PipelineOverrides.current.mocks == nil)
        }

        @Test(.mocking(strict: true) { _ in })
        func strictTraitRefusesUnmockedEndpoints() async throws {
            await #expect(throws: ProfileEndpoint.TaskError.self) {
                try await URLSession.shared.response(with: ProfileEndpoint())
            }
            #expect(MockingTrait.registry?.calls.map(\.wasMocked) == [false])
        }

        @Test(.mocking(UserEndpoint.self, action: .return(.init(id: 1, name: "trait"))))
        func withMockNestsInsideTheTrait() async throws {
            let inner = try await withMock(UserEndpoint.self, action: .return(.init(id: 1, name: "inner"))) {
                try await URLSession.shared.response(with: UserEndpoint(id: 1))
            }
            let outer = try await URLSession.shared.response(with: UserEndpoint(id: 1))
            #expect(inner.name == "inner")
            #expect(outer.name == "trait")
            // The trait's registry sees both calls, including the one the nested scope answered.
            #expect(MockingTrait.registry?.callCount(to: UserEndpoint.self) == 2)
        }

        // MARK: Isolation between tests running in parallel

        /// Every case gets its own registry: each registers a mock answering with its own number,
        /// waits so the cases overlap, and must see only its own mock and its own call. A registry
        /// shared between cases would answer some of them with another case's number, or count more
        /// than one call.
        @Test(.mocking { _ in }, arguments: 0..<32)
        func parallelCasesNeverSeeEachOthersMocks(number: Int) async throws {
            let registry = try #require(MockingTrait.registry)
            #expect(registry.calls.isEmpty)
            registry.register(ValueEndpoint.self, action: .delayed(seconds: 0.02, .return(.init(value: "\(number)"))))
            let value = try await URLSession.shared.response(with: ValueEndpoint("ignored"))
            #expect(value.value == "\(number)")
            #expect(registry.callCount(to: ValueEndpoint.self) == 1)
        }

        @Test(.mocking(ValueEndpoint.self, action: .delayed(seconds: 0.02, .return(.init(value: "A")))))
        func parallelTestA() async throws {
            let value = try await URLSession.shared.response(with: ValueEndpoint("x"))
            #expect(value.value == "A")
            #expect(MockingTrait.registry?.calls.count == 1)
        }

        @Test(.mocking(ValueEndpoint.self, action: .delayed(seconds: 0.02, .return(.init(value: "B")))))
        func parallelTestB() async throws {
            let value = try await URLSession.shared.response(with: ValueEndpoint("x"))
            #expect(value.value == "B")
            #expect(MockingTrait.registry?.calls.count == 1)
        }

        // MARK: On a suite

        @Suite(.mocking(ProfileEndpoint.self, action: .return(.init(name: "suite"))))
        struct OnASuite {
            @Test func suiteMocksApplyToEachTest() async throws {
                let profile = try await URLSession.shared.response(with: ProfileEndpoint())
                #expect(profile.name == "suite")
                #expect(MockingTrait.registry?.callCount(to: ProfileEndpoint.self) == 1)
            }

            @Test(.mocking(ProfileEndpoint.self, action: .return(.init(name: "test"))))
            func aTestTraitShadowsTheSuites() async throws {
                let profile = try await URLSession.shared.response(with: ProfileEndpoint())
                #expect(profile.name == "test")
            }

            @Test(.mocking(UserEndpoint.self, action: .return(.init(id: 2, name: "test"))))
            func aTestTraitAddsToTheSuites() async throws {
                let profile = try await URLSession.shared.response(with: ProfileEndpoint())
                let user = try await URLSession.shared.response(with: UserEndpoint(id: 2))
                #expect(profile.name == "suite")
                #expect(user.name == "test")
            }
        }
    }
#endif
