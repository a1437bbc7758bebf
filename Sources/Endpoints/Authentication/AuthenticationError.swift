/// Why credentials could not be applied or renewed. Reaches callers as
/// `EndpointTaskError.authenticationError(_:)`.
///
/// Descriptions never contain tokens, keys or passwords.
public enum AuthenticationError: Error, Sendable, CustomStringConvertible {
    /// There are no credentials to apply (for example, no tokens before login).
    case notAuthenticated
    /// Renewing the credentials failed; `underlying` is the refresh handler's or server's error.
    case refreshFailed(underlying: any Error)
    /// The credentials cannot be sent as given (for example a user name containing `:`).
    case invalidCredentials(reason: String)
    /// Any other failure of a custom method, such as a keychain or signing error.
    case custom(underlying: any Error)

    /// A sentence that says what went wrong, without secrets.
    public var description: String {
        switch self {
        case .notAuthenticated:
            "There are no credentials to authenticate the request; sign in or set the tokens first."
        case .refreshFailed(let underlying):
            "Refreshing the credentials failed: \(underlying)"
        case .invalidCredentials(let reason):
            "The credentials cannot be sent: \(reason)"
        case .custom(let underlying):
            "Authentication failed: \(underlying)"
        }
    }
}
