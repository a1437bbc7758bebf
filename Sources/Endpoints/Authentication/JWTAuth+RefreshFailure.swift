import Foundation

extension JWTAuth {
    /// Thrown by a refresh handler to say the server refused the refresh token, so the session is
    /// over: ``JWTAuth`` drops the tokens and calls `onRefreshFailed`.
    ///
    /// A handler that sends its refresh request with an `Endpoint` needs it only for answers the
    /// built-in classification does not know: it already treats an `EndpointTaskError` with status
    /// 400 (OAuth's `invalid_grant`), 401 or 403 as a rejection, and everything else (offline,
    /// timeouts, other statuses, cancellation) as transient, keeping the tokens:
    ///
    /// ```swift
    /// refreshHandler: { refreshToken in
    ///     let (data, response) = try await URLSession.shared.data(for: refreshRequest(refreshToken))
    ///     let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    ///     if status == 410 { throw JWTAuth.RefreshRejection(reason: "the session was revoked") }
    ///     return try decodeTokens(data)
    /// }
    /// ```
    public struct RefreshRejection: Error, Sendable, Hashable {
        /// Why the refresh was rejected, for logs; it must not contain a token.
        let reason: String

        /// Creates the rejection; `reason` says why, for logs, and must not contain a token.
        public init(reason: String = "the server rejected the refresh token") {
            self.reason = reason
        }
    }

    /// Whether a refresh handler's `error` means the server rejected the refresh token (the tokens
    /// are dropped and `onRefreshFailed` runs) rather than a transient failure (the tokens are
    /// kept and a later request refreshes again).
    ///
    /// Rejections:
    /// - ``RefreshRejection``;
    /// - an `EndpointTaskError` with status 400 (OAuth 2.0 answers `invalid_grant` and the other
    ///   token errors with 400, RFC 6749 §5.2), 401 or 403;
    /// - ``AuthenticationError/notAuthenticated`` (there is nothing to refresh with);
    /// - any of these wrapped in ``AuthenticationError/custom(underlying:)`` or an endpoint's
    ///   `.authenticationError`.
    ///
    /// Everything else is transient: offline, timeouts, other statuses (408, 429, 5xx…),
    /// cancellation, a decoding failure of the refresh response, tokens that cannot be sent.
    ///
    /// ```swift
    /// JWTAuth.isRefreshRejection(JWTAuth.RefreshRejection())   // true
    /// JWTAuth.isRefreshRejection(URLError(.timedOut))          // false
    /// ```
    static func isRefreshRejection(_ error: any Error) -> Bool {
        switch error {
        case is RefreshRejection:
            return true
        case let error as AuthenticationError:
            switch error {
            case .notAuthenticated: return true
            case .custom(let underlying): return isRefreshRejection(underlying)
            case .refreshFailed, .invalidCredentials: return false
            }
        case let error as any HTTPStatusCarrying:
            if let status = error.failureStatusCode { return [400, 401, 403].contains(status) }
            if let error = error as? any AuthenticationErrorCarrying, let failure = error.authenticationFailure {
                return isRefreshRejection(failure)
            }
            return false
        default:
            return false
        }
    }
}

/// An error that may carry the status of the HTTP response it failed on, whatever its generic parameters.
protocol HTTPStatusCarrying: Error {
    var failureStatusCode: Int? { get }
}

extension EndpointTaskError: HTTPStatusCarrying {
    var failureStatusCode: Int? { statusCode }
}
