import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 12: a transient refresh failure keeps the user signed in; only a rejected refresh logs
/// out; a refreshed token that cannot be sent is never used.
@Suite struct JWTRefreshFailureTests {
    /// The refresh endpoint answers `status`: every waiting request fails with `.refreshFailed`,
    /// the tokens stay, `onRefreshFailed` does not run, and the next request refreshes again.
    @Test(arguments: [500, 502, 503, 429, 408, 404], TestTransport.all)
    func transientStatusKeepsTheTokens(status: Int, via transport: TestTransport) async throws {
        let server = try RefreshServer()
        defer { server.stop() }
        server.state.update {
            $0.refreshStatus = status
            $0.refreshBody = #"{"code":\#(status),"message":"try later"}"#
        }
        let failures = Shared(0)
        let auth = server.makeAuth(via: transport, failures: failures)
        let before = try #require(auth.tokens)
        try expectRefreshFailed(await server.send(auth: auth, via: transport))
        #expect(auth.tokens == before)
        #expect(failures.value == 0)

        server.state.update { $0.refreshStatus = 200 }
        #expect(try await server.send(auth: auth, via: transport).get().token == "fresh-1")
        #expect(server.state.value.refreshCalls == 2)
    }

    enum Transient: String, CaseIterable, Sendable { case offline, timeout, cancelled }

    /// The handler fails without an answer from the server (connection refused, a timeout, a
    /// cancelled refresh request): the tokens stay.
    @Test(arguments: Transient.allCases)
    func transientErrorKeepsTheTokens(how: Transient) async throws {
        let server = try RefreshServer()
        defer { server.stop() }
        let failures = Shared(0)
        let calls = Shared(0)
        let auth = JWTAuth(
            initialTokens: JWTAuth.TokenPair(accessToken: "stale-access", refreshToken: "refresh-1"),
            refreshHandler: { _ in
                calls.update { $0 += 1 }
                switch how {
                case .offline:
                    // Nothing listens on the discard port of the loopback interface.
                    _ = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:9/refresh")!)
                    throw URLError(.cannotConnectToHost)
                case .timeout: throw URLError(.timedOut)
                case .cancelled: throw CancellationError()
                }
            },
            onRefreshFailed: { _ in failures.update { $0 += 1 } }
        )
        try expectRefreshFailed(await server.send(auth: auth))
        #expect(auth.tokens?.accessToken == "stale-access")
        #expect(failures.value == 0)
        try expectRefreshFailed(await server.send(auth: auth))
        #expect(calls.value == 2, "a later request refreshes again")
    }

    /// The server refuses the refresh token: tokens are dropped, `onRefreshFailed` runs once, and
    /// the next request fails at once without being sent.
    @Test(arguments: [400, 401, 403], TestTransport.all)
    func rejectedRefreshLogsOut(status: Int, via transport: TestTransport) async throws {
        let server = try RefreshServer()
        defer { server.stop() }
        server.state.update {
            $0.refreshStatus = status
            $0.refreshBody = #"{"code":\#(status),"message":"invalid_grant"}"#
        }
        let failures = Shared(0)
        let auth = server.makeAuth(via: transport, failures: failures)
        try expectRefreshFailed(await server.send(auth: auth, via: transport))
        #expect(auth.tokens == nil)
        #expect(failures.value == 1)
        let sent = server.http.requestCount
        guard case .failure(.authenticationError(.notAuthenticated)) = await server.send(auth: auth, via: transport)
        else {
            Issue.record("expected notAuthenticated after a rejected refresh")
            return
        }
        #expect(server.http.requestCount == sent)
    }

    @Test func oauthInvalidGrantBodyThatDoesNotDecodeIsStillARejection() async throws {
        let server = try RefreshServer()
        defer { server.stop() }
        server.state.update {
            $0.refreshStatus = 400
            $0.refreshBody = #"{"error":"invalid_grant","error_description":"expired"}"#
        }
        let auth = server.makeAuth()
        try expectRefreshFailed(await server.send(auth: auth))
        #expect(auth.tokens == nil)
    }

    /// A handler's ``JWTAuth/RefreshRejection`` ends the session, and `onRefreshFailed` has run,
    /// even when it suspends first, before the waiting request fails.
    @Test func handlerCanThrowATypedRejection() async throws {
        let server = try RefreshServer()
        defer { server.stop() }
        let failures = Shared(0)
        let auth = JWTAuth(
            initialTokens: JWTAuth.TokenPair(accessToken: "stale-access", refreshToken: "refresh-1"),
            refreshHandler: { _ in throw JWTAuth.RefreshRejection(reason: "the session was revoked") },
            onRefreshFailed: { _ in
                for _ in 0..<10 { await Task.yield() }
                failures.update { $0 += 1 }
            }
        )
        let underlying = try expectRefreshFailed(await server.send(auth: auth))
        #expect(underlying is JWTAuth.RefreshRejection)
        #expect(auth.tokens == nil)
        #expect(failures.value == 1)
    }

    @Test func classification() {
        #expect(JWTAuth.isRefreshRejection(JWTAuth.RefreshRejection()))
        #expect(JWTAuth.isRefreshRejection(AuthenticationError.notAuthenticated))
        #expect(JWTAuth.isRefreshRejection(AuthenticationError.custom(underlying: JWTAuth.RefreshRejection())))
        #expect(!JWTAuth.isRefreshRejection(URLError(.timedOut)))
        #expect(!JWTAuth.isRefreshRejection(URLError(.notConnectedToInternet)))
        #expect(!JWTAuth.isRefreshRejection(CancellationError()))
        #expect(!JWTAuth.isRefreshRejection(RefreshReentrancyError()))
        #expect(!JWTAuth.isRefreshRejection(HostileRefreshEndpoint.TaskError.internetConnectionOffline))
    }

    /// A refresh that returns an access token with CR/LF fails as `.refreshFailed`; the token is
    /// never put on a request, and the old tokens stay.
    @Test(arguments: ["fresh\r\nX-Injected: 1", "fresh\n", "\u{0}", ""])
    func refreshedTokenThatCannotBeSentIsNeverUsed(access: String) async throws {
        let server = try RefreshServer()
        defer { server.stop() }
        server.state.update { $0.issuedAccess = access }
        let auth = server.makeAuth()
        let underlying = try expectRefreshFailed(await server.send(auth: auth))
        guard case .invalidCredentials? = underlying as? AuthenticationError else {
            Issue.record("expected invalidCredentials, got \(underlying)")
            return
        }
        #expect(auth.tokens?.accessToken == "stale-access")
        #expect(server.state.value.apiTokens == ["stale-access"], "only the old token reached the server")
        #expect(!server.http.requests.contains { $0.header("X-Injected") != nil })
    }

    @Test func tokenSetWithCRLFIsRefusedBeforeSending() async throws {
        let server = try RefreshServer()
        defer { server.stop() }
        let auth = server.makeAuth()
        await auth.setTokens(JWTAuth.TokenPair(accessToken: "a\r\nX-Injected: 1", refreshToken: "r"))
        guard case .failure(.authenticationError(.invalidCredentials)) = await server.send(auth: auth) else {
            Issue.record("expected invalidCredentials")
            return
        }
        #expect(server.http.requestCount == 0)
    }

    /// Expiry is judged by the injected clock: no real waiting.
    @Test func injectedClockDrivesProactiveRefresh() async throws {
        let server = try RefreshServer()
        defer { server.stop() }
        let start = Date(timeIntervalSince1970: 1_000_000)
        let clock = Shared(start)
        server.state.update { $0.accepted = "valid-access" }
        let auth = server.makeAuth(
            access: "valid-access", expiresAt: start.addingTimeInterval(100), now: { clock.value })
        #expect(try await server.send(auth: auth).get().token == "valid-access")
        #expect(server.state.value.refreshCalls == 0)

        clock.value = start.addingTimeInterval(75)  // within the 30 s leeway
        server.state.update { $0.accepted = "fresh-1" }
        #expect(try await server.send(auth: auth).get().token == "fresh-1")
        #expect(server.state.value.refreshCalls == 1)
        #expect(server.state.value.apiTokens == ["valid-access", "fresh-1"], "renewed before sending")
    }

    /// `.refreshFailed`'s underlying error, recording an issue for anything else.
    @discardableResult
    private func expectRefreshFailed<T>(
        _ result: Result<T, HostileProtectedEndpoint.TaskError>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> any Error {
        guard case .failure(.authenticationError(.refreshFailed(let underlying))) = result else {
            Issue.record("expected refreshFailed, got \(result)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return underlying
    }
}
