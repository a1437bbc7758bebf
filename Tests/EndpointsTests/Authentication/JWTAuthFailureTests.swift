import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct HandlerFailure: Error, CustomStringConvertible {
    var description: String { "the refresh handler gave up" }
}

/// Behaviours 5–7 and 9 of issue 4: failures end once, stale results never win, and only the
/// configured statuses refresh.
@Suite struct JWTAuthFailureTests {
    enum RefreshBreak: String, CaseIterable, Sendable {
        case handlerThrows, serverRejects
    }

    @Test(arguments: RefreshBreak.allCases)
    func failedRefreshFailsEveryWaiterOnceAndStopsSending(how: RefreshBreak) async throws {
        let server = try JWTTestServer()
        defer { server.stop() }
        let expired = server.issueExpired()
        let failed = CallCounter()
        let auth: JWTAuth
        switch how {
        case .handlerThrows:
            auth = JWTAuth(
                initialTokens: expired,
                // A transient error keeps the tokens (see JWTRefreshFailureTests); a rejection drops them.
                refreshHandler: { _ in throw JWTAuth.RefreshRejection() },
                onRefreshFailed: { _ in failed.increment() }
            )
        case .serverRejects:
            server.with { $0.rejectRefresh = true }
            auth = server.makeAuth(expired, failed: failed)
        }
        let count = 50
        // No answer before all of them carry the old token: one authenticated after the first 401
        // would wait for the refresh instead (on a loaded machine, some did).
        server.with { $0.holdAPIUntilAuthenticated = count }
        let errors = await withTaskGroup(of: ProtectedEndpoint.TaskError?.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do throws(ProtectedEndpoint.TaskError) {
                        _ = try await server.send(auth: auth, middleware: [server.authenticated])
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            return await group.reduce(into: [ProtectedEndpoint.TaskError?]()) { $0.append($1) }
        }
        #expect(errors.count == count)
        for error in errors {
            guard case .authenticationError(.refreshFailed(let underlying))? = error else {
                Issue.record("expected refreshFailed, got \(String(describing: error))")
                continue
            }
            if how == .handlerThrows { #expect(underlying is JWTAuth.RefreshRejection) }
        }
        #expect(failed.value == 1)
        // Every request went out once, with the old token; none was resent.
        #expect(server.apiLog.count == count)
        #expect(server.apiLog.allSatisfy { $0.token == expired.accessToken })
        #expect(server.refreshAttempts == (how == .serverRejects ? 1 : 0))

        // The next request fails at once without touching the server.
        let sent = server.http.requestCount
        await #expect(throws: ProtectedEndpoint.TaskError.self) { try await server.send(auth: auth) }
        do {
            _ = try await server.send(auth: auth)
            Issue.record("a request after a failed refresh succeeded")
        } catch {
            guard case .authenticationError(.notAuthenticated) = error else {
                Issue.record("expected notAuthenticated, got \(error)")
                return
            }
        }
        #expect(server.http.requestCount == sent)
        #expect(failed.value == 1)

        // New tokens bring it back.
        await auth.setTokens(server.issue())
        _ = try await server.send(auth: auth)
    }

    @Test func rejectedNewTokenFailsAfterOneRetryWithoutLooping() async throws {
        let server = try JWTTestServer()
        defer { server.stop() }
        server.with { $0.rejectAllAccess = true }
        let auth = server.makeAuth(server.issue())
        do {
            _ = try await server.send(auth: auth)
            Issue.record("a rejected request succeeded")
        } catch {
            #expect(error.statusCode == 401)
        }
        #expect(server.refreshes == 1)
        #expect(server.apiLog.count == 2)
    }

    @Test func setTokensDuringRefreshDiscardsTheStaleResult() async throws {
        let server = try JWTTestServer()
        defer { server.stop() }
        server.with { $0.refreshGateOpen = false }
        let updated = CallCounter()
        let auth = server.makeAuth(server.issueExpired(), updated: updated)
        async let waiting = server.send(auth: auth)
        await server.waitUntil { $0.refreshAttempts > 0 }
        let login = server.issue()
        await auth.setTokens(login)
        // The waiter goes on with the tokens that were set, without waiting for the refresh.
        #expect(try await waiting.token == login.accessToken)
        server.openRefreshGate()
        await server.waitUntil { $0.refreshes > 0 }
        try await Task.sleep(nanoseconds: 50_000_000)  // let the stale result reach JWTAuth
        #expect(auth.tokens == login)
        #expect(updated.value == 0)
        #expect(try await server.send(auth: auth).token == login.accessToken)
    }

    @Test func clearTokensDuringRefreshDiscardsTheStaleResult() async throws {
        let server = try JWTTestServer()
        defer { server.stop() }
        server.with { $0.refreshGateOpen = false }
        let updated = CallCounter()
        let auth = server.makeAuth(server.issueExpired(), updated: updated)
        async let waiting: Result<TokenEcho, ProtectedEndpoint.TaskError> = {
            do throws(ProtectedEndpoint.TaskError) { return .success(try await server.send(auth: auth)) } catch {
                return .failure(error)
            }
        }()
        await server.waitUntil { $0.refreshAttempts > 0 }
        await auth.clearTokens()
        guard case .failure(.authenticationError(.notAuthenticated)) = await waiting else {
            Issue.record("the waiter did not fail with notAuthenticated")
            return
        }
        server.openRefreshGate()
        // The event: the handler has handed the stale pair back to JWTAuth, which decides at
        // once, in the same task, to discard it.
        await server.waitUntil { $0.refreshesDelivered > 0 }
        #expect(server.with { $0.refreshesDelivered } == 1)
        #expect(auth.tokens == nil)
        #expect(updated.value == 0)
    }

    @Test(arguments: [403, 400])
    func otherStatusesDoNotRefreshUnlessConfigured(status: Int) async throws {
        let server = try JWTTestServer()
        defer { server.stop() }
        server.with { $0.invalidStatus = status }
        let plain = server.makeAuth(server.issueExpired())
        await #expect(throws: ProtectedEndpoint.TaskError.self) { try await server.send(auth: plain) }
        #expect(server.refreshAttempts == 0)
        #expect(server.apiLog.count == 1)

        let configured = server.makeAuth(server.issueExpired(), triggers: [401, status])
        _ = try await server.send(auth: configured)
        #expect(server.refreshes == 1)
    }
}
