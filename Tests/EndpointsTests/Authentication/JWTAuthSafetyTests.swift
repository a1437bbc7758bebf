import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Behaviour 8 of issue 4: a refresh endpoint authenticated by the same JWTAuth fails fast.
// The server's `auth` is shared static state, so only the one test below uses it.

struct ReentrantServer: ServerDefinition {
    var baseUrls: [Environments: URL] { [.production: AuthBase.url] }
    static let auth: JWTAuth = JWTAuth(
        initialTokens: JWTAuth.TokenPair(accessToken: "reentrant-access", refreshToken: "reentrant-refresh"),
        refreshHandler: { refreshToken in
            // The mistake: this endpoint inherits the server's JWTAuth instead of declaring NoAuth.
            let response = try await URLSession.shared.response(
                with: ReentrantRefreshEndpoint(body: RefreshBody(refreshToken: refreshToken))
            )
            return JWTAuth.TokenPair(accessToken: response.access, refreshToken: response.refresh)
        }
    )
}

struct ReentrantRefreshEndpoint: Endpoint {
    typealias Server = ReentrantServer
    typealias Response = RefreshResult
    static let definition: Definition<ReentrantRefreshEndpoint> = Definition(method: .post, path: "refresh")
    let body: RefreshBody
}

struct ReentrantProtectedEndpoint: Endpoint {
    typealias Server = ReentrantServer
    typealias Response = TokenEcho
    static let definition: Definition<ReentrantProtectedEndpoint> = Definition(method: .get, path: "api/data")
}

/// An endpoint that hands out a fresh `JWTAuth` on every read: the mistake the debug assertion catches.
struct FreshAuthEndpoint: Endpoint {
    typealias Server = JWTLoopbackServer
    typealias Response = TokenEcho
    static var auth: JWTAuth { JWTAuth(refreshHandler: { _ in throw RefreshRejected() }) }
    static let definition: Definition<FreshAuthEndpoint> = Definition(method: .get, path: "api/data")
}

@Suite struct JWTAuthSafetyTests {
    /// A deadlock would wait forever: the time limit ends the test then (a wall-clock bound was
    /// already loosened once, after a loaded machine took 11 s).
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // .timeLimit
    @Test(.timeLimit(.minutes(10))) func refreshEndpointUsingTheSameJWTAuthFailsFastWithReentrancyError() async throws {
        let server = try JWTTestServer()
        defer { server.stop() }
        do {
            _ = try await AuthBase.send(ReentrantProtectedEndpoint(), to: server.http)
            Issue.record("the request succeeded")
        } catch {
            guard case .authenticationError(.refreshFailed(let underlying)) = error else {
                Issue.record("unexpected error: \(error)")
                return
            }
            #expect(underlying is RefreshReentrancyError, "got \(underlying)")
            #expect(String(describing: error).contains("NoAuth"))
        }
        // Fails fast: the refresh request never left.
        #expect(server.refreshAttempts == 0)
    }

    @Test func sharedStaticAuthPassesTheSharedInstanceCheck() async throws {
        let server = try JWTTestServer()
        defer { server.stop() }
        // JWTLoopbackServer.auth is a static let: requests with it run normally.
        await #expect(throws: ProtectedEndpoint.TaskError.self) {
            try await AuthBase.send(ProtectedEndpoint(), to: server.http)
        }
        #expect(JWTLoopbackServer.auth === ProtectedEndpoint.auth)
    }

    // The check is an assertion, so it exists in debug builds only; exit tests exist on desktop
    // platforms only, and from Swift 6.2 (the package and the rest of its tests need 6.0).
    #if compiler(>=6.2) && DEBUG && (os(macOS) || os(Linux) || os(Windows))
        @Test func freshStatefulAuthPerRequestTripsTheDebugAssertion() async {
            await #expect(processExitsWith: .failure) {
                _ = try? await URLSession.shared.response(with: FreshAuthEndpoint())
            }
        }
    #endif

    @Test func descriptionsNeverShowTokens() async throws {
        let secretAccess = "eyJhbGciOiJIUzI1NiJ9.secret-access"
        let secretRefresh = "secret-refresh-token-value"
        let pair = JWTAuth.TokenPair(accessToken: secretAccess, refreshToken: secretRefresh, expiresAt: Date())
        let auth = JWTAuth(initialTokens: pair, refreshHandler: { _ in pair })
        let errors: [any Error] = [
            AuthenticationError.notAuthenticated,
            AuthenticationError.refreshFailed(underlying: RefreshReentrancyError()),
            ProtectedEndpoint.TaskError.authenticationError(.refreshFailed(underlying: HandlerFailure())),
        ]
        var texts = [String(describing: pair), String(reflecting: pair), String(describing: auth)]
        texts += errors.map { String(describing: $0) }
        var dumped = ""
        dump(pair, to: &dumped)
        dump(auth, to: &dumped)
        texts.append(dumped)
        let values: [Any] = [pair, auth]
        texts += values.flatMap { value in Mirror(reflecting: value).children.map { "\($0.value)" } }
        for text in texts {
            #expect(!text.contains(secretAccess) && !text.contains(secretRefresh), "\(text)")
        }
        // The descriptions come from the mirrors, and read as the fields they show.
        #expect(
            String(describing: pair).hasPrefix(
                "TokenPair(accessToken: <redacted>, refreshToken: <redacted>, expiresAt: "))
        #expect(
            String(describing: auth).hasPrefix("JWTAuth(tokens: Endpoints.JWTAuth.TokenPair(accessToken: <redacted>"))
        #expect(
            String(describing: auth).hasSuffix(
                "refreshing: false, refreshTriggerStatusCodes: [401], expiryLeeway: 30.0)"))
    }
}
