import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What ``RetryMiddleware`` throws when it gives up on a retryable failure: the attempt count and
/// the last outcome. Callers receive it as `.middlewareError(RetryExhausted)`.
///
/// ```swift
/// do {
///     _ = try await URLSession.shared.response(with: FeedEndpoint())
/// } catch {
///     if case .middlewareError(let error as RetryExhausted) = error {
///         print("gave up after \(error.attempts) attempts, last status \(error.response?.statusCode ?? 0)")
///     }
/// }
/// ```
///
/// Outcomes that are not retryable (a 404, any failure of a `POST` without `Idempotency-Key`, a
/// TLS error, cancellation) are passed through unchanged and never wrapped.
public struct RetryExhausted: Error, Sendable, CustomStringConvertible {
    /// How many times the request was sent.
    public let attempts: Int
    /// The last error when the last attempt failed without a response, such as a `URLError`.
    public let underlyingError: (any Error)?
    /// The last response when the last attempt got one (a 503, say).
    public let response: HTTPURLResponse?
    /// The body of ``response``.
    public let data: Data?
    /// Why it stopped.
    public let reason: Reason

    /// Why ``RetryMiddleware`` stopped retrying.
    public enum Reason: Sendable, Hashable {
        /// ``RetryMiddleware/maximumAttempts`` were made.
        case maximumAttempts
        /// The next wait would have gone past ``RetryMiddleware/budget``.
        case budget
    }

    /// Creates the error; ``RetryMiddleware`` does this for you.
    public init(
        attempts: Int,
        reason: Reason,
        underlyingError: (any Error)? = nil,
        response: HTTPURLResponse? = nil,
        data: Data? = nil
    ) {
        self.attempts = attempts
        self.reason = reason
        self.underlyingError = underlyingError
        self.response = response
        self.data = data
    }

    /// A sentence with the attempt count and the last outcome (never a URL or header value).
    public var description: String {
        let why = reason == .budget ? "the time budget ran out" : "the maximum number of attempts was reached"
        let last: String
        if let response {
            last = "status \(response.statusCode)"
        } else if let error = underlyingError as? URLError {
            last = "URLError \(error.code.rawValue)"
        } else if let underlyingError {
            last = String(describing: type(of: underlyingError))
        } else {
            last = "no outcome"
        }
        return "Gave up after \(attempts) attempt\(attempts == 1 ? "" : "s") because \(why); the last was \(last)."
    }
}
