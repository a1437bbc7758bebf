import Endpoints
import EndpointsMocking
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The snippets of EndpointsMocking.docc/Mocking.md, compiled and run as written there.
@Suite struct MockingArticleTests {
    @Test func mockOneEndpoint() async throws {
        let profile = try await withMock(ProfileEndpoint.self, action: .return(.init(name: "Zac"))) {
            try await URLSession.shared.response(with: ProfileEndpoint())
        }
        #expect(profile.name == "Zac")
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration, ContinuousClock
    @Test func theActionsCompile() {
        let results: [String] = ["a"]
        let feed: [String] = ["b"]
        let errors: [MockAction<UserEndpoint>] = [
            .returnError(APIError(code: 423, message: "Locked"), status: 423),
            .throw(.internetConnectionOffline),
            .generate { endpoint in
                UserEndpoint.Response(id: endpoint.pathComponents.id, name: "User \(endpoint.pathComponents.id)")
            },
        ]
        let delayed: MockAction<FeedEndpoint> = .delayed(by: .milliseconds(50), .return(results))
        let sequence: MockAction<FeedEndpoint> = .sequence([.throw(.internetConnectionOffline), .return(feed)])
        #expect(errors.count == 3)
        _ = (delayed, sequence)
    }

    @MainActor @Test func mockAFlowOfSeveralEndpoints() async throws {
        try await withMock { mocks in
            mocks.register(LoginEndpoint.self, action: .return(.init(accessToken: "a", refreshToken: "r")))
            mocks.register(ProfileEndpoint.self, action: .return(.init(name: "Zac")))
            mocks.register(SettingsEndpoint.self, action: .returnError(status: 404))
        } test: {
            let model = AccountModel()
            try await model.signIn(user: "zac", password: "pw")
            #expect(model.name == "Zac")
            #expect(model.settings == nil)
        }
    }

    @MainActor @Test func simulateAnAuthenticationFailure() async throws {
        await withMock(ProfileEndpoint.self, action: .throw(.authenticationError(.notAuthenticated))) {
            let model = AccountModel()
            await model.load()
            #expect(model.needsSignIn)
        }
    }

    @Test func testTheRefreshFlow() async throws {
        let fake = FakeHTTPTransport()
        fake.register(.get, "/v1/me") { request in
            request.header("Authorization") == "Bearer new-access"
                ? .json(MeEndpoint.Response(name: "Zac"))
                : .json(APIError(code: 401, message: "expired"), status: 401)
        }
        fake.register(
            .post,
            "/v1/token/refresh",
            .json(TokenRefreshEndpoint.Response(access: "new-access", refresh: "r2"))
        )

        let auth = JWTAuth(
            initialTokens: .init(accessToken: "old-access", refreshToken: "r1"),
            refreshHandler: { refreshToken in
                let response = try await URLSession.shared.response(
                    with: TokenRefreshEndpoint(refreshToken: refreshToken)
                )
                return JWTAuth.TokenPair(accessToken: response.access, refreshToken: response.refresh)
            }
        )

        let me = try await withFakeTransport(fake) {
            try await URLSession.shared.response(with: MeEndpoint(), auth: auth)
        }
        #expect(me.name == "Zac")
        #expect(fake.requests(.post, "/v1/token/refresh").count == 1)
        let authorizations = fake.requests(.get, "/v1/me").map { $0.header("Authorization") }
        #expect(authorizations == ["Bearer old-access", "Bearer new-access"])
    }

    @MainActor @Test func assertWhatWasCalled() async throws {
        let mocks = MockRegistry()
        mocks.register(RefreshEndpoint.self, action: .return(.init(access: "new", refresh: "next")))
        mocks.register(ProfileEndpoint.self, action: .return(.init(name: "Zac")))

        try await withMock(mocks) {
            try await AccountModel().reload()
        }

        #expect(mocks.callCount(to: RefreshEndpoint.self) == 1)
        #expect(mocks.calls(to: RefreshEndpoint.self).first?.token == "r1")
        #expect(mocks.calls.map(\.endpointName) == ["RefreshEndpoint", "ProfileEndpoint"])
    }

    @Test func mixBoth() async throws {
        let fake = FakeJWTRefreshFlowTests.backend()
        let auth = makeJWTAuth(events: Counter())
        try await withFakeTransport(fake) {
            try await withMock(
                TokenRefreshEndpoint.self,
                action: .return(.init(access: "new-access", refresh: "mocked"))
            ) {
                _ = try await URLSession.shared.response(with: MeEndpoint(), auth: auth)
            }
        }
        #expect(auth.tokens?.refreshToken == "mocked")
    }
}
