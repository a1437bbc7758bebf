import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The JWTAuth and error-handling samples of Endpoints.docc/AuthenticationGuide.md, as written there
// and run against a loopback server. Each namespace's `static let auth` is used by one test only,
// which starts by setting its tokens.

enum AuthenticationJWTSample {
    struct Tokens: Decodable { let access: String; let refresh: String }

    struct RefreshEndpoint: Endpoint {
        typealias Server = ApiServer
        typealias Response = Tokens
        static var auth: NoAuth { NoAuth() }
        struct ParameterComponents { let token: String }
        static let definition: Definition<RefreshEndpoint> = Definition(
            method: .post,
            path: "auth/refresh",
            parameters: [.form("refresh_token", path: \.token)]
        )
        let parameterComponents: ParameterComponents
        init(token: String) { parameterComponents = .init(token: token) }
    }

    static func loadTokensFromKeychain() -> JWTAuth.TokenPair? { nil }
    static func saveTokensToKeychain(_ tokens: JWTAuth.TokenPair) {}
    static func logOut() async {}

    struct ApiServer: ServerDefinition {
        static let auth = JWTAuth(
            initialTokens: loadTokensFromKeychain(),
            refreshHandler: { refreshToken in
                let response = try await URLSession.shared.response(with: RefreshEndpoint(token: refreshToken))
                return JWTAuth.TokenPair(accessToken: response.access, refreshToken: response.refresh)
            },
            onTokensUpdated: { tokens in
                saveTokensToKeychain(tokens)
            },
            onRefreshFailed: { error in
                await logOut()
            }
        )

        var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com")!] }
    }

    struct ProfileEndpoint: Endpoint {
        typealias Server = ApiServer
        static let definition: Definition<ProfileEndpoint> = Definition(method: .get, path: "profile")
        struct Response: Decodable { let name: String }
    }

    /// Logs in with `tokens`, runs `loggedIn`, and logs out.
    static func session(with tokens: JWTAuth.TokenPair, _ loggedIn: () async throws -> Void) async throws {
        // After login and logout:
        await ApiServer.auth.setTokens(tokens)
        try await loggedIn()
        await ApiServer.auth.clearTokens()
    }
}

enum AuthenticationErrorSample {
    struct RefreshEndpoint: Endpoint {
        typealias Server = ApiServer
        typealias Response = AuthenticationJWTSample.Tokens
        static var auth: NoAuth { NoAuth() }
        static let definition: Definition<RefreshEndpoint> = Definition(method: .post, path: "auth/refresh")
    }

    struct ApiServer: ServerDefinition {
        static let auth = JWTAuth(refreshHandler: { _ in
            let response = try await URLSession.shared.response(with: RefreshEndpoint())
            return JWTAuth.TokenPair(accessToken: response.access, refreshToken: response.refresh)
        })
        var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com")!] }
    }

    struct MyEndpoint: Endpoint {
        typealias Server = ApiServer
        static let definition: Definition<MyEndpoint> = Definition(method: .get, path: "resource")
        struct Response: Decodable { let id: String }
    }

    /// The sample; `print` is whatever the caller passes, so the test can read what it printed.
    static func load(print: (String, any Error) -> Void) async {
        do {
            let response = try await URLSession.shared.response(with: MyEndpoint())
            _ = response
        } catch {
            switch error {
            case .authenticationError(.refreshFailed(let underlying)):
                print("token refresh failed:", underlying)
            default:
                break
            }
        }
    }
}

@Suite struct AuthenticationArticleSampleTests {
    @Test func jwtRefreshesOnceThenLogoutStopsRequestsBeforeTheServer() async throws {
        typealias Sample = AuthenticationJWTSample
        let server = try TestServer()
        defer { server.stop() }
        server.route("/profile") { request in
            request.header("Authorization") == "Bearer access-2" ? .json(["name": "Ada"]) : .status(401)
        }
        server.route("/auth/refresh") { request in
            String(decoding: request.body, as: UTF8.self) == "refresh_token=refresh-1"
                ? .json(["access": "access-2", "refresh": "refresh-2"]) : .status(400)
        }
        try await withLoopback(to: server) {
            try await Sample.session(with: JWTAuth.TokenPair(accessToken: "access-1", refreshToken: "refresh-1")) {
                let profile = try await URLSession.shared.response(with: Sample.ProfileEndpoint())
                #expect(profile.name == "Ada")
                #expect(Sample.ApiServer.auth.tokens?.refreshToken == "refresh-2")
            }
            #expect(Sample.ApiServer.auth.tokens == nil)
            await #expect {
                try await URLSession.shared.response(with: Sample.ProfileEndpoint())
            } throws: { error in
                guard let error = error as? Sample.ProfileEndpoint.TaskError,
                    case .authenticationError(.notAuthenticated) = error
                else { return false }
                return true
            }
        }
        // 401, refresh, the retry with the new token; nothing after logout.
        #expect(server.requests.map(\.rawPath) == ["/profile", "/auth/refresh", "/profile"])
    }

    @Test func aFailedRefreshReachesTheCallerAsRefreshFailed() async throws {
        typealias Sample = AuthenticationErrorSample
        let server = try TestServer()
        defer { server.stop() }
        server.route("/resource") { _ in .status(401) }
        server.route("/auth/refresh") { _ in .status(401) }
        await Sample.ApiServer.auth.setTokens(JWTAuth.TokenPair(accessToken: "stale", refreshToken: "revoked"))
        let printed = TestLocked([String]())
        await withLoopback(to: server) {
            await Sample.load { text, underlying in
                let status = (underlying as? Sample.RefreshEndpoint.TaskError)?.statusCode
                printed.withLock { $0.append("\(text) \(status.map(String.init) ?? "\(underlying)")") }
            }
        }
        #expect(printed.withLock { $0 } == ["token refresh failed: 401"])
        #expect(server.requests.map(\.rawPath) == ["/resource", "/auth/refresh"])
    }
}
