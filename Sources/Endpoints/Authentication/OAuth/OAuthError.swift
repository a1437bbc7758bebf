/// Why an ``OAuth`` flow or token renewal failed, from the authorization server's error codes
/// (RFC 6749 §5.2, RFC 8628 §3.5) or from what the library checks before it uses an answer.
///
/// A renewal during a request reaches the caller as
/// `.authenticationError(.refreshFailed(underlying: OAuthError…))`, which
/// ``EndpointTaskError/oauthError`` reads without a cast; the flows you start
/// (``OAuth/authorizationURL()``, ``OAuth/completeAuthorization(callbackURL:)``,
/// ``OAuth/authorizeDevice(show:)``) throw it directly. Descriptions never contain a secret, a
/// code or a token.
///
/// ```swift
/// do {
///     try await auth.authorizeDevice { device in print("Open \(device.verificationURI) and enter \(device.userCode)") }
/// } catch .accessDenied {
///     print("You declined.")
/// } catch {
///     print(error)   // a sentence saying what to fix
/// }
/// ```
public enum OAuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `invalid_grant`: the refresh token, code or device code is no longer valid. During a
    /// renewal this ends the session: the tokens are dropped and `onRefreshFailed` runs once.
    case invalidGrant(description: String?)
    /// `invalid_client`, `unauthorized_client`, `invalid_scope`, `unsupported_grant_type`,
    /// `invalid_request` or another code: the client's configuration needs fixing (`error` is the
    /// code). Tokens are kept.
    case misconfigured(error: String, description: String?)
    /// `access_denied`: the user declined.
    case accessDenied
    /// `expired_token`: the device code expired before the user approved it.
    case expired
    /// `temporarily_unavailable`, `server_error`, a 5xx, 408 or 429, or a transport failure
    /// (offline, timeout, cut connection). Tokens are kept; a later request tries again.
    case unavailable(reason: String)
    /// The server's answer cannot be used: not JSON, no `access_token`, a `token_type` other than
    /// Bearer, an unusable `expires_in`, or a token a header cannot carry. Nothing was sent with it.
    case invalidResponse(reason: String)
    /// The URL handed to ``OAuth/completeAuthorization(callbackURL:)`` does not answer an
    /// authorization this method started (wrong or missing `state`, no `code`).
    case invalidCallback(reason: String)
    /// The method cannot run the flow it was asked for: ``OAuth/authorizationURL()`` and
    /// ``OAuth/completeAuthorization(callbackURL:)`` need the `.authorizationCode` grant and a
    /// provider `authorizationURL`, ``OAuth/authorizeDevice(show:)`` the `.deviceCode` grant and a
    /// provider `deviceAuthorizationURL`. Nothing was sent.
    case unsupportedFlow(reason: String)

    /// A sentence that says what went wrong and, where it helps, what to fix; never a secret.
    public var description: String {
        func detail(_ text: String?) -> String { text.map { ": \(OAuthError.printable($0))" } ?? "" }
        switch self {
        case .invalidGrant(let text):
            return "The authorization server rejected the grant (invalid_grant)\(detail(text)); sign in again."
        case .misconfigured(let code, let text):
            let fix: String
            switch code {
            case "invalid_client": fix = "check the client ID, the secret and the client authentication method"
            case "unauthorized_client": fix = "the client is not allowed this grant type; check its registration"
            case "invalid_scope": fix = "the requested scopes are not allowed for this client"
            default: fix = "check the client's configuration"
            }
            return "The authorization server refused the client's configuration (\(OAuthError.printable(code)))"
                + "\(detail(text)); \(fix)."
        case .accessDenied:
            return "The user declined the authorization (access_denied)."
        case .expired:
            return "The device code expired before the user approved it (expired_token); start again."
        case .unavailable(let reason):
            return "The authorization server is unavailable (\(reason)); the tokens are kept and a later request "
                + "tries again."
        case .invalidResponse(let reason):
            return "The authorization server's answer cannot be used: \(reason)."
        case .invalidCallback(let reason):
            return "The authorization callback cannot be used: \(reason)."
        case .unsupportedFlow(let reason):
            return "This OAuth method cannot run that flow: \(reason)."
        }
    }

    /// Server-supplied text shortened to 200 characters, without control characters.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { !CredentialText.isControl($0) }).prefix(200))
    }
}

// An `invalid_grant` is the server refusing the refresh token: JWTAuth's rejection rule (a 400)
// drops the tokens and calls onRefreshFailed once; every other case is transient there.
extension OAuthError: HTTPStatusCarrying {
    var failureStatusCode: Int? {
        if case .invalidGrant = self { return 400 }
        return nil
    }
}

extension EndpointTaskError {
    /// The ``OAuthError`` an ``OAuth`` method failed with, read without a cast: it arrives as
    /// `.authenticationError(.refreshFailed(underlying:))`. `nil` for any other error.
    ///
    /// ```swift
    /// do {
    ///     let report = try await URLSession.shared.response(with: DailyReport())
    /// } catch {
    ///     switch error.oauthError {
    ///     case .invalidGrant?: showSignIn()                                  // the session ended
    ///     case .misconfigured(let code, _)?: log("fix the client: \(code)")  // e.g. invalid_client
    ///     case .unavailable?: showOfflineBanner()                            // tokens kept; try later
    ///     default: print(error)
    ///     }
    /// }
    /// ```
    public var oauthError: OAuthError? {
        guard case .authenticationError(.refreshFailed(let underlying)) = self else { return nil }
        return underlying as? OAuthError
    }
}
