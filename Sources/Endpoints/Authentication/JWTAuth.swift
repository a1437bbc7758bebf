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
///   ``AuthenticationError/refreshFailed(underlying:)``. What happens to the tokens depends on why
///   it failed:
///   - **Rejected**: the server refused the refresh token (the handler's request got a 400, such as
///     OAuth's `invalid_grant`, a 401 or a 403, or the handler threw ``JWTAuth/RefreshRejection``; so
///     did ``AuthenticationError/notAuthenticated`` from the handler, and any of these wrapped in
///     ``AuthenticationError/custom(underlying:)`` or an endpoint's `.authenticationError`). The
///     tokens are dropped and `onRefreshFailed` runs once: later requests fail at once with
///     ``AuthenticationError/notAuthenticated``, sending nothing, until ``setTokens(_:)`` — so a dead
///     session does not hammer the server.
///   - **Transient**: anything else (offline, a timeout, a 5xx, a cancelled refresh request, or
///     new tokens that cannot be sent, such as an access token containing CR or LF). The tokens are
///     kept and `onRefreshFailed` does not run: the user stays signed in, and a later request
///     refreshes again.
/// - The refresh endpoint must not use this same `JWTAuth`; if it does, its request fails at once
///   with ``RefreshReentrancyError`` instead of hanging.
///
/// A rejected request is retried once; if the new token is rejected too, the request fails with
/// the server's response, without a second refresh. An access token containing a control
/// character is never sent: a request fails with ``AuthenticationError/invalidCredentials(reason:)``
/// instead. The description, the debug description and the mirror (`dump`) never show the
/// tokens, during a refresh or after it: they all come from the mirror.
public final class JWTAuth: AuthenticationMethod, CredentialUpdating, CustomReflectable {
    /// The statuses that mean "the access token was rejected"; `[401]` by default.
    let refreshTriggerStatusCodes: Set<Int>
    /// How many seconds before ``TokenPair/expiresAt`` the tokens are renewed before sending; 30 by default.
    let expiryLeeway: TimeInterval

    let refreshHandler: @Sendable (String) async throws -> TokenPair
    let onTokensUpdated: (@Sendable (TokenPair) async -> Void)?
    let onRefreshFailed: (@Sendable (any Error) async -> Void)?
    /// The time expiry is judged against.
    let now: @Sendable () -> Date
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
    ///   - onRefreshFailed: Called once when the server rejects a refresh (a 400, 401 or 403 answer,
    ///     or ``RefreshRejection``), once the tokens are dropped and before any request fails for
    ///     it (requests that come while it runs wait for it, then fail with the refresh's error);
    ///     not for a transient failure (offline, a timeout, a 5xx).
    ///   - now: The current time, against which ``TokenPair/expiresAt`` is judged; `Date()` by default.
    ///     Tests pass their own clock to expire tokens without waiting.
    ///
    /// ```swift
    /// // `clock` is any Sendable time source a test moves forward, e.g. its MiddlewareClock.
    /// let auth = JWTAuth(initialTokens: tokens, refreshHandler: refresh, now: { clock.now })
    /// ```
    public init(
        initialTokens: TokenPair? = nil,
        refreshTriggerStatusCodes: Set<Int> = [401],
        expiryLeeway: TimeInterval = 30,
        refreshHandler: @escaping @Sendable (_ refreshToken: String) async throws -> TokenPair,
        onTokensUpdated: (@Sendable (TokenPair) async -> Void)? = nil,
        onRefreshFailed: (@Sendable (any Error) async -> Void)? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.refreshTriggerStatusCodes = refreshTriggerStatusCodes
        self.expiryLeeway = expiryLeeway
        self.refreshHandler = refreshHandler
        self.onTokensUpdated = onTokensUpdated
        self.onRefreshFailed = onRefreshFailed
        self.now = now
        self.state = Locked(JWTState(tokens: initialTokens))
    }

    /// The current tokens; `nil` before login, after ``clearTokens()``, or after a rejected refresh.
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
    /// expire within the `expiryLeeway` given to `init` and waiting for a refresh in flight.
    public func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest {
        try checkNotReentrant()
        var mayRefresh = true
        while true {
            let step = state.withLock { $0.authenticate(now: now(), leeway: expiryLeeway, mayRefresh: mayRefresh) }
            switch step {
            case .send(let accessToken):
                if let reason = Self.unusableReason(accessToken) { throw .invalidCredentials(reason: reason) }
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

    /// Whether the response's status is one of the `refreshTriggerStatusCodes` given to `init`, for
    /// a request this method authenticated.
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

    /// `request` with the current access token when a refresh replaced the one it carries; `nil`
    /// while a refresh is in flight (the new tokens are not handed out before `onTokensUpdated`
    /// has seen them) or when nothing changed.
    func updatedCredentials(for request: URLRequest) -> URLRequest? {
        guard let sent = Self.bearerToken(of: request) else { return nil }
        let current = state.withLock { $0.refresh == nil ? $0.tokens?.accessToken : nil }
        guard let current, current != sent, Self.unusableReason(current) == nil else { return nil }
        var request = request
        request.setValue("Bearer \(current)", forHTTPHeaderField: "Authorization")
        return request
    }

    /// The configuration, whether a refresh is running and the tokens' expiry, never the tokens
    /// (the default mirror would show them inside the state), so neither `dump` nor the
    /// description derived from it (`JWTAuth(tokens: …, refreshing: false, …)`) prints them.
    public var customMirror: Mirror {
        let (tokens, refreshing) = state.withLock { ($0.tokens, $0.refresh != nil) }
        return Mirror(
            self,
            children: [
                "tokens": tokens.reflected, "refreshing": refreshing,
                "refreshTriggerStatusCodes": refreshTriggerStatusCodes.sorted(), "expiryLeeway": expiryLeeway,
            ],
            // Printed as a struct is, with its fields: a class's default description is its name only.
            displayStyle: .struct
        )
    }

    /// Why `accessToken` cannot go in an `Authorization` header, or `nil` when it can.
    static func unusableReason(_ accessToken: String) -> String? {
        if accessToken.isEmpty { return "the access token is empty." }
        if CredentialText.containsControl(accessToken) {
            return "the access token contains a control character (such as CR or LF), so it cannot be sent."
        }
        return nil
    }

    static func bearerToken(of request: URLRequest) -> String? {
        guard let value = request.value(forHTTPHeaderField: "Authorization"), value.hasPrefix("Bearer ") else {
            return nil
        }
        return String(value.dropFirst("Bearer ".count))
    }
}
