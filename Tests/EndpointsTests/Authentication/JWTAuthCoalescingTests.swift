import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Behaviours 1–4 of issue 4: one refresh however requests and refresh triggers interleave.
@Suite struct JWTAuthCoalescingTests {
    @Test(arguments: [50, 1_000], TestTransport.all)
    func concurrentExpiredRequestsShareOneRefresh(count: Int, via transport: TestTransport) async throws {
        let server = try JWTTestServer()
        defer { server.stop() }
        let expired = server.issueExpired()
        let updated = CallCounter()
        let auth = server.makeAuth(expired, via: transport, updated: updated)

        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<count {
                group.addTask { try await server.send(auth: auth, via: transport).token }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }

        let fresh = try #require(auth.tokens)
        #expect(server.refreshes == 1)
        #expect(server.refreshAttempts == 1)
        #expect(updated.value == 1)
        #expect(tokens.count == count && tokens.allSatisfy { $0 == fresh.accessToken })
        // Requests that went out with the expired token were rejected and retried once with the new
        // one; requests still queued when the refresh finished went out with the new token directly.
        let log = server.apiLog
        let rejected = log.filter { $0.token == expired.accessToken }
        #expect(!rejected.isEmpty && rejected.allSatisfy { $0.status == 401 })
        #expect(log.filter { $0.token == fresh.accessToken && $0.status == 200 }.count == count)
        #expect(log.count == count + rejected.count, "a request was sent more than twice")
        #if canImport(FoundationNetworking)
            // On Linux requests queue per host; those queued behind the refresh never carry the old token.
            #expect(rejected.count < count, "queued requests went out with the replaced token")
        #endif
        #expect(server.with { $0.usedBeforeSaved } == 0, "a retried request went out before onTokensUpdated")
    }

    @Test(arguments: TestTransport.all)
    func stragglerWithReplacedTokenRetriesWithoutRefreshingAgain(via transport: TestTransport) async throws {
        let server = try JWTTestServer()
        defer { server.stop() }
        let expired = server.issueExpired()
        let auth = server.makeAuth(expired, via: transport)
        // The straggler is sent with the old token first; its 401 only comes back after the refresh.
        async let straggler = server.send("late", auth: auth, via: transport)
        await server.waitUntil { _ in server.http.requests.contains { $0.rawPath == "/api/late" } }
        let first = try await server.send(auth: auth, via: transport)
        let late = try await straggler
        #expect(server.refreshes == 1)
        #expect(server.refreshAttempts == 1)
        #expect(late.token == first.token)
        #expect(late.token != expired.accessToken)
    }

    @Test func proactiveAndReactiveRefreshesCoalesce() async throws {
        let server = try JWTTestServer()
        defer { server.stop() }
        server.with { $0.refreshDelayMilliseconds = 300 }
        // A clock the test moves: the token is far from the 30 s leeway when A is sent, and inside
        // it when B is, however long a loaded machine takes in between.
        let start = Date()
        let clock = Locked(start)
        let expired = server.issueExpired(expiresAt: start.addingTimeInterval(100))
        let auth = server.makeAuth(expired, leeway: 30, now: { clock.withLock { $0 } })
        // A is answered 401 only once a refresh has started: B's proactive one.
        async let reactive = server.send("hold", auth: auth)
        await server.waitUntil { _ in server.http.requests.contains { $0.rawPath == "/api/hold" } }
        clock.withLock { $0 = start.addingTimeInterval(80) }
        let proactive = try await server.send(auth: auth)
        let retried = try await reactive
        #expect(server.refreshAttempts == 1)
        #expect(server.refreshes == 1)
        #expect(proactive.token == retried.token)
        // B never went out with the expiring token: the proactive refresh came first.
        #expect(server.apiLog.filter { $0.token == expired.accessToken }.count == 1)
    }

    @Test(arguments: TestTransport.all)
    func cancellingTheFirstWaiterDoesNotCancelTheRefresh(via transport: TestTransport) async throws {
        let server = try JWTTestServer()
        defer { server.stop() }
        server.with { $0.refreshGateOpen = false }
        let expired = server.issueExpired()
        let auth = server.makeAuth(expired, via: transport)

        let first = Task { try await server.send(auth: auth, via: transport) }
        await server.waitUntil { $0.refreshAttempts > 0 }
        let others = (0..<3).map { _ in Task { try await server.send(auth: auth, via: transport) } }
        first.cancel()
        let firstResult = await first.result
        // The cancelled request ended while the refresh was still held: it did not wait for it.
        #expect(server.refreshes == 0)
        guard case .failure(let error as ProtectedEndpoint.TaskError) = firstResult, case .cancelled = error else {
            Issue.record("the cancelled request ended with \(firstResult)")
            return
        }
        server.openRefreshGate()
        for other in others {
            let echo = try await other.value
            #expect(echo.token == auth.tokens?.accessToken)
        }
        #expect(server.refreshes == 1)
    }
}

@Suite struct JWTAuthCredentialUpdateTests {
    private func request(token: String?) -> URLRequest {
        var request = URLRequest(url: URL(string: "https://api.example.com/profile")!)
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        return request
    }

    @Test func aReplacedTokenIsUpdatedAndACurrentOneIsLeftAlone() async throws {
        let auth = JWTAuth(
            initialTokens: .init(accessToken: "old", refreshToken: "r1"),
            refreshHandler: { _ in .init(accessToken: "new", refreshToken: "r2") }
        )
        #expect(auth.updatedCredentials(for: request(token: "old")) == nil)
        await auth.setTokens(.init(accessToken: "new", refreshToken: "r2"))
        let updated = try #require(auth.updatedCredentials(for: request(token: "old")))
        #expect(updated.value(forHTTPHeaderField: "Authorization") == "Bearer new")
        #expect(auth.updatedCredentials(for: request(token: "new")) == nil)
        #expect(auth.updatedCredentials(for: request(token: nil)) == nil, "a request it did not authenticate")
    }

    @Test func staticMethodsNeverUpdate() {
        #expect(HeaderKeyAuth(key: "k").updatedCredentials(for: request(token: "k")) == nil)
        #expect(NoAuth().updatedCredentials(for: request(token: nil)) == nil)
    }
}
