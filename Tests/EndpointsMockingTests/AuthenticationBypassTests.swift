import Endpoints
import EndpointsMocking
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct MockAuthenticationBypassTests {
    @Test func aMockedRequestNeverCallsTheAuthenticationMethod() async throws {
        let auth = RecordingAuth()
        let response = try await withMock(SecureEndpoint.self, action: .return(.init(secret: "mocked"))) {
            try await URLSession.shared.response(with: SecureEndpoint(), auth: auth)
        }
        #expect(response.secret == "mocked")
        #expect(auth.authenticateCount == 0)
        #expect(auth.reauthenticateCount == 0)
    }

    @Test func aMocked401DoesNotStartRefreshOrRetry() async throws {
        let auth = RecordingAuth()
        let mocks = MockRegistry()
        mocks.register(SecureEndpoint.self, action: .returnError(.init(code: 401, message: "expired"), status: 401))
        await withMock(mocks) {
            await #expect(throws: SecureEndpoint.TaskError.self) {
                _ = try await URLSession.shared.response(with: SecureEndpoint(), auth: auth)
            }
        }
        #expect(mocks.callCount(to: SecureEndpoint.self) == 1)
        #expect(auth.authenticateCount == 0)
        #expect(auth.reauthenticateCount == 0)
    }

    @Test func anUnmockedRequestInTheSameScopeIsAuthenticated() async throws {
        let server = try TestServer.withMockingRoutes()
        defer { server.stop() }
        let auth = RecordingAuth()
        try await Loopback.with(server) {
            try await withMock(UserEndpoint.self, action: .return(.init(id: 1, name: "x"))) {
                let response = try await URLSession.shared.response(with: SecureEndpoint(), auth: auth)
                #expect(response.secret == "from server")
            }
        }
        #expect(auth.authenticateCount == 1)
        #expect(server.requests.first?.header("Authorization") == "Bearer recorded")
    }

    @Test func simulatingAnAuthenticationFailure() async throws {
        let auth = RecordingAuth()
        await withMock(SecureEndpoint.self, action: .throw(.authenticationError(.notAuthenticated))) {
            await #expect {
                _ = try await URLSession.shared.response(with: SecureEndpoint(), auth: auth)
            } throws: { error in
                guard case .authenticationError(.notAuthenticated) = error as? SecureEndpoint.TaskError else {
                    return false
                }
                return true
            }
        }
        #expect(auth.authenticateCount == 0)
    }
}
