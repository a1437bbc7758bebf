import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `updatedCredentials(for:)` left `AuthenticationMethod` for the internal `CredentialUpdating`:
/// the pipeline asks any method, and only one that adopts it answers.
@Suite struct CredentialUpdatingTests {
    private static let request = URLRequest(url: URL(string: "https://example.com/a")!)

    /// A refreshing method of the library's own, as `JWTAuth` and `OAuth` are.
    private struct Rotating: AuthenticationMethod, CredentialUpdating {
        func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest { request }

        func updatedCredentials(for request: URLRequest) -> URLRequest? {
            var request = request
            request.setValue("Bearer new", forHTTPHeaderField: "Authorization")
            return request
        }
    }

    /// A user's method, which implements only the public protocol.
    private struct UserMethod: AuthenticationMethod {
        func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest { request }
    }

    @Test func thePipelineAsksOnlyMethodsThatAdoptIt() {
        let methods: [any AuthenticationMethod] = [
            Rotating(), UserMethod(), NoAuth(), BasicAuth(username: "a", password: "b"),
        ]
        let answers = methods.map {
            $0.updatedCredentials(for: Self.request)?.value(forHTTPHeaderField: "Authorization")
        }
        #expect(answers == ["Bearer new", nil, nil, nil])
    }

    @Test func jwtAuthAdoptsIt() {
        let auth: any AuthenticationMethod = JWTAuth(
            initialTokens: JWTAuth.TokenPair(accessToken: "current", refreshToken: "r"),
            refreshHandler: { _ in JWTAuth.TokenPair(accessToken: "x", refreshToken: "y") }
        )
        #expect(auth is any CredentialUpdating)
        var stale = Self.request
        stale.setValue("Bearer old", forHTTPHeaderField: "Authorization")
        #expect(auth.updatedCredentials(for: stale)?.value(forHTTPHeaderField: "Authorization") == "Bearer current")
    }
}
