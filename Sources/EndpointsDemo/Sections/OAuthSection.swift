import Endpoints
import Foundation

/// OAuth 2.0 built in: the method fetches a token with the client credentials grant on first use,
/// and concurrent requests share that one token request.
enum OAuthSection {
    static func run(_ tour: Tour) async throws {
        let say = tour.transcript
        say.section("OAuth 2.0: client credentials")
        let tokenRequests = RefreshCounter()
        let auth = OAuth(
            provider: OAuth.Provider(
                tokenURL: tour.production.appendingPathComponent("oauth/token"),
                clientID: "demo-service",
                clientSecret: DemoService.clientSecret
            ),
            grant: .clientCredentials(scopes: ["profile"]),
            onTokensUpdated: { _ in tokenRequests.increment() }
        )
        let base = RequestBase(url: tour.production, auth: auth, middleware: tour.middleware)
        let profiles = try await withThrowingTaskGroup(of: Profile.self) { group in
            for _ in 0..<5 {
                group.addTask { try await URLSession.shared.response(for: Request<Profile>.get("me", on: base)) }
            }
            return try await group.reduce(into: [Profile]()) { $0.append($1) }
        }
        say.line(
            "5 × GET me → \(profiles.count) profiles; token requests: \(tokenRequests.value); "
                + "granted scopes: \(auth.grantedScopes)")
        say.line("\(auth)")
    }
}
