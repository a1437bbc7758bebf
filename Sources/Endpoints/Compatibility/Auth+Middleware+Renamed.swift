import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Spellings of authentication and middleware that earlier builds of this release made public and
// the surface of issue 24 no longer does: helpers with a general replacement, and plumbing that
// only the built-in middleware needs. Kept so that code using them still compiles, with a warning
// that says what to write instead.

// MARK: - Authentication

extension BasicAuth {
    /// Throws ``AuthenticationError/invalidCredentials(reason:)`` when the user name contains `:` or
    /// a control character, or the password contains a control character.
    @available(
        *,
        deprecated,
        message:
            "Invalid credentials fail authenticate(request:) with the same AuthenticationError.invalidCredentials(reason:), before anything is sent."
    )
    public func validate() throws(AuthenticationError) {
        _ = try password.value.get()
    }

    /// The `Authorization` header value: `Basic` and the Base64 of the UTF-8 `username:password`.
    @available(
        *,
        deprecated,
        message: "Read the Authorization header of try await auth.authenticate(request:), which sets it."
    )
    public func headerValue() throws(AuthenticationError) -> String {
        try password.value.get()
    }
}

extension CookieAuth {
    /// Throws ``AuthenticationError/invalidCredentials(reason:)`` when the name or value breaks
    /// RFC 6265.
    @available(
        *,
        deprecated,
        message:
            "An invalid name or value fails authenticate(request:) with the same AuthenticationError.invalidCredentials(reason:), before anything is sent."
    )
    public func validate() throws(AuthenticationError) {
        try checkCookie()
    }
}

extension JWTAuth {
    /// Whether a refresh handler's `error` means the server rejected the refresh token.
    @available(
        *,
        deprecated,
        message:
            "JWTAuth classifies refresh failures itself: onRefreshFailed runs only for a rejection (a 400, 401 or 403 answer, or a thrown JWTAuth.RefreshRejection)."
    )
    public static func isRejection(_ error: any Error) -> Bool {
        isRefreshRejection(error)
    }
}

// MARK: - Middleware

extension URLRequest {
    /// The `curl` command for this request as a middleware sees it, with every header in
    /// `context.credentialHeaders` hidden.
    @available(
        *,
        deprecated,
        message:
            "Write cURLDescription(redaction:credentialHeaders:) with credentialHeaders: context.credentialHeaders."
    )
    public func cURLDescription(context: RequestContext, redaction: Redaction = .standard) -> String {
        cURLDescription(redaction: redaction, credentialHeaders: context.credentialHeaders)
    }
}

/// Reads a `Retry-After` header value (RFC 9110 §10.2.3).
@available(
    *,
    deprecated,
    message: "RetryMiddleware honours Retry-After (seconds or any HTTP-date) itself; the parser is no longer public."
)
public enum RetryAfter {
    /// The seconds to wait, or `nil` when `value` is neither delay-seconds nor an HTTP-date.
    public static func delay(from value: String, now: Date) -> TimeInterval? {
        RetryAfterHeader.delay(from: value, now: now)
    }

    /// Parses an HTTP-date in any of the three RFC 9110 §5.6.7 formats.
    public static func date(from value: String, now: Date = Date()) -> Date? {
        RetryAfterHeader.date(from: value, now: now)
    }
}

/// The real clock: `Date()` and `Task.sleep`.
@available(
    *,
    deprecated,
    message: "Omit clock: (or pass nil): RetryMiddleware and ChaosMiddleware use the real clock by default."
)
public struct SystemMiddlewareClock: MiddlewareClock {
    /// Creates the clock.
    public init() {}

    /// `Date()`.
    public var now: Date { SystemClock().now }

    /// `Task.sleep` for `seconds` (nothing for zero or less).
    public func sleep(seconds: TimeInterval) async throws {
        try await SystemClock().sleep(seconds: seconds)
    }
}

extension RetryMiddleware {
    /// The statuses retried by default: 408, 429, 502, 503, 504.
    @available(
        *,
        deprecated,
        message: "Omit retryableStatusCodes: for these, or list the statuses: [408, 429, 502, 503, 504] and your own."
    )
    public static var defaultRetryableStatusCodes: Set<Int> { standardStatusCodes }

    /// The `URLError` codes retried by default: connection failures and timeouts.
    @available(
        *,
        deprecated,
        message:
            "Omit retryableErrorCodes: for these, or list the codes: [.timedOut, .cannotConnectToHost, .networkConnectionLost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet] and your own."
    )
    public static var defaultRetryableErrorCodes: Set<URLError.Code> { standardErrorCodes }
}

/// Where ``LoggingMiddleware`` writes: a closure that receives each finished message.
@available(
    *,
    deprecated,
    message: "Write the closure type, @Sendable (String) -> Void, or pass a trailing closure to LoggingMiddleware."
)
public typealias LogSink = @Sendable (String) -> Void

/// Ready-made sinks for ``LoggingMiddleware``.
@available(*, deprecated, message: "Omit sink: (or pass nil): LoggingMiddleware writes to standard error by default.")
public enum LogSinks {
    /// Writes each message and a newline to standard error: the default sink.
    public static let standardError: @Sendable (String) -> Void = LoggingMiddleware.standardError
}

extension Redaction {
    /// Creates a redaction policy that hides exactly `headers` and `fields`, and shows `revealed`.
    @available(
        *,
        deprecated,
        message: "Start from .standard and adjust it: .standard.redacting(headers:fields:) and .revealing(_:)."
    )
    public init(headers: Set<String>, fields: Set<String>, revealed: Set<String> = []) {
        self.init(hiding: headers, fields: fields, revealing: revealed)
    }
}
