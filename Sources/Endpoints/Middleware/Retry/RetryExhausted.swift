import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What ``RetryMiddleware`` tells its `onGiveUp` callback when it gives up on a
/// retryable failure: the attempt count and the last outcome. The caller itself receives that last
/// outcome in its own typed case (`.errorResponse` for a 503, `.urlLoadError` for a timeout).
///
/// ```swift
/// let retry = RetryMiddleware(maximumAttempts: 4) { exhausted in
///     print("gave up after \(exhausted.attempts) attempts, last status \(exhausted.response?.statusCode ?? 0)")
/// }
/// ```
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
        /// The `maximumAttempts` given to ``RetryMiddleware`` were made.
        case maximumAttempts
        /// The next wait would have gone past the retry middleware's `budget`.
        case budget
    }

    /// Creates the error; ``RetryMiddleware`` does this.
    init(
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

    init(attempts: Int, reason: Reason, outcome: Result<(Data, HTTPURLResponse), any Error>) {
        switch outcome {
        case .success(let (data, response)):
            self.init(attempts: attempts, reason: reason, response: response, data: data)
        case .failure(let error):
            self.init(attempts: attempts, reason: reason, underlyingError: error)
        }
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
