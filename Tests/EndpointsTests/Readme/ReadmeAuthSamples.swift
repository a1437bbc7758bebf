import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The README's authentication and runtime-context samples, as written there.

enum ReadmeHeaderKeySample {
    static let clientKey = "client-key"

    struct ApiServer: ServerDefinition {
        static let auth = HeaderKeyAuth(key: "my-api-key")

        var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com")!] }
        static var defaultEnvironment: Environments { .production }
    }

    struct ProfileEndpoint: Endpoint {
        typealias Server = ApiServer  // authenticated, nothing else to declare

        static let definition: Definition<ProfileEndpoint> = Definition(method: .get, path: "profile")
        struct Response: Decodable { let name: String }
    }

    struct LoginEndpoint: Endpoint {
        typealias Server = ApiServer
        static var auth: NoAuth { NoAuth() }  // unauthenticated
        static let definition: Definition<LoginEndpoint> = Definition(method: .post, path: "login")
        typealias Response = Void
    }

    struct MetricsEndpoint: Endpoint {
        typealias Server = ApiServer
        static let auth = HeaderKeyAuth(key: clientKey, header: "X-Client-Key", prefix: nil)
        static let definition: Definition<MetricsEndpoint> = Definition(method: .get, path: "metrics")
        typealias Response = Data
    }

    static func send() async throws {
        let response = try await URLSession.shared.response(with: ProfileEndpoint())
        _ = response
    }
}

enum ReadmeJWTSample {
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
                // Exchange the refresh token for new tokens against your backend.
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
        static var defaultEnvironment: Environments { .production }
    }

    struct ProfileEndpoint: Endpoint {
        typealias Server = ApiServer
        static let definition: Definition<ProfileEndpoint> = Definition(method: .get, path: "profile")
        struct Response: Decodable { let name: String }
    }

    struct WavelikeClient {
        let environment: ApiServer.Environments
        let auth: JWTAuth  // one instance per client, so its refreshes coalesce

        func profile() async throws -> ProfileEndpoint.Response {
            try await URLSession.shared.response(with: ProfileEndpoint(), environment: environment, auth: auth)
        }
    }

    static func runtimeContext(client: WavelikeClient) async throws {
        let response = try await URLSession.shared.response(
            with: ProfileEndpoint(),
            environment: client.environment,
            auth: client.auth
        )
        _ = response
    }

    struct MyEndpoint: Endpoint {
        typealias Server = ApiServer
        static let definition: Definition<MyEndpoint> = Definition(method: .get, path: "resource")
        struct Response: Decodable { let id: String }
    }

    static func errorHandling() async {
        do {
            let response = try await URLSession.shared.response(with: MyEndpoint())
            _ = response
        } catch {
            // error is MyEndpoint.TaskError — no casting needed
            switch error {
            case .authenticationError(.refreshFailed(let underlying)):
                // token refresh failed; underlying holds the refresh error
                _ = underlying
            case .errorResponse(_, let errorResponse):
                // typed server error response
                _ = errorResponse
            default:
                break
            }
        }
    }
}

enum ReadmeCustomAuthSample {
    static func sign(_ request: URLRequest, with secret: String) -> String {
        "\(request.httpMethod ?? "GET") \(request.url?.path ?? "") \(secret.count)"
    }

    struct SignatureAuth: AuthenticationMethod {
        let secret: String

        func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest {
            var request = request
            request.setValue(sign(request, with: secret), forHTTPHeaderField: "X-Signature")
            return request
        }
    }
}

@Suite struct ReadmeAuthSampleTests {
    @Test func serverAuthIsInheritedAndOverridable() {
        #expect(ReadmeHeaderKeySample.ProfileEndpoint.Auth.self == HeaderKeyAuth.self)
        #expect(ReadmeHeaderKeySample.LoginEndpoint.Auth.self == NoAuth.self)
        #expect(ReadmeJWTSample.ProfileEndpoint.Auth.self == JWTAuth.self)
        #expect(ReadmeJWTSample.RefreshEndpoint.Auth.self == NoAuth.self)
    }

    @Test func customAuthSignsTheRequest() async throws {
        let request = URLRequest(url: URL(string: "https://api.example.com/a")!)
        let signed = try await ReadmeCustomAuthSample.SignatureAuth(secret: "s3cr3t").authenticate(request: request)
        #expect(signed.value(forHTTPHeaderField: "X-Signature") == "GET /a 6")
    }
}
