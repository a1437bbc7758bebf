import Endpoints
import EndpointsMocking
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct MockRecordingTests {
    @Test func callsAreRecordedInOrderWithTheirValues() async throws {
        let mocks = MockRegistry()
        mocks.register(UserEndpoint.self, action: .generate { .init(id: $0.pathComponents.id, name: "u") })
        mocks.register(RefreshEndpoint.self, action: .return(.init(access: "a", refresh: "r")))
        try await withMock(mocks) {
            _ = try await URLSession.shared.response(with: UserEndpoint(id: 1))
            _ = try await URLSession.shared.response(with: RefreshEndpoint(token: "t1"))
            _ = try await URLSession.shared.response(with: UserEndpoint(id: 2))
        }
        #expect(mocks.calls.map(\.endpointName) == ["UserEndpoint", "RefreshEndpoint", "UserEndpoint"])
        #expect(mocks.calls(to: UserEndpoint.self).map(\.pathComponents.id) == [1, 2])
        #expect(mocks.callCount(to: RefreshEndpoint.self) == 1)
        #expect(mocks.calls(to: RefreshEndpoint.self).first?.token == "t1")
        #expect(mocks.calls.map(\.wasMocked) == [true, true, true])
        #expect(mocks.calls.first?.endpointType == UserEndpoint.self)
        #expect(mocks.calls.first?.endpoint(as: UserEndpoint.self)?.pathComponents.id == 1)
    }

    @Test func passThroughCallsAreRecordedAsNotMocked() async throws {
        let server = try TestServer.withMockingRoutes()
        defer { server.stop() }
        let mocks = MockRegistry()
        try await Loopback.with(server) {
            try await withMock(mocks) {
                _ = try await URLSession.shared.response(with: ValueEndpoint("v"))
            }
        }
        #expect(mocks.calls.map(\.description) == ["ValueEndpoint (passed through)"])
    }

    @Test func anOuterScopeSeesCallsAnsweredByANestedScope() async throws {
        let outer = MockRegistry()
        outer.register(RefreshEndpoint.self, action: .return(.init(access: "a", refresh: "r")))
        let inner = MockRegistry()
        inner.register(ProfileEndpoint.self, action: .return(.init(name: "Zac")))
        try await withMock(outer) {
            try await withMock(inner) {
                _ = try await URLSession.shared.response(with: ProfileEndpoint())
                _ = try await URLSession.shared.response(with: RefreshEndpoint())
            }
        }
        #expect(outer.calls.map(\.endpointName) == ["ProfileEndpoint", "RefreshEndpoint"])
        #expect(inner.calls.map(\.endpointName) == ["ProfileEndpoint", "RefreshEndpoint"])
        #expect(outer.callCount(to: RefreshEndpoint.self) == 1)
    }

    @Test func callsFromConcurrentChildrenAreAllRecorded() async throws {
        let mocks = MockRegistry()
        mocks.register(UserEndpoint.self, action: .generate { .init(id: $0.pathComponents.id, name: "u") })
        try await withMock(mocks) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for id in 0..<50 {
                    group.addTask { _ = try await URLSession.shared.response(with: UserEndpoint(id: id)) }
                }
                try await group.waitForAll()
            }
        }
        #expect(Set(mocks.calls(to: UserEndpoint.self).map(\.pathComponents.id)) == Set(0..<50))
        mocks.removeAllCalls()
        #expect(mocks.calls.isEmpty)
        #expect(mocks.hasMock(for: UserEndpoint.self))
    }
}
