import Foundation

extension JWTAuth {
    /// An access token, the refresh token that renews it, and optionally when the access token expires.
    ///
    /// ```swift
    /// let tokens = JWTAuth.TokenPair(accessToken: response.access, refreshToken: response.refresh)
    /// let timed = JWTAuth.TokenPair(
    ///     accessToken: response.access,
    ///     refreshToken: response.refresh,
    ///     expiresAt: Date().addingTimeInterval(response.expiresIn)
    /// )
    /// ```
    ///
    /// With ``expiresAt`` set, tokens within the method's `expiryLeeway` of expiring are renewed
    /// before a request is sent; without it, renewal waits for the server to reject the token.
    /// `Codable`, so it can be stored as it is; its description and mirror never show the tokens.
    public struct TokenPair: Hashable, Sendable, Codable, CustomReflectable {
        /// The token sent as `Authorization: Bearer <accessToken>`.
        public var accessToken: String
        /// The token the refresh handler exchanges for a new pair.
        public var refreshToken: String
        /// When the access token expires, if known.
        public var expiresAt: Date?

        /// Creates a token pair.
        public init(accessToken: String, refreshToken: String, expiresAt: Date? = nil) {
            self.accessToken = accessToken
            self.refreshToken = refreshToken
            self.expiresAt = expiresAt
        }

        /// Whether the access token expires within `leeway` seconds of `now` (never when
        /// ``expiresAt`` is unknown).
        func expires(within leeway: TimeInterval, of now: Date) -> Bool {
            guard let expiresAt else { return false }
            return expiresAt.timeIntervalSince(now) <= leeway
        }

        /// The expiry only, both tokens redacted, so neither `dump` nor the description derived from
        /// it (`TokenPair(accessToken: <redacted>, refreshToken: <redacted>, expiresAt: nil)`)
        /// prints them.
        public var customMirror: Mirror {
            Mirror(
                self,
                children: [
                    "accessToken": Secret.placeholder, "refreshToken": Secret.placeholder,
                    "expiresAt": expiresAt.reflected,
                ],
                displayStyle: .struct
            )
        }
    }
}
