import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// OAuth 2.0 (RFC 6749): the method speaks the authorization server's token endpoint itself and
/// sends `Authorization: Bearer <access token>`.
///
/// ```swift
/// struct ReportsServer: ServerDefinition {
///     static let auth = OAuth(
///         provider: OAuth.Provider(
///             tokenURL: URL(string: "https://auth.example.com/oauth/token")!,
///             clientID: "reports-service",
///             clientSecret: secret
///         ),
///         grant: .clientCredentials(scopes: ["reports:read"])
///     )
///     ...
/// }
/// ```
///
/// Renewal is ``JWTAuth``'s, with the same guarantees: one token request however many requests
/// find the token expired (within 30 s of `expires_in`) or rejected; results that
/// ``logOut()`` made stale are discarded; `onTokensUpdated` sees new tokens before any request
/// uses them; a refresh token the server rotates is replaced before the next renewal uses it; a
/// transient failure (``OAuthError/unavailable(reason:)``) keeps the tokens; `invalid_grant`
/// ends the session once (the tokens are dropped and `onRefreshFailed` runs) until
/// ``setTokens(_:)`` or a sign-in; sending a request authenticated by this method from
/// `onTokensUpdated` fails with ``RefreshReentrancyError``.
///
/// After any other failed renewal the method backs off: for 1 s, doubled by each renewal that
/// fails in a row up to 60 s, requests fail at once with the same error and no token request is
/// made; a success, ``setTokens(_:)``, a sign-in or ``logOut()`` ends it (see <doc:OAuthGuide>).
///
/// An answer the library cannot use (not JSON, no `access_token`, a `token_type` other than
/// Bearer, an `expires_in` that is not a whole number of seconds from 0 to 2³¹−1, as a number
/// or a string of digits, a token with CR, LF or a byte outside visible ASCII) fails with
/// ``OAuthError/invalidResponse(reason:)`` and nothing is sent with it. Token requests go straight to the transport, past any
/// middleware, so the client secret, codes, verifiers and tokens never reach a log or cURL
/// output; descriptions and mirrors redact them too. Mocks answer endpoints before
/// authentication, so a mocked request never reaches the token endpoint.
///
/// See <doc:OAuthGuide> for each grant.
public final class OAuth: AuthenticationMethod, CredentialUpdating, CustomReflectable {
    let provider: Provider
    let grant: Grant
    let client: OAuthClient
    /// The refresh machinery: its refresh handler is ``OAuthClient/renew(_:)``.
    let jwt: JWTAuth
    let onTokensUpdated: (@Sendable (JWTAuth.TokenPair) async -> Void)?

    /// Creates the method.
    ///
    /// - Parameters:
    ///   - provider: The authorization server and this client's registration.
    ///   - grant: How the first tokens are obtained.
    ///   - initialTokens: Tokens saved by `onTokensUpdated` in an earlier run; `nil` to start signed out
    ///     (client credentials and a refresh token grant then fetch tokens on the first request).
    ///   - onTokensUpdated: Called with every new pair (a login flow, a renewal), before any request uses it.
    ///   - onRefreshFailed: Called once when the server ends the session (`invalid_grant`).
    ///   - now: The clock expiry is judged against; `Date()` by default.
    public convenience init(
        provider: Provider,
        grant: Grant,
        initialTokens: JWTAuth.TokenPair? = nil,
        onTokensUpdated: (@Sendable (JWTAuth.TokenPair) async -> Void)? = nil,
        onRefreshFailed: (@Sendable (any Error) async -> Void)? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(
            provider: provider, grant: grant, initialTokens: initialTokens, onTokensUpdated: onTokensUpdated,
            onRefreshFailed: onRefreshFailed, now: now, sleep: OAuthClient.realSleep)
    }

    /// The method with the device flow's waits replaced (tests record them instead of waiting).
    init(
        provider: Provider,
        grant: Grant,
        initialTokens: JWTAuth.TokenPair?,
        onTokensUpdated: (@Sendable (JWTAuth.TokenPair) async -> Void)?,
        onRefreshFailed: (@Sendable (any Error) async -> Void)?,
        now: @escaping @Sendable () -> Date,
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void
    ) {
        self.provider = provider
        self.grant = grant
        self.onTokensUpdated = onTokensUpdated
        let client = OAuthClient(provider: provider, grant: grant, now: now, sleep: sleep)
        // Restored tokens were granted what the grant asks for, as far as this run knows.
        if initialTokens != nil { client.state.withLock { $0.grantedScopes = grant.scopes } }
        self.client = client
        self.jwt = JWTAuth(
            initialTokens: initialTokens ?? OAuthClient.placeholder(for: grant),
            refreshHandler: { refreshToken in try await client.renew(refreshToken) },
            onTokensUpdated: onTokensUpdated,
            onRefreshFailed: onRefreshFailed,
            now: now
        )
    }

    /// The current tokens; `nil` before sign-in, after ``logOut()`` or after the session ended.
    public var tokens: JWTAuth.TokenPair? {
        jwt.tokens.flatMap { $0.accessToken.isEmpty ? nil : $0 }
    }

    /// The scopes the server granted with the current tokens (its `scope`, or those the grant
    /// asked for when it did not say, or for `initialTokens`); empty before sign-in.
    public var grantedScopes: [String] { tokens == nil ? [] : client.grantedScopes }

    /// Hands the method tokens it did not obtain itself, and signs it in again: tokens your
    /// `onTokensUpdated` saved in an earlier run and loaded after the method was made, or tokens
    /// from a sign-in of your own. Requests use them from now on; a renewal in flight is
    /// discarded. It also ends what stops requests: the back-off after a failed renewal, and a
    /// session that `invalid_grant` ended, so a method declared as a `static let` needs no new
    /// instance to sign in again.
    ///
    /// ```swift
    /// // At launch, once the keychain is readable:
    /// if let saved = TokenStore.load() { await ApiServer.auth.setTokens(saved) }
    ///
    /// // After invalid_grant, with a refresh token from your own sign-in: the next request exchanges it.
    /// await ApiServer.auth.setTokens(JWTAuth.TokenPair(accessToken: "", refreshToken: newRefreshToken))
    /// ```
    ///
    /// An empty access token makes the next request renew first (with the refresh token, or the
    /// client credentials). `onTokensUpdated` is not called, since the tokens are yours already;
    /// ``grantedScopes`` become the grant's scopes, as for `initialTokens`.
    public func setTokens(_ tokens: JWTAuth.TokenPair) async {
        var tokens = tokens
        if tokens.accessToken.isEmpty { tokens.expiresAt = .distantPast }
        client.userActed()
        client.state.withLock { $0.grantedScopes = grant.scopes }
        await jwt.setTokens(tokens)
    }

    /// Forgets the tokens and, when the provider has a `revocationURL`, revokes them (RFC 7009):
    /// the refresh token, which ends the grant, then the access token. Revocation is best effort:
    /// the tokens are forgotten first, whatever the server answers.
    public func logOut() async {
        let tokens = jwt.tokens
        client.userActed()
        await jwt.clearTokens()
        // A service signs itself in again on its next request; a user's session (even one started
        // from a saved refresh token, now revoked) stays signed out.
        if case .clientCredentials = grant, let placeholder = OAuthClient.placeholder(for: grant) {
            await jwt.setTokens(placeholder)
        }
        client.forgetScopes()
        guard let tokens, !tokens.accessToken.isEmpty || !tokens.refreshToken.isEmpty else { return }
        if !tokens.refreshToken.isEmpty { try? await client.revoke(tokens.refreshToken, hint: "refresh_token") }
        if !tokens.accessToken.isEmpty { try? await client.revoke(tokens.accessToken, hint: "access_token") }
    }

    /// Installs tokens a login flow obtained: `onTokensUpdated` sees them before any request does.
    func install(_ tokens: JWTAuth.TokenPair) async {
        client.userActed()
        if let onTokensUpdated { await onTokensUpdated(tokens) }
        await jwt.setTokens(tokens)
    }

    /// Returns `request` with `Authorization: Bearer <access token>`, fetching or renewing the
    /// tokens first when they are missing (client credentials), expired or about to expire.
    public func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest {
        try await jwt.authenticate(request: request)
    }

    /// Whether `response` is a 401 to a request this method authenticated.
    public func shouldReauthenticate(for request: URLRequest, response: HTTPURLResponse) -> Bool {
        jwt.shouldReauthenticate(for: request, response: response)
    }

    /// Renews the tokens after `request` was rejected, joining a renewal in flight.
    public func reauthenticate(after request: URLRequest) async throws(AuthenticationError) {
        try await jwt.reauthenticate(after: request)
    }

    /// `request` with the current access token when a renewal replaced the one it carries.
    func updatedCredentials(for request: URLRequest) -> URLRequest? {
        jwt.updatedCredentials(for: request)
    }

    /// The provider, the grant, the tokens' expiry and the granted scopes, never a secret or a
    /// token, so neither `dump` nor the description derived from it (`OAuth(provider: …)`) prints
    /// them.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "provider": provider, "grant": grant, "tokens": tokens.reflected, "grantedScopes": grantedScopes,
            ],
            // Printed as a struct is, with its fields: a class's default description is its name only.
            displayStyle: .struct
        )
    }
}
