import Foundation

extension OAuth {
    /// How the first tokens are obtained; every grant then renews them the same way (with the
    /// refresh token when the server issued one, with the same grant for client credentials).
    ///
    /// ```swift
    /// .clientCredentials(scopes: ["reports:read"])                 // a service: no user
    /// .authorizationCode(redirectURI: callback, scopes: ["profile"])  // an app with a browser
    /// .deviceCode(scopes: ["profile"])                                 // a TV or a command-line tool
    /// .refreshToken(storedRefreshToken)                                // a session saved earlier
    /// ```
    ///
    /// The description and the mirror never show the refresh token.
    public enum Grant: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
        /// RFC 6749 §4.4: the client's own credentials. Tokens are fetched on the first request and
        /// fetched again when they expire or are rejected; no refresh token is needed.
        case clientCredentials(scopes: [String] = [])
        /// RFC 6749 §4.1 with PKCE (RFC 7636, S256): open ``OAuth/authorizationURL()`` in a
        /// browser, then hand the URL the browser is sent back to to ``OAuth/completeAuthorization(callbackURL:)``.
        case authorizationCode(redirectURI: URL, scopes: [String] = [])
        /// RFC 8628: ``OAuth/authorizeDevice(show:)`` shows a code for the user to enter on another
        /// device and polls until they have.
        case deviceCode(scopes: [String] = [])
        /// RFC 6749 §6: start from a refresh token the app already has; the first request
        /// exchanges it for an access token.
        case refreshToken(String)

        /// The scopes the grant asks for.
        var scopes: [String] {
            switch self {
            case .clientCredentials(let scopes), .authorizationCode(_, let scopes), .deviceCode(let scopes): scopes
            case .refreshToken: []
            }
        }

        /// The grant and its scopes; a refresh token is redacted.
        public var description: String {
            switch self {
            case .clientCredentials(let scopes): "clientCredentials(scopes: \(scopes))"
            case .authorizationCode(let redirectURI, let scopes):
                "authorizationCode(redirectURI: \(redirectURI), scopes: \(scopes))"
            case .deviceCode(let scopes): "deviceCode(scopes: \(scopes))"
            case .refreshToken: "refreshToken(<redacted>)"
            }
        }

        /// A mirror that shows the ``description``, so `dump` does not print a refresh token.
        public var customMirror: Mirror { Mirror(self, children: ["grant": description]) }
    }
}
