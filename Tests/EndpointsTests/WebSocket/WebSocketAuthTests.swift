import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// The handshake's authentication against a Starlette app under uvicorn (auth_app.py): a
    /// token the server revoked gets a 401 on the upgrade, `JWTAuth` refreshes through the
    /// pipeline and the handshake is sent again, as for any request. Each test logs in as a user
    /// of its own, so revoking its tokens touches no other test.
    @Suite(.webSocketPeers) struct WebSocketAuthTests {
        let client = EndpointClient(transport: try! CurlTransport())

        @Test func aRevokedTokenIsRefreshedAfterTheHandshakes401AndTheConnectionOpens() async throws {
            let user = "refresh-\(UUID().uuidString)"
            let tokens = try await AuthPeer.login(user)
            try await AuthPeer.post("test/revoke?user=\(user)")
            let auth = AuthPeer.auth(tokens)

            let connection = try await client.webSocket(AuthedEcho(), auth: auth)
            var iterator = connection.makeAsyncIterator()
            #expect(try await iterator.next() == AuthMessage(user: user, connection: 1))
            try await connection.send(AuthMessage(text: "after the refresh"))
            #expect(try await iterator.next() == AuthMessage(text: "after the refresh"))
            try connection.close()
            #expect(try await iterator.next() == nil)

            let renewed = try #require(auth.tokens)
            #expect(renewed.accessToken != tokens.accessToken)
            let stats = try await AuthPeer.stats(user)
            #expect(stats.rejected == 1)
            #expect(stats.refreshes == 1)
            #expect(stats.accepted == 1)
        }

        @Test func anExpiredTokenIsRenewedBeforeTheHandshakeIsSent() async throws {
            let user = "expired-\(UUID().uuidString)"
            let login = try await AuthPeer.login(user)
            try await AuthPeer.post("test/revoke?user=\(user)")
            let auth = AuthPeer.auth(
                JWTAuth.TokenPair(
                    accessToken: login.accessToken, refreshToken: login.refreshToken,
                    expiresAt: Date(timeIntervalSinceNow: -60)))

            let connection = try await client.webSocket(AuthedEcho(), auth: auth)
            var iterator = connection.makeAsyncIterator()
            #expect(try await iterator.next() == AuthMessage(user: user, connection: 1))
            try connection.close(code: .goingAway)

            let stats = try await AuthPeer.stats(user)
            #expect(stats.rejected == 0)
            #expect(stats.refreshes == 1)
        }

        @Test func aRejectedRefreshFailsTheHandshakeWithTheAuthenticationError() async throws {
            let user = "rejected-\(UUID().uuidString)"
            let tokens = try await AuthPeer.login(user)
            try await AuthPeer.post("test/revoke?user=\(user)")
            // Used up here, so the client's refresh is refused.
            _ = try await AuthPeer.refresh(tokens.refreshToken)
            let auth = AuthPeer.auth(tokens)

            await #expect {
                _ = try await client.webSocket(AuthedEcho(), auth: auth)
            } throws: { error in
                guard case AuthedEcho.TaskError.authenticationError(.refreshFailed) = error else { return false }
                return true
            }
            #expect(auth.tokens == nil)
            let stats = try await AuthPeer.stats(user)
            #expect(stats.rejected == 1)
            #expect(stats.accepted == 0)
        }
    }

    /// The auth app's server.
    struct WebSocketAuthServer: ServerDefinition {
        var baseUrls: [TypicalEnvironments: URL] { WebSocketPeers.authURL.map { [.production: $0] } ?? [:] }
    }

    /// The auth app's messages: its greeting (`user`, `connection`), echoed text and ticks.
    struct AuthMessage: Codable, Sendable, Equatable {
        var user: String?
        var connection: Int?
        var text: String?
        var tick: Int?
        var from: Int?
    }

    /// `/ws/echo` on the auth app, with bearer tokens that `JWTAuth` refreshes.
    struct AuthedEcho: WebSocketEndpoint {
        typealias Server = WebSocketAuthServer
        typealias Response = Void
        typealias Auth = JWTAuth
        typealias Outgoing = AuthMessage
        typealias Incoming = AuthMessage
        /// Every test passes its own; this one has no tokens.
        static let auth = JWTAuth(refreshHandler: { _ in throw AuthenticationError.notAuthenticated })
        static let definition: Definition<AuthedEcho> = Definition(path: "ws/echo")
    }

    /// The auth app's HTTP side, sent with `URLSession` directly (not the code under test).
    enum AuthPeer {
        struct Stats: Decodable {
            let accepted: Int
            let rejected: Int
            let refreshes: Int
            let open: Int
        }

        private struct Tokens: Decodable {
            let access_token: String
            let refresh_token: String
        }

        private static func url(_ path: String) throws -> URL {
            try #require(WebSocketPeers.url(WebSocketPeers.authURL, path))
        }

        @discardableResult
        static func post(_ path: String, _ body: [String: String] = [:]) async throws -> (Data, Int) {
            var request = URLRequest(url: try url(path))
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONEncoder().encode(body)
            request.timeoutInterval = 30
            let (data, response) = try await URLSession.shared.data(for: request)
            return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
        }

        private static func pair(_ data: Data) throws -> JWTAuth.TokenPair {
            let tokens = try JSONDecoder().decode(Tokens.self, from: data)
            return JWTAuth.TokenPair(accessToken: tokens.access_token, refreshToken: tokens.refresh_token)
        }

        /// A new pair for `user`.
        static func login(_ user: String) async throws -> JWTAuth.TokenPair {
            try pair(try await post("login", ["user": user]).0)
        }

        /// Exchanges `refreshToken`; a refused one is `JWTAuth.RefreshRejection`.
        static func refresh(_ refreshToken: String) async throws -> JWTAuth.TokenPair {
            let (data, status) = try await post("refresh", ["refresh_token": refreshToken])
            guard status == 200 else { throw JWTAuth.RefreshRejection() }
            return try pair(data)
        }

        /// A `JWTAuth` starting with `tokens`, refreshing at the app's `/refresh`.
        static func auth(_ tokens: JWTAuth.TokenPair) -> JWTAuth {
            JWTAuth(initialTokens: tokens, refreshHandler: { try await refresh($0) })
        }

        static func stats(_ user: String) async throws -> Stats {
            var request = URLRequest(url: try url("test/stats?user=\(user)"))
            request.timeoutInterval = 30
            return try JSONDecoder().decode(Stats.self, from: try await URLSession.shared.data(for: request).0)
        }
    }
#endif
