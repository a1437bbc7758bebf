import Endpoints
import EndpointsMocking
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct MockStrictModeTests {
    @Test func anUnmockedEndpointFailsWithoutReachingTheNetwork() async throws {
        let server = try TestServer.withMockingRoutes()
        defer { server.stop() }
        try await Loopback.with(server) {
            try await withMock(strict: true) { mocks in
                mocks.register(UserEndpoint.self, action: .return(.init(id: 1, name: "ok")))
            } test: {
                let user = try await URLSession.shared.response(with: UserEndpoint(id: 1))
                #expect(user.name == "ok")
                do throws(ValueEndpoint.TaskError) {
                    _ = try await URLSession.shared.response(with: ValueEndpoint("x"))
                    Issue.record("an unmocked endpoint in a strict scope must fail")
                } catch {
                    guard case .middlewareError(let underlying) = error else {
                        Issue.record("expected .middlewareError, got \(error)")
                        return
                    }
                    #expect(
                        underlying as? UnmockedEndpointError == UnmockedEndpointError(endpointName: "ValueEndpoint"))
                    #expect("\(error)".contains("ValueEndpoint"))
                }
            }
        }
        #expect(server.requestCount == 0)
    }

    @Test func strictnessCarriesIntoNestedScopes() async throws {
        try await withMock(strict: true) { _ in
        } test: {
            try await withMock(UserEndpoint.self, action: .return(.init(id: 1, name: "ok"))) {
                let user = try await URLSession.shared.response(with: UserEndpoint(id: 1))
                #expect(user.name == "ok")
                await #expect(throws: ValueEndpoint.TaskError.self) {
                    _ = try await URLSession.shared.response(with: ValueEndpoint("x"))
                }
            }
        }
    }

    @Test func removingAMockInAStrictRegistryMakesItFail() async throws {
        let mocks = MockRegistry(strict: true)
        mocks.register(MyEndpoint.self, action: .return(.init(resourceId: "1", resourceName: "n")))
        try await withMock(mocks) {
            _ = try await URLSession.shared.response(with: MyEndpoint())
            mocks.removeMock(for: MyEndpoint.self)
            await #expect(throws: MyEndpoint.TaskError.self) {
                _ = try await URLSession.shared.response(with: MyEndpoint())
            }
        }
        #expect(mocks.calls.map(\.wasMocked) == [true, false])
    }
}
