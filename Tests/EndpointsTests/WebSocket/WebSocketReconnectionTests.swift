import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct WebSocketReconnectionPolicyTests {
    @Test func theWaitDoublesUpToTheMaximumAndJitterShortensIt() {
        let policy = WebSocketReconnection(delay: 1, maximumDelay: 5, jitter: 0.5)
        #expect(policy.wait(attempt: 1, random: 0) == 1)
        #expect(policy.wait(attempt: 2, random: 0) == 2)
        #expect(policy.wait(attempt: 3, random: 0) == 4)
        #expect(policy.wait(attempt: 4, random: 0) == 5)
        #expect(policy.wait(attempt: 2, random: 0.5) == 1.5)
        #expect(policy.wait(attempt: 2, random: 1) == 1)
        #expect(WebSocketReconnection(jitter: 7).jitter == 1)
        #expect(WebSocketReconnection.defaultCloseCodes.map(\.rawValue).sorted() == [1001, 1011, 1012, 1013, 1014])
    }
}

#if canImport(FoundationNetworking)
    /// Reconnection against the Starlette app (auth_app.py): `/test/drop` closes the user's
    /// connections with 1012 (service restart) or the code asked for.
    @Suite(.webSocketPeers) struct WebSocketReconnectionTests {
        let client = EndpointClient(transport: try! CurlTransport())
        static let quick = WebSocketReconnection(delay: 0.01, maximumDelay: 0.05)

        /// What happened, as lines; `react` runs on each echo of the hook's message with the
        /// number of connections so far, and returns whether to close.
        private func run(
            _ socket: ReconnectingWebSocket<AuthedEcho>, react: (Int) async throws -> Bool
        ) async throws -> [String] {
            var log: [String] = []
            var greetings = 0
            for try await event in socket {
                switch event {
                case .connected(let reconnection): log.append("connected \(reconnection)")
                case .message(let message):
                    if let number = message.connection {
                        greetings += 1
                        log.append("greeting \(number)")
                    } else {
                        log.append(message.text ?? "?")
                        if try await react(greetings) { try socket.close() }
                    }
                case .disconnected(let code, _): log.append("disconnected \(code.rawValue)")
                case .reconnecting(let attempt, let delay):
                    log.append("reconnecting \(attempt)")
                    #expect(delay <= 0.01 && delay >= 0.005)
                }
            }
            return log
        }

        @Test func aDroppedConnectionReconnectsAndTheHookResubscribes() async throws {
            let user = "drop-\(UUID().uuidString)"
            let socket = client.reconnectingWebSocket(
                AuthedEcho(), auth: AuthPeer.auth(try await AuthPeer.login(user)), reconnection: Self.quick
            ) { connection in
                try await connection.send(AuthMessage(text: "subscribed"))
            }
            let log = try await run(socket) { connections in
                guard connections == 1 else { return true }
                try await AuthPeer.post("test/drop?user=\(user)")
                return false
            }
            #expect(
                log == [
                    "connected 0", "greeting 1", "subscribed", "disconnected 1012", "reconnecting 1", "connected 1",
                    "greeting 2", "subscribed", "disconnected 1000",
                ])
        }

        @Test func aReconnectionAuthenticatesAgain() async throws {
            let user = "reauth-\(UUID().uuidString)"
            let auth = AuthPeer.auth(try await AuthPeer.login(user))
            let socket = client.reconnectingWebSocket(AuthedEcho(), auth: auth, reconnection: Self.quick) {
                connection in try await connection.send(AuthMessage(text: "subscribed"))
            }
            let log = try await run(socket) { connections in
                guard connections == 1 else { return true }
                // The token dies with the connection: the reconnection's handshake gets a 401.
                try await AuthPeer.post("test/revoke?user=\(user)")
                try await AuthPeer.post("test/drop?user=\(user)")
                return false
            }
            #expect(log.contains("connected 1") && log.contains("greeting 2"))
            let stats = try await AuthPeer.stats(user)
            #expect(stats.rejected == 1)
            #expect(stats.refreshes == 1)
            #expect(stats.accepted == 2)
        }

        @Test func aCloseCodeOutsideThePolicyEndsTheSequence() async throws {
            let user = "normal-\(UUID().uuidString)"
            let socket = client.reconnectingWebSocket(
                AuthedEcho(), auth: AuthPeer.auth(try await AuthPeer.login(user)), reconnection: Self.quick
            ) { connection in
                try await connection.send(AuthMessage(text: "subscribed"))
            }
            let log = try await run(socket) { _ in
                try await AuthPeer.post("test/drop?user=\(user)&code=4000")
                return false
            }
            #expect(log == ["connected 0", "greeting 1", "subscribed", "disconnected 4000"])
        }
    }

    /// Attempts that fail back off and, past the policy's maximum, throw the last failure.
    @Suite struct WebSocketReconnectionFailureTests {
        @Test func failedAttemptsBackOffThenThrowTheLastFailure() async throws {
            let closed = try ClosedPort()
            defer { closed.close() }
            let client = EndpointClient(transport: try CurlTransport())
            let socket = client.reconnectingWebSocket(
                LoopbackText(), environment: closed.baseURL,
                reconnection: WebSocketReconnection(delay: 0.001, maximumAttempts: 2, jitter: 0))
            var events: [String] = []
            await #expect {
                for try await event in socket {
                    if case .reconnecting(let attempt, let delay) = event { events.append("\(attempt) \(delay)") }
                }
            } throws: { error in
                guard case LoopbackText.TaskError.urlLoadError = error else { return false }
                return true
            }
            #expect(events == ["1 0.001", "2 0.002"])
        }
    }
#endif
