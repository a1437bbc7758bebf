import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `OAuth` against the servers people have (issue 37): answers a strict reading refused, and what
/// happens after a renewal fails. The token endpoint is `EndpointsTestServer`, answering as told.
@Suite struct OAuthRecoveryTests {
    /// Azure AD v1 (and others) send `expires_in` as a string of digits.
    @Test func anExpiresInStringOfDigitsIsAccepted() async throws {
        let server = try FakeAuthorizationServer(
            FakeAuthorizationServer.tokens(#""access_token": "t1", "token_type": "Bearer", "expires_in": "3599""#))
        defer { server.stop() }
        let clock = OAuthTestClock(frozenAt: Date(timeIntervalSince1970: 1_800_000_000))
        let auth = OAuth.testing(server.provider(), .clientCredentials(), clock: clock)
        for _ in 0..<5 { try await server.api(auth) }
        #expect(server.tokenRequestCount == 1)
        #expect(server.apiAuthorizations.withLock { $0 } == Array(repeating: "Bearer t1", count: 5))
        #expect(auth.tokens?.expiresAt == clock.now.addingTimeInterval(3599))
    }

    @Test(arguments: [
        (#""3599.5""#, "not a whole number"), (#""soon""#, "not a whole number"), (#""""#, "not a whole number"),
        (#"" 60""#, "not a whole number"), (#""+60""#, "not a whole number"), (#""-1""#, "negative"),
        (#""99999999999""#, "larger than 2147483647"), (#""99999999999999999999999""#, "larger than 2147483647"),
    ])
    func anExpiresInStringThatIsNotADecimalIntegerIsRefused(value: String, reason: String) async throws {
        let server = try FakeAuthorizationServer(
            FakeAuthorizationServer.tokens(#""access_token": "a", "token_type": "Bearer", "expires_in": \#(value)"#))
        defer { server.stop() }
        let auth = OAuth.testing(server.provider(), .clientCredentials())
        do throws(EndpointTaskError<EmptyCodable>) {
            try await server.api(auth)
            Issue.record("\(value) was accepted")
        } catch {
            guard case .invalidResponse(let message)? = error.oauthError else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(message.contains("expires_in"), "\(message)")
            #expect(message.contains(reason), "\(message)")
        }
        #expect(server.apiCount == 0)
    }

    /// An answer that cannot be used fails the requests that waited for it; the requests after it
    /// fail at once with the same error, without a token request, until the back-off has passed.
    @Test func aRenewalThatFailsBacksOffInsteadOfAskingForEveryRequest() async throws {
        let unusable = FakeAuthorizationServer.tokens(#""access_token": "a", "token_type": "mac""#)
        let server = try FakeAuthorizationServer(unusable)
        defer { server.stop() }
        let clock = OAuthTestClock(frozenAt: Date(timeIntervalSince1970: 1_800_000_000))
        let auth = OAuth.testing(server.provider(), .clientCredentials(), clock: clock)
        func failure() async -> OAuthError? {
            do throws(EndpointTaskError<EmptyCodable>) {
                try await server.api(auth)
                return nil
            } catch {
                return error.oauthError
            }
        }
        let first = try #require(await failure())
        for _ in 0..<20 { #expect(await failure() == first) }
        #expect(server.tokenRequestCount == 1, "one token request, not one per API request")
        #expect(server.apiCount == 0)

        // The back-off is 1 s after one failure: then one token request, which fails too: 2 s.
        clock.advance(1)
        #expect(await failure() == first)
        #expect(server.tokenRequestCount == 2)
        clock.advance(1.9)
        #expect(await failure() == first)
        #expect(server.tokenRequestCount == 2)
        clock.advance(0.1)
        server.answer(FakeAuthorizationServer.good)
        try await server.api(auth)
        #expect(server.tokenRequestCount == 3)
        #expect(server.apiCount == 1)

        // A success ends it: the next failure backs off 1 s again.
        server.answer(unusable)
        clock.advance(3600)  // the token expires
        #expect(await failure() == first)
        clock.advance(1)
        #expect(await failure() == first)
        #expect(server.tokenRequestCount == 5)

        // The user acting ends it at once.
        server.answer(FakeAuthorizationServer.good)
        await auth.setTokens(JWTAuth.TokenPair(accessToken: "", refreshToken: ""))
        try await server.api(auth)
        #expect(server.tokenRequestCount == 6)
    }

    /// A transient failure (503) backs off the same way: a struggling server is not asked again
    /// by every request.
    @Test func anUnavailableServerIsNotAskedByEveryRequest() async throws {
        let server = try FakeAuthorizationServer(.status(503))
        defer { server.stop() }
        let clock = OAuthTestClock(frozenAt: Date(timeIntervalSince1970: 1_800_000_000))
        let auth = OAuth.testing(
            server.provider(), .refreshToken("unused"), initialTokens: FakeAuthorizationServer.expired, clock: clock)
        for _ in 0..<10 {
            await #expect(throws: EndpointTaskError<EmptyCodable>.self) { try await server.api(auth) }
        }
        #expect(server.tokenRequestCount == 1)
        #expect(auth.tokens == FakeAuthorizationServer.expired, "a transient failure keeps the tokens")
    }

    @Test func theBackOffDoublesToAMinuteAndIgnoresARenewalTheUserOvertook() throws {
        let start = Date(timeIntervalSince1970: 0)
        var backOff = OAuthBackOff()
        var waits: [TimeInterval] = []
        var now = start
        for _ in 0..<8 {
            guard case .send(let epoch) = backOff.renewal(at: now) else {
                Issue.record("a renewal was refused after its back-off")
                return
            }
            backOff.failed(.unavailable(reason: "status 503"), epoch: epoch, at: now)
            let until = try #require(backOff.until)
            waits.append(until.timeIntervalSince(now))
            #expect(backOff.renewal(at: until.addingTimeInterval(-0.001)) == .fail(.unavailable(reason: "status 503")))
            now = until
        }
        #expect(waits == [1, 2, 4, 8, 16, 32, 60, 60])

        // A renewal that started before the user acted starts no back-off when it fails.
        guard case .send(let stale) = backOff.renewal(at: now) else { return }
        backOff.userActed()
        backOff.failed(.unavailable(reason: "offline"), epoch: stale, at: now)
        #expect(backOff.renewal(at: now) == .send(epoch: stale + 1))

        // invalid_grant ends the session instead of backing off.
        backOff.failed(.invalidGrant(description: nil), epoch: stale + 1, at: now)
        #expect(backOff.until == nil)
    }

    /// Tokens saved in an earlier run, handed to a method made before they were loaded, and a
    /// session that `invalid_grant` ended, signed in again: both without a new instance.
    @Test func setTokensHandsSavedTokensAndSignsInAgainAfterInvalidGrant() async throws {
        let server = try FakeAuthorizationServer(
            FakeAuthorizationServer.tokens(#""error": "invalid_grant", "error_description": "revoked""#, status: 400))
        defer { server.stop() }
        let clock = OAuthTestClock(frozenAt: Date(timeIntervalSince1970: 1_800_000_000))
        let callbacks = OAuthCallbacks()
        let auth = OAuth.testing(
            server.provider(), .refreshToken("old-refresh"), clock: clock, callbacks: callbacks)
        await #expect(throws: EndpointTaskError<EmptyCodable>.self) { try await server.api(auth) }
        await callbacks.nextFailure()
        #expect(auth.tokens == nil)

        // A refresh token from the app's own sign-in: the next request exchanges it.
        server.answer(FakeAuthorizationServer.good)
        await auth.setTokens(JWTAuth.TokenPair(accessToken: "", refreshToken: "new-refresh"))
        try await server.api(auth)
        #expect(server.form(1)["refresh_token"] == "new-refresh")
        #expect(auth.tokens?.accessToken == "fresh-access")

        // Saved tokens in full: used as they are, no token request.
        let saved = JWTAuth.TokenPair(
            accessToken: "saved-access", refreshToken: "saved-refresh", expiresAt: clock.now.addingTimeInterval(600))
        await auth.setTokens(saved)
        try await server.api(auth)
        #expect(server.tokenRequestCount == 2)
        #expect(server.apiAuthorizations.withLock { $0.last } == "Bearer saved-access")
        #expect(auth.tokens == saved)
        #expect(callbacks.updateCount == 1, "onTokensUpdated saw the renewal, not the tokens handed in")
    }

    /// Each flow on a method that cannot run it throws, sending nothing, instead of stopping the
    /// process.
    @Test func aFlowTheMethodCannotRunIsATypedError() async throws {
        let server = try FakeAuthorizationServer(FakeAuthorizationServer.good)
        defer { server.stop() }
        func expectUnsupported(_ error: OAuthError?, mentioning: String) {
            guard case .unsupportedFlow(let reason)? = error else {
                Issue.record("unexpected \(String(describing: error))")
                return
            }
            #expect(reason.contains(mentioning), "\(reason)")
        }
        let service = OAuth.testing(server.provider(), .clientCredentials())
        expectUnsupported(
            #expect(throws: OAuthError.self) { try service.authorizationURL() }, mentioning: ".authorizationCode grant")
        expectUnsupported(
            await #expect(throws: OAuthError.self) {
                try await service.completeAuthorization(callbackURL: URL(string: "myapp://cb?code=c")!)
            }, mentioning: ".authorizationCode grant")
        expectUnsupported(
            await #expect(throws: OAuthError.self) {
                try await service.authorizeDevice { _ in Issue.record("nothing to show") }
            }, mentioning: ".deviceCode grant")

        let bare = OAuth.Provider(tokenURL: server.http.url("/token"), clientID: "app")
        let browser = OAuth.testing(bare, .authorizationCode(redirectURI: URL(string: "myapp://cb")!))
        expectUnsupported(
            #expect(throws: OAuthError.self) { try browser.authorizationURL() }, mentioning: "authorizationURL")
        let tv = OAuth.testing(bare, .deviceCode())
        expectUnsupported(
            await #expect(throws: OAuthError.self) {
                try await tv.authorizeDevice { _ in Issue.record("nothing to show") }
            }, mentioning: "deviceAuthorizationURL")
        #expect(server.http.requests.isEmpty)
        #expect("\(OAuthError.unsupportedFlow(reason: "x"))" == "This OAuth method cannot run that flow: x.")
    }

    /// The device flow hands over the URI with the code in it and the code's expiry, and reads
    /// `interval` and `expires_in` sent as strings.
    @Test func theDeviceFlowShowsTheCompleteURIAndTheExpiry() async throws {
        let server = try FakeAuthorizationServer(
            FakeAuthorizationServer.tokens(#""error": "authorization_pending""#, status: 400),
            FakeAuthorizationServer.good)
        defer { server.stop() }
        server.http.route("/device") { _ in
            .json(
                raw:
                    #"{"device_code": "dc", "user_code": "WDJB-MJHT", "verification_uri": "https://example.com/device", "#
                    + #""verification_uri_complete": "https://example.com/device?user_code=WDJB-MJHT", "#
                    + #""expires_in": "900", "interval": "7"}"#)
        }
        let clock = OAuthTestClock(frozenAt: Date(timeIntervalSince1970: 1_800_000_000))
        let waits = Locked<[TimeInterval]>([])
        let shown = Locked<[OAuth.DeviceAuthorization]>([])
        let provider = OAuth.Provider(
            tokenURL: server.http.url("/token"), deviceAuthorizationURL: server.http.url("/device"), clientID: "tv")
        let auth = OAuth.testing(provider, .deviceCode(), clock: clock) { seconds in
            waits.withLock { $0.append(seconds) }
        }
        try await auth.authorizeDevice { device in shown.withLock { $0.append(device) } }
        #expect(
            shown.withLock { $0 } == [
                OAuth.DeviceAuthorization(
                    userCode: "WDJB-MJHT", verificationURI: URL(string: "https://example.com/device")!,
                    verificationURIComplete: URL(string: "https://example.com/device?user_code=WDJB-MJHT")!,
                    expiresAt: clock.now.addingTimeInterval(900))
            ])
        #expect(waits.withLock { $0 } == [7, 7])
        #expect(auth.tokens?.accessToken == "fresh-access")
        #expect(server.form(0)["device_code"] == "dc")
    }
}
