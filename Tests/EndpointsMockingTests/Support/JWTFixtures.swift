import Endpoints
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server authenticated with ``JWTAuth``. Tests pass their own instance per request with
/// `auth:`, so parallel tests never share tokens; the declared one only satisfies the protocol.
struct JWTServer: ServerDefinition {
    static let auth = JWTAuth(refreshHandler: { _ in throw AuthenticationError.notAuthenticated })
    var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com/v1")!] }
    static var middleware: [any Middleware] { [TagMiddleware()] }
}

/// `GET /v1/me` with a JWT.
struct MeEndpoint: Endpoint {
    typealias Server = JWTServer
    typealias ErrorResponse = APIError
    struct Response: Codable, Equatable { let name: String }
    static let definition: Definition<MeEndpoint> = Definition(method: .get, path: "me")
}

/// `POST /v1/token/refresh`, unauthenticated: it carries the refresh token in its body.
struct TokenRefreshEndpoint: Endpoint {
    typealias Server = JWTServer
    typealias ErrorResponse = APIError
    static var auth: NoAuth { NoAuth() }
    struct Body: Codable { let refreshToken: String }
    struct Response: Codable {
        let access: String
        let refresh: String
    }
    static let definition: Definition<TokenRefreshEndpoint> = Definition(method: .post, path: "token/refresh")

    let body: Body
    init(refreshToken: String) { body = Body(refreshToken: refreshToken) }
}

/// Adds `X-Tag: fake` to every request of ``JWTServer``, to show middleware runs with the fake.
struct TagMiddleware: Middleware {
    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        var request = request
        request.setValue("fake", forHTTPHeaderField: "X-Tag")
        return try await next(request)
    }
}

/// A JWTAuth whose refresh handler exchanges tokens with ``TokenRefreshEndpoint``, counting the
/// callbacks it receives.
func makeJWTAuth(
    access: String = "old-access",
    refresh: String = "refresh-1",
    events: Counter
) -> JWTAuth {
    JWTAuth(
        initialTokens: .init(accessToken: access, refreshToken: refresh),
        refreshHandler: { refreshToken in
            let response = try await URLSession.shared.response(with: TokenRefreshEndpoint(refreshToken: refreshToken))
            return JWTAuth.TokenPair(accessToken: response.access, refreshToken: response.refresh)
        },
        onTokensUpdated: { _ in events.increment("tokensUpdated") },
        onRefreshFailed: { _ in events.increment("refreshFailed") }
    )
}
