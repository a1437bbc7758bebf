import Endpoints
import EndpointsTestServer
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A loopback server for `JWTAuth` tests: `/api/*` accepts only access tokens it considers valid,
/// and `/refresh` exchanges a single-use refresh token for a new pair, counting refreshes.
///
/// `/api/hold/*` answers only once a refresh has been attempted, `/api/late/*` only once a refresh
/// has succeeded: that is how tests put a request's 401 after a refresh deterministically.
final class JWTTestServer: @unchecked Sendable {
    // @unchecked Sendable: every access to `state` holds `lock`.
    struct State {
        var validAccess: Set<String> = []
        var validRefresh: Set<String> = []
        var issued = 0
        var refreshAttempts = 0
        var refreshes = 0
        var rejectRefresh = false
        var rejectAllAccess = false
        var invalidStatus = 401
        var refreshDelayMilliseconds: UInt64 = 0
        var refreshGateOpen = true
        /// Access tokens issued by a refresh and not yet reported saved by `onTokensUpdated`.
        var unsaved: Set<String> = []
        var usedBeforeSaved = 0
        var apiLog: [(token: String, status: Int)] = []
        /// Refresh responses handed back to a `JWTAuth` by `makeAuth`'s handler.
        var refreshesDelivered = 0
        /// Requests that passed authentication on the client (counted by ``authenticated``).
        var authenticated = 0
        /// `/api` answers nothing until this many requests passed authentication.
        var holdAPIUntilAuthenticated = 0
    }

    let http: TestServer
    private let lock = NSLock()
    private var state = State()

    init() throws {
        http = try TestServer()
        http.route("/api/*") { [unowned self] request in await self.api(request) }
        http.route("/refresh") { [unowned self] request in await self.refresh(request) }
    }

    func stop() { http.stop() }

    func with<R>(_ body: (inout State) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }

    /// Mints a valid pair out of band (a login).
    func issue(expiresAt: Date? = nil) -> JWTAuth.TokenPair {
        with { state in
            state.issued += 1
            let pair = JWTAuth.TokenPair(
                accessToken: "access-\(state.issued)",
                refreshToken: "refresh-\(state.issued)",
                expiresAt: expiresAt
            )
            state.validAccess.insert(pair.accessToken)
            state.validRefresh.insert(pair.refreshToken)
            return pair
        }
    }

    /// A pair whose access token the server no longer accepts but whose refresh token is valid.
    func issueExpired(expiresAt: Date? = nil) -> JWTAuth.TokenPair {
        let pair = issue(expiresAt: expiresAt)
        _ = with { $0.validAccess.remove(pair.accessToken) }
        return pair
    }

    /// `onTokensUpdated` reports here; requests using the tokens before this are counted as violations.
    func saved(_ tokens: JWTAuth.TokenPair) { _ = with { $0.unsaved.remove(tokens.accessToken) } }

    var refreshes: Int { with { $0.refreshes } }
    var refreshAttempts: Int { with { $0.refreshAttempts } }
    var apiLog: [(token: String, status: Int)] { with { $0.apiLog } }

    func openRefreshGate() { with { $0.refreshGateOpen = true } }

    /// Polls `condition` every millisecond, for at most ``TestTiming/giveUp``.
    func waitUntil(_ condition: (inout State) -> Bool) async {
        let deadline = Date().addingTimeInterval(TestTiming.giveUp)
        while !with(condition), Date() < deadline {
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
    }

    /// A middleware that counts, on the server's state, each request that passed authentication.
    var authenticated: any Middleware { PassageCounter(server: self) }

    private struct PassageCounter: Middleware {
        let server: JWTTestServer

        func intercept(
            _ request: URLRequest, context: RequestContext,
            next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
        ) async throws -> (Data, HTTPURLResponse) {
            server.with { $0.authenticated += 1 }
            return try await next(request)
        }
    }

    private func api(_ request: TestServer.Request) async -> TestServer.Response {
        await waitUntil { $0.authenticated >= $0.holdAPIUntilAuthenticated }
        if request.rawPath.hasPrefix("/api/hold") { await waitUntil { $0.refreshAttempts > 0 } }
        if request.rawPath.hasPrefix("/api/late") { await waitUntil { $0.refreshes > 0 } }
        let header = request.header("Authorization") ?? ""
        let token = header.hasPrefix("Bearer ") ? String(header.dropFirst(7)) : ""
        let status = with { state -> Int in
            if state.unsaved.contains(token) { state.usedBeforeSaved += 1 }
            let ok = !state.rejectAllAccess && state.validAccess.contains(token)
            let status = ok ? 200 : state.invalidStatus
            state.apiLog.append((token, status))
            return status
        }
        return status == 200 ? .json(["token": token]) : .json(["message": "rejected"], status: status)
    }

    private func refresh(_ request: TestServer.Request) async -> TestServer.Response {
        let delay = with { state -> UInt64 in
            state.refreshAttempts += 1
            return state.refreshDelayMilliseconds
        }
        if delay > 0 { try? await Task.sleep(nanoseconds: delay * 1_000_000) }
        await waitUntil { $0.refreshGateOpen }
        let presented = (try? JSONDecoder().decode(RefreshBody.self, from: request.body))?.refreshToken ?? ""
        let pair = with { state -> JWTAuth.TokenPair? in
            guard !state.rejectRefresh, state.validRefresh.remove(presented) != nil else { return nil }
            state.issued += 1
            state.refreshes += 1
            let pair = JWTAuth.TokenPair(accessToken: "access-\(state.issued)", refreshToken: "refresh-\(state.issued)")
            state.validAccess.insert(pair.accessToken)
            state.validRefresh.insert(pair.refreshToken)
            state.unsaved.insert(pair.accessToken)
            return pair
        }
        guard let pair else { return .json(["message": "invalid refresh token"], status: 401) }
        return .json(RefreshResult(access: pair.accessToken, refresh: pair.refreshToken))
    }
}

struct RefreshBody: Codable, Sendable { let refreshToken: String }
struct RefreshResult: Codable, Sendable {
    let access: String
    let refresh: String
}
struct TokenEcho: Decodable, Sendable { let token: String }
struct RefreshRejected: Error {}

/// The server the JWT tests talk to. Its declared `auth` is never used: each test passes its own
/// `JWTAuth` per request, as a client with its own credentials would.
struct JWTLoopbackServer: ServerDefinition {
    var baseUrls: [Environments: URL] { [.production: AuthBase.url] }
    static let auth = JWTAuth(refreshHandler: { _ in throw RefreshRejected() })
}

struct ProtectedEndpoint: Endpoint {
    typealias Server = JWTLoopbackServer
    typealias Response = TokenEcho
    static let definition: Definition<ProtectedEndpoint> = Definition(method: .get, path: "api/\(path: \.kind)")
    struct PathComponents { let kind: String }
    let pathComponents: PathComponents
    init(_ kind: String = "data") { pathComponents = PathComponents(kind: kind) }
}

struct TokenRefreshEndpoint: Endpoint {
    typealias Server = JWTLoopbackServer
    typealias Response = RefreshResult
    static var auth: NoAuth { NoAuth() }
    static let definition: Definition<TokenRefreshEndpoint> = Definition(method: .post, path: "refresh")
    let body: RefreshBody
}

/// Counts callback invocations.
final class CallCounter: @unchecked Sendable {
    // @unchecked Sendable: `count` is only touched while holding `lock`.
    private let lock = NSLock()
    private var count = 0
    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}

extension JWTTestServer {
    /// A `JWTAuth` whose refresh handler calls this server's `/refresh` with a `NoAuth` endpoint,
    /// through `transport` (as an app sends its refresh through the client it sends the rest with).
    func makeAuth(
        _ tokens: JWTAuth.TokenPair?,
        via transport: TestTransport = .urlSession,
        triggers: Set<Int> = [401],
        leeway: TimeInterval = 30,
        updated: CallCounter = CallCounter(),
        failed: CallCounter = CallCounter(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) -> JWTAuth {
        JWTAuth(
            initialTokens: tokens,
            refreshTriggerStatusCodes: triggers,
            expiryLeeway: leeway,
            refreshHandler: { [weak self] refreshToken in
                let response = try await transport.client().response(
                    with: TokenRefreshEndpoint(body: RefreshBody(refreshToken: refreshToken))
                )
                self?.with { $0.refreshesDelivered += 1 }
                return JWTAuth.TokenPair(accessToken: response.access, refreshToken: response.refresh)
            },
            onTokensUpdated: { [weak self] tokens in
                updated.increment()
                self?.saved(tokens)
            },
            onRefreshFailed: { _ in failed.increment() },
            now: now
        )
    }

    /// Sends `ProtectedEndpoint(kind)` with `auth` through `transport`.
    func send(
        _ kind: String = "data", auth: JWTAuth, via transport: TestTransport = .urlSession,
        middleware: [any Middleware] = []
    ) async throws(ProtectedEndpoint.TaskError) -> TokenEcho {
        try await AuthBase.send(ProtectedEndpoint(kind), to: http, auth: auth, via: transport, middleware: middleware)
    }
}
