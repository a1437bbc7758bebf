import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An access/refresh token pair, sent as `Authorization: Bearer <access token>` and renewed by
/// your refresh handler when the server rejects it or it is about to expire.
///
/// ```swift
/// struct ApiServer: ServerDefinition {
///     static let auth = JWTAuth(
///         initialTokens: loadTokensFromKeychain(),
///         refreshHandler: { refreshToken in
///             let response = try await URLSession.shared.response(with: RefreshEndpoint(token: refreshToken))
///             return JWTAuth.TokenPair(accessToken: response.access, refreshToken: response.refresh)
///         },
///         onTokensUpdated: { tokens in saveTokensToKeychain(tokens) },
///         onRefreshFailed: { error in await logOut() }
///     )
///     ...
/// }
///
/// // After login and logout:
/// await ApiServer.auth.setTokens(tokens)
/// await ApiServer.auth.clearTokens()
/// ```
///
/// Declare it as a `static let` (or keep one instance per client) so every request shares it:
/// - Concurrent refreshes coalesce: one call to the refresh handler, however many requests were
///   rejected or found the token expiring. Requests that start while a refresh is in flight wait for it.
/// - A request rejected with tokens that have since been replaced is retried with the new ones
///   without refreshing again, which matters when refresh tokens are single-use.
/// - `onTokensUpdated` runs once per refresh, before any request is retried with the new tokens.
/// - `setTokens(_:)` and `clearTokens()` win over a refresh in flight: its result is discarded.
/// - The refresh runs in its own task, so cancelling the request that started it does not cancel
///   it for the others. That task is created with `Task {}` from the requesting task, not
///   `Task.detached`, so it keeps task-local values (test mocks, the environment of a scoped test).
/// - When the refresh fails, every waiting request fails with
///   ``AuthenticationError/refreshFailed(underlying:)`` and `onRefreshFailed` runs once. The tokens
///   are dropped: later requests fail at once with ``AuthenticationError/notAuthenticated``, sending
///   nothing, until ``setTokens(_:)`` — so a dead session does not hammer the server.
/// - The refresh endpoint must not use this same `JWTAuth`; if it does, its request fails at once
///   with ``RefreshReentrancyError`` instead of hanging.
///
/// A rejected request is retried once; if the new token is rejected too, the request fails with
/// the server's response, without a second refresh. The description never shows the tokens.
public final class JWTAuth: AuthenticationMethod, CustomStringConvertible {
    /// The statuses that mean "the access token was rejected"; `[401]` by default.
    public let refreshTriggerStatusCodes: Set<Int>
    /// How many seconds before ``TokenPair/expiresAt`` the tokens are renewed before sending; 30 by default.
    public let expiryLeeway: TimeInterval

    let refreshHandler: @Sendable (String) async throws -> TokenPair
    let onTokensUpdated: (@Sendable (TokenPair) async -> Void)?
    let onRefreshFailed: (@Sendable (any Error) async -> Void)?
    let state: Locked<JWTState>

    /// Creates the method. Only `refreshHandler` is required.
    ///
    /// - Parameters:
    ///   - initialTokens: The tokens to start with, e.g. from the keychain; `nil` before login.
    ///   - refreshTriggerStatusCodes: Statuses that trigger a refresh and one retry; `[401]` by default.
    ///   - expiryLeeway: Seconds before `expiresAt` at which tokens are renewed proactively.
    ///   - refreshHandler: Exchanges the refresh token for new tokens. Send the refresh request with
    ///     an endpoint whose `auth` is ``NoAuth``.
    ///   - onTokensUpdated: Called once with each refreshed pair, before any request is retried
    ///     with it (not for tokens you pass to ``setTokens(_:)``).
    ///   - onRefreshFailed: Called once when a refresh fails, after its waiting requests have failed.
    public init(
        initialTokens: TokenPair? = nil,
        refreshTriggerStatusCodes: Set<Int> = [401],
        expiryLeeway: TimeInterval = 30,
        refreshHandler: @escaping @Sendable (_ refreshToken: String) async throws -> TokenPair,
        onTokensUpdated: (@Sendable (TokenPair) async -> Void)? = nil,
        onRefreshFailed: (@Sendable (any Error) async -> Void)? = nil
    ) {
        self.refreshTriggerStatusCodes = refreshTriggerStatusCodes
        self.expiryLeeway = expiryLeeway
        self.refreshHandler = refreshHandler
        self.onTokensUpdated = onTokensUpdated
        self.onRefreshFailed = onRefreshFailed
        self.state = Locked(JWTState(tokens: initialTokens))
    }

    /// The current tokens; `nil` before login, after ``clearTokens()``, or after a failed refresh.
    public var tokens: TokenPair? { state.withLock { $0.tokens } }

    /// Replaces the tokens, for example after login. A refresh in flight is discarded: requests
    /// waiting for it continue with these tokens.
    ///
    /// ```swift
    /// await ApiServer.auth.setTokens(JWTAuth.TokenPair(accessToken: login.access, refreshToken: login.refresh))
    /// ```
    public func setTokens(_ tokens: TokenPair) async {
        resume(state.withLock { $0.replaceTokens(with: tokens) }, with: .success(()))
    }

    /// Forgets the tokens, for example at logout. Later requests fail with
    /// ``AuthenticationError/notAuthenticated``; a refresh in flight is discarded.
    public func clearTokens() async {
        resume(state.withLock { $0.replaceTokens(with: nil) }, with: .success(()))
    }

    /// Returns `request` with `Authorization: Bearer <access token>`, first renewing tokens that
    /// expire within ``expiryLeeway`` and waiting for a refresh in flight. An access token with a
    /// control character (CR, LF, NUL...) is refused with ``AuthenticationError/invalidCredentials(reason:)``.
    public func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest {
        try checkNotReentrant()
        var mayRefresh = true
        while true {
            let step = state.withLock { $0.authenticate(now: Date(), leeway: expiryLeeway, mayRefresh: mayRefresh) }
            switch step {
            case .send(let accessToken):
                // Foundation on Linux drops a header value holding CR, LF or NUL without a word,
                // which would send the request unauthenticated.
                guard !CredentialText.containsControl(accessToken) else {
                    throw .invalidCredentials(reason: "the access token contains a control character.")
                }
                var request = request
                request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
                return request
            case .fail(let error):
                throw error
            case .wait(let refreshID):
                try await waitForRefresh(refreshID).get()
            case .startRefresh(let refreshID, let refreshToken):
                startRefresh(refreshID, refreshToken: refreshToken)
                try await waitForRefresh(refreshID).get()
            }
            // Use what the refresh produced even if it is itself close to expiry: no refresh loops.
            mayRefresh = false
        }
    }

    /// Whether the response's status is one of ``refreshTriggerStatusCodes`` for a request this
    /// method authenticated.
    public func shouldReauthenticate(for request: URLRequest, response: HTTPURLResponse) -> Bool {
        refreshTriggerStatusCodes.contains(response.statusCode) && Self.bearerToken(of: request) != nil
    }

    /// Renews the tokens after `request` was rejected: joins a refresh in flight, returns at once
    /// when the tokens were already replaced since `request` was sent, and otherwise refreshes.
    public func reauthenticate(after request: URLRequest) async throws(AuthenticationError) {
        try checkNotReentrant()
        let rejected = Self.bearerToken(of: request)
        while true {
            switch state.withLock({ $0.reauthenticate(rejected: rejected) }) {
            case .retry:
                return
            case .fail(let error):
                throw error
            case .wait(let refreshID):
                try await waitForRefresh(refreshID).get()
                return
            case .startRefresh(let refreshID, let refreshToken):
                startRefresh(refreshID, refreshToken: refreshToken)
                try await waitForRefresh(refreshID).get()
                return
            }
        }
    }

    /// `Authorization`.
    public var credentialHeaderNames: [String] { ["Authorization"] }

    /// `request` with the current access token when a refresh replaced the one it carries; `nil`
    /// while a refresh is in flight (the new tokens are not handed out before `onTokensUpdated`
    /// has seen them) or when nothing changed.
    public func updatedCredentials(for request: URLRequest) -> URLRequest? {
        guard let sent = Self.bearerToken(of: request) else { return nil }
        let current = state.withLock { $0.refresh == nil ? $0.tokens?.accessToken : nil }
        guard let current, current != sent, !CredentialText.containsControl(current) else { return nil }
        var request = request
        request.setValue("Bearer \(current)", forHTTPHeaderField: "Authorization")
        return request
    }

    /// The configuration and whether tokens are set; never the tokens.
    public var description: String {
        let (hasTokens, refreshing) = state.withLock { ($0.tokens != nil, $0.refresh != nil) }
        return "JWTAuth(tokens: \(hasTokens ? "set" : "none"), refreshing: \(refreshing), "
            + "refreshTriggerStatusCodes: \(refreshTriggerStatusCodes.sorted()), expiryLeeway: \(expiryLeeway)s)"
    }

    static func bearerToken(of request: URLRequest) -> String? {
        guard let value = request.value(forHTTPHeaderField: "Authorization"), value.hasPrefix("Bearer ") else {
            return nil
        }
        return String(value.dropFirst("Bearer ".count))
    }
}
