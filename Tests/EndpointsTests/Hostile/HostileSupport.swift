import Endpoints
import EndpointsTestServer
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A one-shot gate: `wait()` returns once `open()` was called, however the two are ordered.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

/// A value shared between a test and the closures it hands out.
final class Shared<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched while holding `lock`.
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        get {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
        set { update { $0 = newValue } }
    }

    func update(_ body: (inout Value) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        body(&stored)
    }
}

/// The loopback server with JWT authentication; tests pass their own `JWTAuth` per request.
struct HostileJWTServer: ServerDefinition {
    var baseUrls: [TypicalEnvironments: URL] { [.production: Loopback.baseURL] }
    static let auth = JWTAuth(refreshHandler: { _ in throw JWTAuth.RefreshRejection() })
}

/// `GET /api/data` of the hostile JWT tests, decoded as `{"token": …}`.
struct HostileProtectedEndpoint: Endpoint {
    typealias Server = HostileJWTServer
    typealias ErrorResponse = APIError
    struct Response: Decodable, Sendable { let token: String }
    static let definition: Definition<HostileProtectedEndpoint> = Definition(path: "api/data")
}

/// `POST /refresh`, unauthenticated, answering `{"access": …, "refresh": …}`.
struct HostileRefreshEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias ErrorResponse = APIError
    static var auth: NoAuth { NoAuth() }
    struct Body: Encodable, Sendable { let refreshToken: String }
    struct Response: Decodable, Sendable {
        let access: String
        let refresh: String
    }
    static let definition: Definition<HostileRefreshEndpoint> = Definition(method: .post, path: "refresh")
    let body: Body
}

/// A loopback server whose `/api/data` accepts one access token and whose `/refresh` answers with
/// whatever status the test chose (200 issues the next pair).
final class RefreshServer: Sendable {
    struct State: Sendable {
        var accepted = "fresh-1"
        var refreshStatus = 200
        var refreshBody = #"{"error":"invalid_grant"}"#
        var issuedAccess = "fresh-1"
        var refreshCalls = 0
        var apiTokens: [String] = []
    }

    let http: TestServer
    let state = Shared(State())

    init() throws {
        http = try TestServer()
        let state = state
        http.route("/api/data") { request in
            let token = String((request.header("Authorization") ?? "").dropFirst("Bearer ".count))
            let accepted = state.value.accepted
            state.update { $0.apiTokens.append(token) }
            return token == accepted
                ? .json(["token": token]) : .json(raw: #"{"code":401,"message":"expired"}"#, status: 401)
        }
        http.route("/refresh") { _ in
            let current = state.value
            state.update { $0.refreshCalls += 1 }
            guard current.refreshStatus == 200 else {
                return .json(raw: current.refreshBody, status: current.refreshStatus)
            }
            return .json(["access": current.issuedAccess, "refresh": "refresh-next"])
        }
    }

    func stop() { http.stop() }

    /// A `JWTAuth` refreshing through this server's `/refresh` (through `transport`), counting
    /// `onRefreshFailed` calls.
    func makeAuth(
        via transport: TestTransport = .urlSession,
        access: String = "stale-access",
        expiresAt: Date? = nil,
        failures: Shared<Int> = Shared(0),
        now: @escaping @Sendable () -> Date = { Date() }
    ) -> JWTAuth {
        JWTAuth(
            initialTokens: JWTAuth.TokenPair(accessToken: access, refreshToken: "refresh-1", expiresAt: expiresAt),
            refreshHandler: { refreshToken in
                let response = try await transport.client().response(
                    with: HostileRefreshEndpoint(body: .init(refreshToken: refreshToken)))
                return JWTAuth.TokenPair(accessToken: response.access, refreshToken: response.refresh)
            },
            onRefreshFailed: { _ in failures.update { $0 += 1 } },
            now: now
        )
    }

    /// Sends the protected endpoint with `auth` through `transport`.
    func send(
        auth: JWTAuth, via transport: TestTransport = .urlSession
    ) async -> Result<HostileProtectedEndpoint.Response, HostileProtectedEndpoint.TaskError> {
        await EndpointsTests.send(HostileProtectedEndpoint(), to: http, via: transport, auth: auth)
    }
}
