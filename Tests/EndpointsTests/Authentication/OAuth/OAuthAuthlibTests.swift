import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every grant against Authlib, a real OAuth 2.0 authorization server, over loopback; each test
/// registers its own client, so the token requests it counts are its own.
@Suite(
    .enabled(
        if: Authlib.url != nil,
        "AUTHLIB_URL is not set; run `scripts/authlib.sh run swift test` (scripts/test.sh does) to include the Authlib suite"
    )
)
struct OAuthAuthlibTests {
    private func resource(_ auth: OAuth) async throws(AuthlibResource.TaskError) -> AuthlibResource.Response {
        try await URLSession.shared.response(with: AuthlibResource(), auth: auth)
    }

    @Test(arguments: [
        ("client_secret_basic", OAuth.Provider.ClientAuthentication.basic), ("client_secret_post", .post),
    ])
    func clientCredentialsFetchOnFirstUseAndRenewOnExpiry(
        method: String, authentication: OAuth.Provider.ClientAuthentication
    ) async throws {
        let client = try await Authlib.register(method, grants: ["client_credentials"])
        let clock = OAuthTestClock()
        let auth = OAuth.testing(client.provider(authentication), .clientCredentials(scopes: ["read"]), clock: clock)
        #expect(auth.tokens == nil)

        let answer = try await resource(auth)
        #expect(answer.client_id == client.client_id)
        #expect(answer.scope == "read")
        #expect(auth.grantedScopes == ["read"])
        _ = try await resource(auth)
        #expect(try await Authlib.tokenRequests(client) == ["client_credentials": 1])

        clock.advance(3600)  // Authlib's tokens last 3600 s: within the 30 s leeway now.
        _ = try await resource(auth)
        #expect(try await Authlib.tokenRequests(client) == ["client_credentials": 2])

        // Logging out revokes the token; a service signs in again on its next request.
        let revoked = try #require(auth.tokens?.accessToken)
        await auth.logOut()
        #expect(try await Authlib.resourceStatus(with: revoked) == 401)
        _ = try await resource(auth)
        #expect(try await Authlib.tokenRequests(client) == ["client_credentials": 3])
    }

    @Test func aServerDeclaresItAsAStaticLetAndAdHocRequestsUseIt() async throws {
        let answer = try await URLSession.shared.response(with: AuthlibResource())
        #expect(answer.client_id == "fixed-service")
        let adHoc = Request<AuthlibResource.Response>.get(
            RequestTarget(Authlib.base.appendingPathComponent("resource").absoluteString)
        )
        .auth(AuthlibServer.auth)
        #expect(try await URLSession.shared.response(for: adHoc).client_id == "fixed-service")
        let viaClient = try await EndpointClient(session: .shared).response(with: AuthlibResource())
        #expect(viaClient.client_id == "fixed-service")
    }

    @Test(arguments: ["none", "client_secret_basic", "client_secret_post"])
    func authorizationCodeWithPKCE(method: String) async throws {
        let client = try await Authlib.register(method, grants: ["authorization_code", "refresh_token"])
        let callbacks = OAuthCallbacks()
        let auth = OAuth.testing(
            client.provider(method == "client_secret_post" ? .post : .basic),
            .authorizationCode(redirectURI: client.redirectURI, scopes: ["read", "write"]), callbacks: callbacks)

        let url = try auth.authorizationURL()
        let query = Dictionary(
            uniqueKeysWithValues: (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [])
                .map { ($0.name, $0.value ?? "") })
        #expect(query["code_challenge_method"] == "S256")
        #expect(query["code_challenge"]?.count == 43)
        #expect(query["code_verifier"] == nil)
        #expect(query["state"]?.isEmpty == false)
        #expect(query["scope"] == "read write")

        let callback = try await Authlib.browse(url)
        try await auth.completeAuthorization(callbackURL: callback)
        #expect(callbacks.updateCount == 1)
        #expect(callbacks.updated.withLock { $0.first } == auth.tokens)
        let answer = try await resource(auth)
        #expect(answer.user == "alice")
        #expect(answer.scope == "read write")
        #expect(auth.grantedScopes == ["read", "write"])

        // The same callback again: its state was used.
        await #expect(
            throws: OAuthError.invalidCallback(reason: "its state does not match an authorization this method started")
        ) {
            try await auth.completeAuthorization(callbackURL: callback)
        }
    }

    @Test func pkceWithAWrongVerifierIsRefused() async throws {
        let client = try await Authlib.register("none", grants: ["authorization_code"])
        let auth = OAuth.testing(client.provider(), .authorizationCode(redirectURI: client.redirectURI))
        let callback = try await Authlib.browse(try auth.authorizationURL())
        let code = try #require(
            URLComponents(url: callback, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value
        )

        let wrong = OAuth.randomURLSafe(byteCount: 32)
        await #expect {
            try await auth.exchange(code: code, verifier: wrong, redirectURI: client.redirectURI)
        } throws: { error in
            guard case .invalidGrant = error as? OAuthError else { return false }
            return true
        }
        #expect(auth.tokens == nil)
    }

    /// 1,000 requests find the token expired: one refresh; Authlib rotates the refresh token and
    /// revokes the old one, and the next round of concurrent requests refreshes with the new one.
    @Test func concurrentRequestsOnAnExpiredTokenMakeOneRefreshAndFollowRotation() async throws {
        let client = try await Authlib.register("none", grants: ["authorization_code", "refresh_token"])
        let clock = OAuthTestClock()
        let callbacks = OAuthCallbacks()
        let auth = OAuth.testing(
            client.provider(), .authorizationCode(redirectURI: client.redirectURI, scopes: ["read"]), clock: clock,
            callbacks: callbacks)
        try await auth.completeAuthorization(callbackURL: try await Authlib.browse(try auth.authorizationURL()))
        let first = try #require(auth.tokens)

        clock.advance(3600)
        let failures = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<1000 { group.addTask { (try? await resource(auth)) == nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(failures == 0)
        #expect(try await Authlib.tokenRequests(client) == ["authorization_code": 1, "refresh_token": 1])
        let second = try #require(auth.tokens)
        #expect(second.refreshToken != first.refreshToken)
        #expect(callbacks.updateCount == 2)  // the login, then the one refresh

        clock.advance(3600)
        let secondRound = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<100 { group.addTask { (try? await resource(auth)) == nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(secondRound == 0)
        #expect(try await Authlib.tokenRequests(client)["refresh_token"] == 2)

        // The rotated-out refresh token is single-use: a session started from it ends at once.
        let staleCallbacks = OAuthCallbacks()
        let stale = OAuth.testing(client.provider(), .refreshToken(first.refreshToken), callbacks: staleCallbacks)
        await #expect(throws: AuthlibResource.TaskError.self) { try await resource(stale) }
        await staleCallbacks.nextFailure()
        #expect(stale.tokens == nil)
        #expect(staleCallbacks.failures.withLock { $0 }.first?.contains("invalid_grant") == true)
    }

    /// A `static let`-style method whose session Authlib ended (a rotated-out refresh token) signs
    /// in again with tokens from another sign-in, handed over with `setTokens`.
    @Test func setTokensSignsInAgainAfterInvalidGrant() async throws {
        let client = try await Authlib.register("client_secret_basic", grants: ["authorization_code", "refresh_token"])
        let login = OAuth.testing(
            client.provider(), .authorizationCode(redirectURI: client.redirectURI, scopes: ["read"]))
        try await login.completeAuthorization(callbackURL: try await Authlib.browse(try login.authorizationURL()))
        let first = try #require(login.tokens)
        let callbacks = OAuthCallbacks()
        let auth = OAuth.testing(client.provider(), .refreshToken(first.refreshToken), callbacks: callbacks)
        #expect(try await resource(auth).user == "alice")  // rotates the refresh token: `first`'s is revoked

        let stale = OAuth.testing(client.provider(), .refreshToken(first.refreshToken), callbacks: callbacks)
        await #expect(throws: AuthlibResource.TaskError.self) { try await resource(stale) }
        await callbacks.nextFailure()
        #expect(stale.tokens == nil)

        // Signed in again without a new instance: the saved tokens of the live session.
        let saved = try #require(auth.tokens)
        let before = try await Authlib.tokenRequests(client)
        await stale.setTokens(saved)
        #expect(try await resource(stale).user == "alice")
        #expect(try await Authlib.tokenRequests(client) == before, "the tokens handed over are used as they are")
    }

    @Test func aRefreshTokenGrantStartsFromASavedRefreshToken() async throws {
        let client = try await Authlib.register("client_secret_basic", grants: ["authorization_code", "refresh_token"])
        let login = OAuth.testing(
            client.provider(), .authorizationCode(redirectURI: client.redirectURI, scopes: ["read"]))
        try await login.completeAuthorization(callbackURL: try await Authlib.browse(try login.authorizationURL()))
        let saved = try #require(login.tokens?.refreshToken)

        let callbacks = OAuthCallbacks()
        let auth = OAuth.testing(client.provider(), .refreshToken(saved), callbacks: callbacks)
        #expect(try await resource(auth).user == "alice")
        #expect(callbacks.updateCount == 1)
        #expect(auth.tokens?.refreshToken != saved)
    }

    @Test func deviceFlowHonoursIntervalAndSlowDown() async throws {
        let client = try await Authlib.register("none", grants: [Authlib.deviceGrant, "refresh_token"])
        let clock = OAuthTestClock(frozenAt: Date(timeIntervalSince1970: 1_800_000_000))
        let shown = Locked<String?>(nil)
        let waits = Locked<[TimeInterval]>([])
        let auth = OAuth.testing(client.provider(), .deviceCode(scopes: ["read"]), clock: clock) { seconds in
            // The user approves during the third wait: poll 1 is pending, poll 2 (sooner than
            // Authlib's 30 s interval) is slow_down, poll 3 gets the tokens.
            let count = waits.withLock { waits in
                waits.append(seconds)
                return waits.count
            }
            if count == 3, let code = shown.withLock({ $0 }) { try await Authlib.decide(userCode: code) }
        }
        try await auth.authorizeDevice { device in
            shown.withLock { $0 = device.userCode }
            #expect(device.verificationURI.path == "/device")
            // What a QR code shows: the URI with the code in it; and the code's lifetime (1800 s).
            let complete = device.verificationURIComplete.flatMap {
                URLComponents(url: $0, resolvingAgainstBaseURL: false)
            }
            #expect(complete?.path == "/device")
            #expect(complete?.queryItems == [URLQueryItem(name: "user_code", value: device.userCode)])
            #expect(device.expiresAt == clock.now.addingTimeInterval(1800))
        }
        #expect(waits.withLock { $0 } == [30, 30, 35])
        #expect(try await resource(auth).user == "alice")
    }

    @Test(arguments: [false, true])
    func deviceFlowEndsWhenDeniedOrExpired(expire: Bool) async throws {
        let client = try await Authlib.register("none", grants: [Authlib.deviceGrant])
        let shown = Locked<String?>(nil)
        let auth = OAuth.testing(client.provider(), .deviceCode()) { _ in
            if let code = shown.withLock({ $0 }) {
                try await Authlib.decide(userCode: code, approve: false, expire: expire)
            }
        }
        await #expect(throws: expire ? OAuthError.expired : .accessDenied) {
            try await auth.authorizeDevice { device in shown.withLock { $0 = device.userCode } }
        }
        #expect(auth.tokens == nil)
    }

    @Test func logOutRevokesBothTokens() async throws {
        let client = try await Authlib.register("client_secret_basic", grants: ["authorization_code", "refresh_token"])
        let auth = OAuth.testing(client.provider(), .authorizationCode(redirectURI: client.redirectURI))
        try await auth.completeAuthorization(callbackURL: try await Authlib.browse(try auth.authorizationURL()))
        let tokens = try #require(auth.tokens)
        #expect(try await Authlib.resourceStatus(with: tokens.accessToken) == 200)

        await auth.logOut()
        #expect(auth.tokens == nil)
        #expect(auth.grantedScopes.isEmpty)
        #expect(try await Authlib.resourceStatus(with: tokens.accessToken) == 401)
        let revived = OAuth.testing(client.provider(), .refreshToken(tokens.refreshToken))
        await #expect(throws: AuthlibResource.TaskError.self) { try await resource(revived) }

        // Signed out for good: a request fails without a token request.
        let before = try await Authlib.tokenRequests(client)
        await #expect(throws: AuthlibResource.TaskError.self) { try await resource(auth) }
        #expect(try await Authlib.tokenRequests(client) == before)
    }

    @Test func aWrongSecretIsAConfigurationErrorThatSaysSo() async throws {
        let client = try await Authlib.register("client_secret_basic", grants: ["client_credentials"])
        let provider = OAuth.Provider(
            tokenURL: Authlib.base.appendingPathComponent("token"), clientID: client.client_id, clientSecret: "wrong")
        let callbacks = OAuthCallbacks()
        let auth = OAuth.testing(provider, .clientCredentials(), callbacks: callbacks)
        do {
            _ = try await resource(auth)
            Issue.record("a wrong secret was accepted")
        } catch {
            guard case .authenticationError(.refreshFailed(let underlying)) = error,
                case .misconfigured(let code, _)? = underlying as? OAuthError
            else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(code == "invalid_client")
            #expect("\(underlying)".contains("check the client ID, the secret"))
        }
        #expect(callbacks.failureCount == 0)
    }
}
