import Endpoints
import EndpointsMocking
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The refresh flow, tested with the fake transport only: the real JWTAuth, pipeline and retry.
@Suite struct FakeJWTRefreshFlowTests {
    /// A fake backend: `/v1/me` accepts only `accessToken`; `/v1/token/refresh` swaps `refreshToken`
    /// for the next pair.
    static func backend(accepting accessToken: String = "new-access", refreshToken: String = "refresh-1")
        -> FakeHTTPTransport
    {
        let fake = FakeHTTPTransport()
        fake.register(.get, "/v1/me") { request in
            request.header("Authorization") == "Bearer \(accessToken)"
                ? .json(MeEndpoint.Response(name: "Zac"))
                : .json(APIError(code: 401, message: "expired"), status: 401)
        }
        fake.register(.post, "/v1/token/refresh") { request in
            let body = try request.decodeBody(TokenRefreshEndpoint.Body.self)
            guard body.refreshToken == refreshToken else {
                return .json(APIError(code: 400, message: "bad refresh token"), status: 400)
            }
            return .json(TokenRefreshEndpoint.Response(access: accessToken, refresh: "refresh-2"))
        }
        return fake
    }

    @Test func a401RefreshesOnceAndRetriesWithTheNewToken() async throws {
        let fake = Self.backend()
        let events = Counter()
        let auth = makeJWTAuth(events: events)
        let me = try await withFakeTransport(fake) {
            try await URLSession.shared.response(with: MeEndpoint(), auth: auth)
        }
        #expect(me.name == "Zac")
        #expect(fake.requests(.post, "/v1/token/refresh").count == 1)
        let attempts = fake.requests(.get, "/v1/me")
        #expect(attempts.map { $0.header("Authorization") } == ["Bearer old-access", "Bearer new-access"])
        #expect(attempts.map { $0.context?.authenticationAttempt } == [1, 2])
        #expect(auth.tokens == .init(accessToken: "new-access", refreshToken: "refresh-2"))
        #expect(events.value(of: "tokensUpdated") == 1)
        #expect(events.value(of: "refreshFailed") == 0)
    }

    @Test func concurrentRequestsShareOneRefresh() async throws {
        let fake = Self.backend()
        let auth = makeJWTAuth(events: Counter())
        let names = try await withFakeTransport(fake) {
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await URLSession.shared.response(with: MeEndpoint(), auth: auth).name }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(names == Array(repeating: "Zac", count: 8))
        #expect(fake.requests(.post, "/v1/token/refresh").count == 1)
    }

    @Test func aFailedRefreshSurfacesAsRefreshFailed() async throws {
        let fake = Self.backend(refreshToken: "some-other-token")
        let events = Counter()
        let auth = makeJWTAuth(events: events)
        await withFakeTransport(fake) {
            await #expect {
                _ = try await URLSession.shared.response(with: MeEndpoint(), auth: auth)
            } throws: { error in
                guard case .authenticationError(.refreshFailed) = error as? MeEndpoint.TaskError else { return false }
                return true
            }
        }
        #expect(fake.requests(.get, "/v1/me").count == 1)
        #expect(events.value(of: "refreshFailed") == 1)
    }

    @Test func theRefreshEndpointCanBeATypedMockWhileTheRestIsFake() async throws {
        let fake = Self.backend()
        let mocks = MockRegistry()
        mocks.register(TokenRefreshEndpoint.self, action: .return(.init(access: "new-access", refresh: "mocked")))
        let auth = makeJWTAuth(events: Counter())
        let me = try await withFakeTransport(fake) {
            try await withMock(mocks) {
                try await URLSession.shared.response(with: MeEndpoint(), auth: auth)
            }
        }
        #expect(me.name == "Zac")
        #expect(mocks.callCount(to: TokenRefreshEndpoint.self) == 1)
        #expect(mocks.calls(to: TokenRefreshEndpoint.self).first?.body.refreshToken == "refresh-1")
        #expect(fake.requests(.post, "/v1/token/refresh").isEmpty)
        #expect(auth.tokens?.refreshToken == "mocked")
    }
}
