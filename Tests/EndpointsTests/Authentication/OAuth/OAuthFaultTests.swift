import EndpointsMocking
import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `OAuth` against a token endpoint that misbehaves on purpose (`EndpointsTestServer`).
@Suite struct OAuthFaultTests {
    /// Each answer the library must refuse before sending anything with it, and what the reason says.
    static let badAnswers: [(String, String)] = [
        ("<html>not json</html>", "not a JSON object"),
        (#"["access_token"]"#, "not a JSON object"),
        (#""token_type": "Bearer""#, "no access_token"),
        (#""access_token": 42, "token_type": "Bearer""#, "access_token is not a string"),
        (#""access_token": "a", "token_type": "mac""#, "token_type is mac, not Bearer"),
        (#""access_token": "a""#, "no token_type"),
        (#""access_token": "a", "token_type": "Bearer", "expires_in": -1"#, "expires_in is negative"),
        (#""access_token": "a", "token_type": "Bearer", "expires_in": 1.5"#, "not a whole number"),
        (#""access_token": "a", "token_type": "Bearer", "expires_in": "an hour""#, "a string that is not a whole"),
        (#""access_token": "a", "token_type": "Bearer", "expires_in": 1e20"#, "not a whole number"),
        (#""access_token": "a", "token_type": "Bearer", "expires_in": 1e400"#, "expires_in is not a number"),
        (#""access_token": "a", "token_type": "Bearer", "expires_in": 99999999999"#, "larger than 2147483647"),
        (#""access_token": "a\r\nX-Injected: 1", "token_type": "Bearer""#, "characters a header cannot carry"),
        (#""access_token": "a\nb", "token_type": "Bearer""#, "characters a header cannot carry"),
        (#""access_token": "a\u0000b", "token_type": "Bearer""#, "characters a header cannot carry"),
        (#""access_token": "tokén", "token_type": "Bearer""#, "characters a header cannot carry"),
        (#""access_token": "", "token_type": "Bearer""#, "access token is empty"),
        (#""access_token": "a", "token_type": "Bearer", "refresh_token": "r\r\n""#, "refresh token"),
    ]

    @Test(arguments: badAnswers)
    func aBadTokenAnswerIsATypedErrorAndNothingIsSent(members: String, reason: String) async throws {
        let body = members.hasPrefix("{") || members.hasPrefix("[") || members.hasPrefix("<") ? members : "{\(members)}"
        let server = try FakeAuthorizationServer(.json(raw: body))
        defer { server.stop() }
        let callbacks = OAuthCallbacks()
        let auth = OAuth.testing(server.provider(), .clientCredentials(), callbacks: callbacks)
        do throws(EndpointTaskError<EmptyCodable>) {
            try await server.api(auth)
            Issue.record("a bad answer was used")
        } catch {
            guard case .invalidResponse(let message)? = error.oauthError else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(message.contains(reason), "\(message)")
            #expect(!message.contains("X-Injected"))
        }
        #expect(server.apiCount == 0)
        #expect(callbacks.updateCount == 0)
    }

    @Test func tokenTypeIsCaseInsensitiveAndExpiresInSetsTheExpiry() async throws {
        let server = try FakeAuthorizationServer(
            FakeAuthorizationServer.tokens(#""access_token": "t1", "token_type": "bEaReR", "expires_in": 100"#))
        defer { server.stop() }
        let clock = OAuthTestClock()
        let auth = OAuth.testing(server.provider(), .clientCredentials(scopes: ["a", "b"]), clock: clock)
        try await server.api(auth)
        #expect(server.apiAuthorizations.withLock { $0 } == ["Bearer t1"])
        let expiresAt = try #require(auth.tokens?.expiresAt)
        #expect(abs(expiresAt.timeIntervalSince(clock.now) - 100) < 60)
        #expect(auth.grantedScopes == ["a", "b"])  // no `scope` in the answer: the requested ones
        #expect(server.form(0)["scope"] == "a b")

        clock.advance(71)  // 29 s left: inside the 30 s leeway, renewed before sending.
        try await server.api(auth)
        #expect(server.tokenRequestCount == 2)
    }

    /// A 503, `temporarily_unavailable` and a cut connection during refresh keep the tokens, and
    /// do not log the user out; the first request after the back-off (1 s) refreshes with the
    /// same refresh token.
    @Test(arguments: ["503", "temporarily_unavailable", "cut"])
    func aTransientFailureKeepsTheTokens(fault: String) async throws {
        let server = try FakeAuthorizationServer(
            fault == "503"
                ? .status(503)
                : FakeAuthorizationServer.tokens(#""error": "temporarily_unavailable""#, status: 400))
        defer { server.stop() }
        let callbacks = OAuthCallbacks()
        let expired = FakeAuthorizationServer.expired
        let clock = OAuthTestClock(frozenAt: Date(timeIntervalSince1970: 1_800_000_000))
        // `/close-mid-body` declares 1000 bytes, sends 10 and closes the connection.
        let failing = OAuth.testing(
            server.provider(tokenPath: fault == "cut" ? "/close-mid-body" : "/token"), .refreshToken("unused"),
            initialTokens: expired, clock: clock, callbacks: callbacks)
        do throws(EndpointTaskError<EmptyCodable>) {
            try await server.api(failing)
            Issue.record("the request succeeded")
        } catch {
            guard case .unavailable? = error.oauthError else {
                Issue.record("unexpected \(error)")
                return
            }
        }
        #expect(failing.tokens == expired)
        #expect(server.apiCount == 0)
        #expect(callbacks.failureCount == 0)

        if fault != "cut" {
            server.answer(FakeAuthorizationServer.good)
            clock.advance(OAuthBackOff.schedule.ceiling(forRetry: 1))
            try await server.api(failing)
            #expect(server.form(1)["refresh_token"] == "old-refresh")
            #expect(failing.tokens?.accessToken == "fresh-access")
            #expect(failing.tokens?.refreshToken == "old-refresh")  // not rotated: kept
        }
    }

    @Test func invalidGrantEndsTheSessionOnce() async throws {
        let server = try FakeAuthorizationServer(
            FakeAuthorizationServer.tokens(#""error": "invalid_grant", "error_description": "revoked""#, status: 400))
        defer { server.stop() }
        let callbacks = OAuthCallbacks()
        let auth = OAuth.testing(
            server.provider(), .refreshToken("unused"), initialTokens: FakeAuthorizationServer.expired,
            callbacks: callbacks)
        // The refresh ends only once all fifty wait for it: one that came later would find the
        // session already ended (`.notAuthenticated`, as the end of this test checks), and under
        // ThreadSanitizer in CI some did.
        server.holdTokenAnswers { auth.jwt.state.withLock { $0.refresh?.waiters.count ?? 0 } >= 50 }
        let failures = await withTaskGroup(of: OAuthError?.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    do throws(EndpointTaskError<EmptyCodable>) {
                        try await server.api(auth)
                        return nil
                    } catch {
                        return error.oauthError
                    }
                }
            }
            return await group.reduce(into: [OAuthError?]()) { $0.append($1) }
        }
        #expect(failures.allSatisfy { $0 == OAuthError.invalidGrant(description: "revoked") })
        await callbacks.nextFailure()
        #expect(auth.tokens == nil)
        #expect(server.tokenRequestCount == 1)

        // Signed out: fails at once, nothing sent, no second onRefreshFailed.
        await #expect {
            try await server.api(auth)
        } throws: { error in
            guard case .authenticationError(.notAuthenticated)? = error as? EndpointTaskError<EmptyCodable> else {
                return false
            }
            return true
        }
        #expect(server.tokenRequestCount == 1)
        #expect(server.apiCount == 0)
        #expect(callbacks.failureCount == 1)
    }

    @Test(arguments: [
        ("invalid_client", 401, "check the client ID"), ("unauthorized_client", 400, "not allowed this grant type"),
        ("invalid_scope", 400, "scopes are not allowed"),
    ])
    func configurationErrorsSaySoAndKeepTheTokens(code: String, status: Int, advice: String) async throws {
        let server = try FakeAuthorizationServer(
            FakeAuthorizationServer.tokens(#""error": "\#(code)""#, status: status))
        defer { server.stop() }
        let callbacks = OAuthCallbacks()
        let auth = OAuth.testing(
            server.provider(), .refreshToken("unused"), initialTokens: FakeAuthorizationServer.expired,
            callbacks: callbacks)
        do throws(EndpointTaskError<EmptyCodable>) {
            try await server.api(auth)
            Issue.record("the request succeeded")
        } catch {
            #expect(error.oauthError == .misconfigured(error: code, description: nil))
            #expect("\(error)".contains(advice))
            #expect("\(error)".contains("configuration"))
        }
        #expect(auth.tokens == FakeAuthorizationServer.expired)
        #expect(callbacks.failureCount == 0)
    }

    @Test func clientAuthenticationOnTheWire() async throws {
        let server = try FakeAuthorizationServer(FakeAuthorizationServer.good)
        defer { server.stop() }
        let id = "my client:1"
        let secret = "p@ss:wörd&=+ x"
        // client_secret_basic: RFC 6749 §2.3.1, each part form-urlencoded before base64.
        try await server.api(
            OAuth.testing(server.provider(clientID: id, secret: secret), .clientCredentials()))
        let basic = server.tokenRequests.withLock { $0[0].header("Authorization") }
        let expected = "my+client%3A1:p%40ss%3Aw%C3%B6rd%26%3D%2B+x"
        #expect(basic == "Basic " + Data(expected.utf8).base64EncodedString())
        #expect(server.form(0) == ["grant_type": "client_credentials"])

        try await server.api(
            OAuth.testing(server.provider(clientID: id, secret: secret, authentication: .post), .clientCredentials()))
        #expect(server.tokenRequests.withLock { $0[1].header("Authorization") } == nil)
        #expect(server.form(1) == ["grant_type": "client_credentials", "client_id": id, "client_secret": secret])

        try await server.api(OAuth.testing(server.provider(clientID: id, secret: nil), .clientCredentials()))
        #expect(server.tokenRequests.withLock { $0[2].header("Authorization") } == nil)
        #expect(server.form(2) == ["grant_type": "client_credentials", "client_id": id])
    }

    @Test func secretsAppearInNoDescriptionMirrorLogOrCURL() async throws {
        let server = try FakeAuthorizationServer(
            FakeAuthorizationServer.tokens(
                #""access_token": "AT-s3cr3t", "refresh_token": "RT-s3cr3t", "token_type": "Bearer", "expires_in": 60"#)
        )
        defer { server.stop() }
        let lines = Locked<[String]>([])
        let logging = LoggingMiddleware(level: .bodies) { line in lines.withLock { $0.append(line) } }
        let auth = OAuth.testing(
            server.provider(secret: "CS-s3cr3t", authentication: .post), .refreshToken("RT0-s3cr3t"))
        try await server.api(auth, middleware: [logging])
        #expect(auth.tokens?.accessToken == "AT-s3cr3t")

        var dumped = ""
        dump(auth, to: &dumped)
        dump(auth.tokens, to: &dumped)
        dump(OAuth.Grant.refreshToken("RT0-s3cr3t"), to: &dumped)
        let request = try await auth.authenticate(request: URLRequest(url: server.http.url("/api")))
        let texts =
            [
                String(describing: auth), String(reflecting: auth), "\(auth.tokens as Any)",
                "\(OAuth.Grant.refreshToken("RT0-s3cr3t"))", dumped,
                request.cURLDescription(),
            ] + lines.withLock { $0 } + Mirror(reflecting: auth).children.map { "\($0.value)" }
        for text in texts {
            for secret in ["s3cr3t"] { #expect(!text.contains(secret), "\(text)") }
        }
        // The description comes from the mirror and reads as the fields it shows.
        let description = String(describing: auth)
        #expect(description.hasPrefix("OAuth(provider: Endpoints.OAuth.Provider(tokenURL: "), "\(description)")
        #expect(description.contains("clientSecret: <redacted>"), "\(description)")
        #expect(description.contains("grant: refreshToken(<redacted>)"), "\(description)")
        // The token request went past the middleware: the log shows only /api.
        #expect(lines.withLock { $0 }.allSatisfy { !$0.contains("/token") })
        #expect(lines.withLock { $0 }.contains { $0.contains("/api") })
    }

    @Test func aRequestFromOnTokensUpdatedWithTheSameMethodFailsInsteadOfHanging() async throws {
        let server = try FakeAuthorizationServer(FakeAuthorizationServer.good)
        defer { server.stop() }
        let inner = Locked<(any Error)?>(nil)
        let holder = Locked<OAuth?>(nil)
        let auth = OAuth(
            provider: server.provider(), grant: .clientCredentials(),
            onTokensUpdated: { _ in
                guard let auth = holder.withLock({ $0 }) else { return }
                do {
                    try await server.api(auth)
                } catch {
                    inner.withLock { $0 = error }
                }
            })
        holder.withLock { $0 = auth }
        try await server.api(auth)
        let error = try #require(inner.withLock { $0 })
        #expect(RefreshReentrancyError.found(in: error) != nil)
    }

    @Test func aMockedRequestNeverReachesTheTokenEndpoint() async throws {
        let server = try FakeAuthorizationServer(FakeAuthorizationServer.good)
        defer { server.stop() }
        let auth = OAuth.testing(server.provider(), .clientCredentials())
        let answer = try await withMock(
            AuthlibResource.self, action: .return(.init(user: "m", scope: "", client_id: "m"))
        ) {
            try await URLSession.shared.response(with: AuthlibResource(), auth: auth)
        }
        #expect(answer.user == "m")
        #expect(server.tokenRequestCount == 0)
    }
}

/// The flows' local parts: PKCE, the authorization URL, the callback.
@Suite struct OAuthAuthorizationCodeTests {
    @Test func s256MatchesRFC7636AppendixB() {
        // Expected values from Python's hashlib; the second input spans three SHA-256 blocks.
        #expect(
            OAuth.challenge(for: "dBjftJeZ4CVP-mB92K9uhvkNItN7Vfv9mH6cFrgSFvM")
                == "rDmigBHW2CpyFZsVO72NJIpfpNrY3yW24Q7wKO2LmuI")
        #expect(
            OAuth.challenge(for: String(repeating: "~", count: 128)) == "zNhOm5Jyonenca7bQzzpjUpwFDVrfhrbbOGCqgWA6HU")
        #expect(
            SHA256.hash(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined()
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(OAuth.randomURLSafe(byteCount: 32).count == 43)
        #expect(OAuth.randomURLSafe(byteCount: 32) != OAuth.randomURLSafe(byteCount: 32))
    }

    private func auth() -> OAuth {
        OAuth.testing(
            OAuth.Provider(
                tokenURL: URL(string: "http://127.0.0.1:9/token")!,
                authorizationURL: URL(string: "https://auth.example.com/authorize?tenant=a")!, clientID: "app id"),
            .authorizationCode(redirectURI: URL(string: "myapp://cb")!, scopes: ["openid", "profile"]))
    }

    private func state(of url: URL) -> String {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value ?? ""
    }

    @Test func theAuthorizationURLCarriesEverythingButTheVerifier() throws {
        let url = try auth().authorizationURL().absoluteString
        #expect(url.hasPrefix("https://auth.example.com/authorize?tenant=a&response_type=code&client_id=app%20id"))
        #expect(url.contains("&redirect_uri=myapp%3A%2F%2Fcb&scope=openid%20profile&state="))
        #expect(url.contains("&code_challenge_method=S256"))
    }

    @Test func callbacksThatAnswerNoAuthorizationOfOursAreRefused() async throws {
        let auth = auth()
        let state = state(of: try auth.authorizationURL())
        await #expect(
            throws: OAuthError.invalidCallback(reason: "its state does not match an authorization this method started")
        ) {
            try await auth.completeAuthorization(callbackURL: URL(string: "myapp://cb?code=c&state=forged")!)
        }
        await #expect(throws: OAuthError.accessDenied) {
            try await auth.completeAuthorization(
                callbackURL: URL(string: "myapp://cb?error=access_denied&state=\(state)")!)
        }
        let next = self.state(of: try auth.authorizationURL())
        await #expect(throws: OAuthError.invalidCallback(reason: "it has no code")) {
            try await auth.completeAuthorization(callbackURL: URL(string: "myapp://cb?state=\(next)")!)
        }
    }
}
