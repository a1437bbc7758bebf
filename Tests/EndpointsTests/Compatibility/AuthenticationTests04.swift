import Endpoints
import EndpointsMocking
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Endpoints 0.4's custom authentication (velos/Endpoints, `authentication` branch:
// Tests/EndpointsTests/AuthenticatedSessionTests.swift). Its `TestAuth` implements the 0.4
// requirements `shouldReauthenticate(for:response:)` with an error and `reauthenticate()`; the
// migration changes only `authenticate(request:)` to `throws(AuthenticationError)` (0.4's untyped
// `throws` does not compile, see scripts/check-migration-compile-errors.sh) and sends with
// `auth:` instead of wrapping the session in `AuthenticatedSession`.
@Suite struct AuthenticationTests04 {
    actor TestAuth: AuthenticationMethod {
        private var authenticateCount = 0
        private var reauthenticateCount = 0

        func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest {
            authenticateCount += 1
            return request
        }

        nonisolated func shouldReauthenticate(for error: any Error, response: HTTPURLResponse?) -> Bool {
            response?.statusCode == 401
        }

        func reauthenticate() async throws {
            reauthenticateCount += 1
        }

        func counts() -> (authenticate: Int, reauthenticate: Int) {
            (authenticateCount, reauthenticateCount)
        }
    }

    struct AuthServer: ServerDefinition {
        var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.velosmobile.com")!] }
        static let auth = TestAuth()
    }

    struct AuthTestEndpoint: Endpoint {
        typealias Server = AuthServer

        static let definition: Definition<AuthTestEndpoint> = Definition(
            method: .get,
            path: "auth/test"
        )

        struct Response: Codable, Sendable {
            let value: String
        }

        struct ErrorResponse: Codable, Sendable, Equatable {
            let message: String
        }
    }

    @Test
    func retriesAfterReauthentication() async throws {
        let fake = FakeHTTPTransport()
        fake.register(
            .get,
            "/auth/test",
            responses: [
                .json(AuthTestEndpoint.ErrorResponse(message: "unauthorized"), status: 401),
                .json(AuthTestEndpoint.Response(value: "ok")),
            ]
        )
        let auth = TestAuth()

        let response = try await withFakeTransport(fake) {
            try await URLSession.shared.response(with: AuthTestEndpoint(), auth: auth)
        }

        #expect(response.value == "ok")

        let counts = await auth.counts()
        #expect(counts.authenticate == 2)
        #expect(counts.reauthenticate == 1)
    }

    /// The 0.4 trigger is asked about non-2xx responses only, with the response as the error.
    @Test
    func legacyTriggerSeesRejectedResponsesOnly() async throws {
        struct Recording: AuthenticationMethod {
            let seen = Seen()
            func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest { request }
            func shouldReauthenticate(for error: any Error, response: HTTPURLResponse?) -> Bool {
                seen.add((error as? RejectedResponse)?.httpResponse.statusCode ?? -1)
                return false
            }
        }
        let auth = Recording()
        let ok = HTTPURLResponse(
            url: URL(string: "https://a.example")!, statusCode: 200, httpVersion: nil, headerFields: nil)!
        let rejected = HTTPURLResponse(url: ok.url!, statusCode: 403, httpVersion: nil, headerFields: nil)!
        let request = URLRequest(url: ok.url!)

        #expect(!auth.shouldReauthenticate(for: request, response: ok))
        #expect(!auth.shouldReauthenticate(for: request, response: rejected))
        #expect(auth.seen.values == [403])
    }

    /// A 0.4 `reauthenticate()` that throws fails the request with `.refreshFailed`.
    @Test
    func legacyRefreshFailureIsRefreshFailed() async throws {
        struct Expired: Error {}
        struct Failing: AuthenticationMethod {
            func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest { request }
            func shouldReauthenticate(for error: any Error, response: HTTPURLResponse?) -> Bool { true }
            func reauthenticate() async throws { throw Expired() }
        }
        struct FailingServer: ServerDefinition {
            var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.velosmobile.com")!] }
            static var auth: Failing { Failing() }
        }
        struct Probe: Endpoint {
            typealias Server = FailingServer
            typealias Response = Void
            static let definition: Definition<Probe> = Definition(path: "probe")
        }
        let fake = FakeHTTPTransport()
        fake.register(.get, "/probe", .status(401))

        let error = await #expect(throws: Probe.TaskError.self) {
            try await withFakeTransport(fake) { try await URLSession.shared.response(with: Probe()) }
        }
        guard case .authenticationError(.refreshFailed(let underlying)) = error else {
            Issue.record("expected .refreshFailed, got \(String(describing: error))")
            return
        }
        #expect(underlying is Expired)
    }

    /// A method that implements the current requirements is not asked the 0.4 ones.
    @Test
    func currentRequirementsWin() {
        struct Both: AuthenticationMethod {
            func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest { request }
            func shouldReauthenticate(for request: URLRequest, response: HTTPURLResponse) -> Bool { false }
            func shouldReauthenticate(for error: any Error, response: HTTPURLResponse?) -> Bool {
                Issue.record("the 0.4 requirement was asked")
                return true
            }
        }
        let url = URL(string: "https://a.example")!
        let rejected = HTTPURLResponse(url: url, statusCode: 401, httpVersion: nil, headerFields: nil)!
        #expect(!Both().shouldReauthenticate(for: URLRequest(url: url), response: rejected))
    }
}

// Endpoints 0.4's AuthenticationTests (`authentication` branch:
// Tests/EndpointsTests/AuthenticationTests.swift) for the built-in methods. JWTAuth's 0.4
// initializer took `configuration:` and read tokens with `getTokens()`; here they are
// `refreshTriggerStatusCodes:`/`expiryLeeway:` and `tokens`.
@Suite struct BuiltinAuthenticationTests04 {
    @Test
    func apiKeyAuthAddsAuthorizationHeader() async throws {
        let auth = HeaderKeyAuth(key: "test-key")
        let request = URLRequest(url: URL(string: "https://example.com")!)

        let authenticated = try await auth.authenticate(request: request)

        #expect(authenticated.value(forHTTPHeaderField: "Authorization") == "Bearer test-key")
    }

    @Test
    func apiKeyAuthSupportsCustomHeaderAndNoPrefix() async throws {
        let auth = HeaderKeyAuth(key: "secret", header: Header(name: "X-API-Key"), prefix: nil)
        let request = URLRequest(url: URL(string: "https://example.com")!)

        let authenticated = try await auth.authenticate(request: request)

        #expect(authenticated.value(forHTTPHeaderField: "X-API-Key") == "secret")
        #expect(authenticated.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test
    func jwtAuthRequiresTokens() async throws {
        let auth = JWTAuth(initialTokens: nil) { _ in
            JWTAuth.TokenPair(accessToken: "new", refreshToken: "refresh")
        }

        // 0.4 caught the error and matched it; `#expect(throws:)` also fails when nothing throws.
        await #expect(throws: AuthenticationError.self) {
            _ = try await auth.authenticate(request: URLRequest(url: URL(string: "https://example.com")!))
        }
    }

    /// 0.4's `reauthenticate()` called directly renews the tokens. (0.4's test started five at
    /// once and expected one refresh; calls made while a refresh is in flight join it, but one
    /// made after it ends starts another, so the count is not asserted for concurrent calls.)
    @Test
    func jwtAuthReauthenticateRefreshes() async throws {
        let counter = TestLocked(0)
        let auth = JWTAuth(
            initialTokens: .init(accessToken: "old", refreshToken: "refresh"),
            refreshHandler: { refreshToken in
                counter.withLock { $0 += 1 }
                return JWTAuth.TokenPair(accessToken: "new", refreshToken: refreshToken)
            }
        )

        try await auth.reauthenticate()

        #expect(counter.withLock { $0 } == 1)
        #expect(auth.tokens?.accessToken == "new")
    }

    @Test
    func cookieAuthSetsCookieHeader() async throws {
        let auth = CookieAuth(name: "session", value: "abc123")
        let request = URLRequest(url: URL(string: "https://example.com")!)

        let authenticated = try await auth.authenticate(request: request)

        #expect(authenticated.value(forHTTPHeaderField: Header.cookie.name) == "session=abc123")
    }

    @Test
    func cookieAuthAppendsToExistingCookies() async throws {
        let auth = CookieAuth(name: "session", value: "abc123")
        var request = URLRequest(url: URL(string: "https://example.com")!)
        request.setValue("theme=dark", forHTTPHeaderField: Header.cookie.name)

        let authenticated = try await auth.authenticate(request: request)

        #expect(authenticated.value(forHTTPHeaderField: Header.cookie.name) == "theme=dark; session=abc123")
    }

    /// A method that implements neither spelling of reauthenticate does nothing when asked.
    @Test
    func reauthenticateWithoutRefreshDoesNothing() async throws {
        try await HeaderKeyAuth(key: "k").reauthenticate()
        try await HeaderKeyAuth(key: "k").reauthenticate(after: URLRequest(url: URL(string: "https://example.com")!))
    }
}

/// Status codes a test's authentication method saw.
final class Seen: Sendable {
    private let state = TestLocked<[Int]>([])
    func add(_ value: Int) { state.withLock { $0.append(value) } }
    var values: [Int] { state.withLock { $0 } }
}
