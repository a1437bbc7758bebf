import Foundation

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Authlib authorization server of the OAuth suite (scripts/authlib_server.py), from `AUTHLIB_URL`.
///
/// `scripts/authlib.sh run swift test` installs Authlib and Flask into `.venv-authlib`, starts the
/// server on a free loopback port, runs the command with `AUTHLIB_URL` set and stops it;
/// `scripts/test.sh` does. Without it the Authlib suite is skipped, saying why.
enum Authlib {
    static let url: URL? = ProcessInfo.processInfo.environment["AUTHLIB_URL"].flatMap { URL(string: $0) }
    static var base: URL { url ?? URL(string: "http://127.0.0.1:9")! }

    static let deviceGrant = "urn:ietf:params:oauth:grant-type:device_code"

    /// A client registered for one test, so the token requests it counts are its own.
    struct Client: Decodable, Sendable {
        let client_id: String
        let client_secret: String?
        let redirect_uri: String

        var redirectURI: URL { URL(string: redirect_uri)! }

        func provider(_ authentication: OAuth.Provider.ClientAuthentication = .basic) -> OAuth.Provider {
            OAuth.Provider(
                tokenURL: base.appendingPathComponent("token"),
                authorizationURL: base.appendingPathComponent("authorize"),
                deviceAuthorizationURL: base.appendingPathComponent("device_authorization"),
                revocationURL: base.appendingPathComponent("revoke"),
                clientID: client_id,
                clientSecret: client_secret,
                clientAuthentication: authentication
            )
        }
    }

    /// Registers a client: `authMethod` is `client_secret_basic`, `client_secret_post` or `none`.
    static func register(_ authMethod: String, grants: [String]) async throws -> Client {
        var request = URLRequest(url: base.appendingPathComponent("test/clients"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: [
            "auth_method": authMethod, "grant_types": grants,
        ])
        let (data, _) = try await URLSession.shared.data(for: request)
        return try JSONDecoder().decode(Client.self, from: data)
    }

    /// How many token requests `client` made, by grant type.
    static func tokenRequests(_ client: Client) async throws -> [String: Int] {
        var components = URLComponents(url: base.appendingPathComponent("test/stats"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "client_id", value: client.client_id)]
        let (data, _) = try await URLSession.shared.data(from: components.url!)
        return try JSONDecoder().decode([String: Int].self, from: data)
    }

    /// The browser step: opens `authorizationURL` (Authlib approves it for `alice`) and returns the
    /// URL the browser is redirected to.
    static func browse(_ authorizationURL: URL) async throws -> URL {
        struct Echo: Decodable { let url: String }
        let (data, _) = try await URLSession.shared.data(from: authorizationURL)
        return URL(string: try JSONDecoder().decode(Echo.self, from: data).url)!
    }

    /// The user's decision on another device: approve, deny, or let the code expire.
    static func decide(userCode: String, approve: Bool = true, expire: Bool = false) async throws {
        var request = URLRequest(url: base.appendingPathComponent("test/device"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("user_code=\(userCode)&approve=\(approve ? 1 : 0)&expire=\(expire ? 1 : 0)".utf8)
        _ = try await URLSession.shared.data(for: request)
    }

    /// The protected resource's status for `accessToken`, sent by hand.
    static func resourceStatus(with accessToken: String) async throws -> Int {
        var request = URLRequest(url: base.appendingPathComponent("resource"))
        request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}

/// The Authlib server as a server definition, declaring its method as every server does: a
/// `static let` (here the pre-registered `fixed-service` client).
struct AuthlibServer: ServerDefinition {
    var baseUrls: [TypicalEnvironments: URL] { [.production: Authlib.base] }

    static let auth = OAuth(
        provider: OAuth.Provider(
            tokenURL: Authlib.base.appendingPathComponent("token"),
            clientID: "fixed-service",
            clientSecret: "fixed-secret"
        ),
        grant: .clientCredentials(scopes: ["read"])
    )
}

/// `GET /resource`, which Authlib answers only for a valid, unrevoked token.
struct AuthlibResource: Endpoint {
    typealias Server = AuthlibServer
    struct Response: Decodable, Sendable {
        let user: String?
        let scope: String
        let client_id: String
    }

    static let definition: Definition<AuthlibResource> = Definition(path: "resource")
}

/// A clock tests move forward to expire tokens without waiting. Frozen at a date, it moves only
/// when told, so a back-off cannot pass while a slow machine runs the test.
final class OAuthTestClock: Sendable {
    private let frozen: Date?
    private let offset = Locked<TimeInterval>(0)

    init(frozenAt frozen: Date? = nil) { self.frozen = frozen }

    var now: Date { (frozen ?? Date()).addingTimeInterval(offset.withLock { $0 }) }
    func advance(_ seconds: TimeInterval) { offset.withLock { $0 += seconds } }
}

/// Counts callback calls and keeps what they received; a test can wait for `onRefreshFailed`,
/// which runs after the failed requests have been answered.
final class OAuthCallbacks: Sendable {
    let updated = Locked<[JWTAuth.TokenPair]>([])
    let failures = Locked<[String]>([])
    private let failed: AsyncStream<Void>
    private let failedContinuation: AsyncStream<Void>.Continuation

    init() { (failed, failedContinuation) = AsyncStream.makeStream() }

    var onTokensUpdated: @Sendable (JWTAuth.TokenPair) async -> Void {
        { tokens in self.updated.withLock { $0.append(tokens) } }
    }
    var onRefreshFailed: @Sendable (any Error) async -> Void {
        { error in
            self.failures.withLock { $0.append("\(error)") }
            self.failedContinuation.yield()
        }
    }
    var updateCount: Int { updated.withLock { $0.count } }
    var failureCount: Int { failures.withLock { $0.count } }

    /// Waits until `onRefreshFailed` has run once more.
    func nextFailure() async {
        var iterator = failed.makeAsyncIterator()
        _ = await iterator.next()
    }
}

extension OAuth {
    /// A method for tests: the test's clock, callbacks recorded, device-flow waits replaced by `sleep`.
    static func testing(
        _ provider: Provider,
        _ grant: Grant,
        initialTokens: JWTAuth.TokenPair? = nil,
        clock: OAuthTestClock = OAuthTestClock(),
        callbacks: OAuthCallbacks = OAuthCallbacks(),
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void = { _ in }
    ) -> OAuth {
        OAuth(
            provider: provider, grant: grant, initialTokens: initialTokens,
            onTokensUpdated: callbacks.onTokensUpdated, onRefreshFailed: callbacks.onRefreshFailed,
            now: { clock.now }, sleep: sleep)
    }
}
