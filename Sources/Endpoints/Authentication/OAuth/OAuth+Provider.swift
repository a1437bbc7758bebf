import Foundation

extension OAuth {
    /// The authorization server and this app's registration with it.
    ///
    /// ```swift
    /// let provider = OAuth.Provider(
    ///     tokenURL: URL(string: "https://auth.example.com/oauth/token")!,
    ///     authorizationURL: URL(string: "https://auth.example.com/oauth/authorize")!,
    ///     revocationURL: URL(string: "https://auth.example.com/oauth/revoke")!,
    ///     clientID: "ios-app"   // a public client: no secret, PKCE protects the code
    /// )
    /// ```
    ///
    /// A confidential client passes `clientSecret`; it is sent with HTTP Basic by default
    /// (`client_secret_basic`, both parts form-urlencoded first as RFC 6749 §2.3.1 requires), or
    /// in the request body with `clientAuthentication: .post`. The description and the mirror
    /// never show the secret.
    public struct Provider: Sendable, Hashable, CustomReflectable {
        /// How a confidential client proves its identity at the token endpoint.
        public enum ClientAuthentication: Sendable, Hashable {
            /// `client_secret_basic`: an `Authorization: Basic` header.
            case basic
            /// `client_secret_post`: `client_id` and `client_secret` in the form body.
            case post
        }

        let tokenURL: URL
        let authorizationURL: URL?
        let deviceAuthorizationURL: URL?
        let revocationURL: URL?
        let clientID: String
        let clientSecret: String?
        let clientAuthentication: ClientAuthentication

        /// Describes the server. Only `tokenURL` and `clientID` are required; each other endpoint
        /// is needed by one flow: `authorizationURL` by ``OAuth/Grant/authorizationCode(redirectURI:scopes:)``,
        /// `deviceAuthorizationURL` by ``OAuth/Grant/deviceCode(scopes:)``, `revocationURL` by
        /// ``OAuth/logOut()`` to revoke the tokens (without it, log-out only forgets them).
        /// A `nil` `clientSecret` makes a public client, which sends its `client_id` only.
        public init(
            tokenURL: URL,
            authorizationURL: URL? = nil,
            deviceAuthorizationURL: URL? = nil,
            revocationURL: URL? = nil,
            clientID: String,
            clientSecret: String? = nil,
            clientAuthentication: ClientAuthentication = .basic
        ) {
            self.tokenURL = tokenURL
            self.authorizationURL = authorizationURL
            self.deviceAuthorizationURL = deviceAuthorizationURL
            self.revocationURL = revocationURL
            self.clientID = clientID
            self.clientSecret = clientSecret
            self.clientAuthentication = clientAuthentication
        }

        /// The endpoints and the client ID, the secret redacted (`clientSecret: <redacted>`, or `nil`
        /// for a public client), so neither `dump` nor the description derived from it prints it.
        public var customMirror: Mirror {
            Mirror(
                self,
                children: [
                    "tokenURL": tokenURL, "authorizationURL": authorizationURL.reflected,
                    "deviceAuthorizationURL": deviceAuthorizationURL.reflected,
                    "revocationURL": revocationURL.reflected,
                    "clientID": clientID, "clientSecret": Secret.placeholder(for: clientSecret),
                    "clientAuthentication": clientAuthentication,
                ],
                displayStyle: .struct
            )
        }
    }
}
