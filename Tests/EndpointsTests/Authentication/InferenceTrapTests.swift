import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The inference trap of issue 4: the README's JWTAuth server, declared at file scope exactly as
// written there — `static let auth = JWTAuth(...)` with no type annotation, and an inline refresh
// handler that sends `TrapRefreshEndpoint`, whose server is this same server. Associated-type inference
// has to see through that cycle and pick `JWTAuth`, not the `NoAuth` default; the test proves it
// over the wire. Only the type names carry a `Trap` prefix (the README's names are taken in this
// module). With Swift 6.3.1 this declaration crashed the compiler until `response(with:)` gained
// an overload without default arguments.

struct TrapApiServer: ServerDefinition {
    static let auth = JWTAuth(
        initialTokens: loadTokensFromKeychain(),
        refreshHandler: { refreshToken in
            // Exchange the refresh token for new tokens against your backend.
            let response = try await URLSession.shared.response(with: TrapRefreshEndpoint(token: refreshToken))
            return JWTAuth.TokenPair(accessToken: response.access, refreshToken: response.refresh)
        },
        onTokensUpdated: { tokens in
            saveTokensToKeychain(tokens)
        },
        onRefreshFailed: { error in
            await logOut()
        }
    )

    var baseUrls: [Environments: URL] { [.production: AuthBase.url] }
    static var defaultEnvironment: Environments { .production }
}

struct TrapRefreshEndpoint: Endpoint {
    typealias Server = TrapApiServer
    static var auth: NoAuth { NoAuth() }  // unauthenticated

    static let definition: Definition<TrapRefreshEndpoint> = Definition(method: .post, path: "refresh")
    struct Response: Decodable {
        let access: String
        let refresh: String
    }
    let body: RefreshBody
    init(token: String) { body = RefreshBody(refreshToken: token) }
}

struct TrapProfileEndpoint: Endpoint {
    typealias Server = TrapApiServer  // authenticated, nothing else to declare

    static let definition: Definition<TrapProfileEndpoint> = Definition(method: .get, path: "api/profile")
    struct Response: Decodable { let token: String }
}

/// Where the sample's keychain functions write: a per-test box reached through a task-local,
/// which the refresh task inherits.
final class TrapKeychain: @unchecked Sendable {
    // @unchecked Sendable: `saved` and `loggedOut` are only touched while holding `lock`.
    @TaskLocal static var current: TrapKeychain?
    private let lock = NSLock()
    private var savedTokens: [JWTAuth.TokenPair] = []
    private var logouts = 0

    func save(_ tokens: JWTAuth.TokenPair) {
        lock.lock()
        savedTokens.append(tokens)
        lock.unlock()
    }
    func logOut() {
        lock.lock()
        logouts += 1
        lock.unlock()
    }
    var saved: [JWTAuth.TokenPair] {
        lock.lock()
        defer { lock.unlock() }
        return savedTokens
    }
}

private func loadTokensFromKeychain() -> JWTAuth.TokenPair? { nil }
private func saveTokensToKeychain(_ tokens: JWTAuth.TokenPair) { TrapKeychain.current?.save(tokens) }
private func logOut() async { TrapKeychain.current?.logOut() }

@Suite struct InferenceTrapTests {
    @Test func inferredAuthIsJWTAuthNotNoAuth() {
        #expect(TrapApiServer.Auth.self == JWTAuth.self)
        #expect(TrapProfileEndpoint.Auth.self == JWTAuth.self)
        #expect(TrapRefreshEndpoint.Auth.self == NoAuth.self)
        #expect(TrapProfileEndpoint.auth === TrapApiServer.auth)
    }

    // The only test that touches TrapApiServer.auth's tokens, so it cannot race another.
    @Test func readmeSampleSendsTheAccessTokenAndRefreshes() async throws {
        let server = try JWTTestServer()
        defer { server.stop() }
        let keychain = TrapKeychain()
        try await TrapKeychain.$current.withValue(keychain) {
            try await AuthBase.with(server.http) { try await runSample(server, keychain) }
        }
    }

    private func runSample(_ server: JWTTestServer, _ keychain: TrapKeychain) async throws {
        let login = server.issue()
        await TrapApiServer.auth.setTokens(login)
        let profile = try await URLSession.shared.response(with: TrapProfileEndpoint())
        #expect(profile.token == login.accessToken)
        #expect(server.http.requests.last?.header("Authorization") == "Bearer \(login.accessToken)")

        // The token expires: one refresh through the unauthenticated RefreshEndpoint, then a retry.
        _ = server.with { $0.validAccess.remove(login.accessToken) }
        let refreshed = try await URLSession.shared.response(with: TrapProfileEndpoint())
        #expect(server.refreshes == 1)
        #expect(refreshed.token == TrapApiServer.auth.tokens?.accessToken)
        #expect(keychain.saved.map(\.accessToken) == [refreshed.token])
        let refreshRequest = server.http.requests.first { $0.rawPath == "/refresh" }
        #expect(refreshRequest?.header("Authorization") == nil)

        await TrapApiServer.auth.clearTokens()
        do {
            _ = try await URLSession.shared.response(with: TrapProfileEndpoint())
            Issue.record("a request after clearTokens() succeeded")
        } catch {
            guard case .authenticationError(.notAuthenticated) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
        }
    }
}
