import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What ``RetryMiddleware`` tells its `onGiveUp` callback when it gives up on a
/// retryable failure: the attempt count, why it stopped, and the last outcome. The caller itself
/// receives that last outcome in its own typed case (`.errorResponse` for a 503, `.urlLoadError`
/// for a timeout).
///
/// ```swift
/// let retry = RetryMiddleware(maximumAttempts: 4) { exhausted in
///     switch exhausted.lastOutcome {
///     case .success(let last): print("gave up after \(exhausted.attempts) attempts, last status \(last.response.statusCode)")
///     case .failure(let error): print("gave up after \(exhausted.attempts) attempts, last error \(error)")
///     }
/// }
/// ```
public struct RetryExhausted: Error, Sendable, CustomStringConvertible {
    /// How many times the request was sent.
    public let attempts: Int
    /// Why it stopped.
    public let reason: Reason
    /// What the last attempt got: the response and its body when the server answered (a 503,
    /// say), or the error when it did not (such as a `URLError`).
    public let lastOutcome: Result<(data: Data, response: HTTPURLResponse), any Error>

    /// Why ``RetryMiddleware`` stopped retrying.
    public enum Reason: Sendable, Hashable {
        /// The `maximumAttempts` given to ``RetryMiddleware`` were made.
        case maximumAttempts
        /// The next wait would have gone past the retry middleware's `budget`.
        case budget
    }

    /// Creates the error; ``RetryMiddleware`` does this.
    init(attempts: Int, reason: Reason, outcome: Result<(Data, HTTPURLResponse), any Error>) {
        self.attempts = attempts
        self.reason = reason
        self.lastOutcome = outcome.map { (data: $0.0, response: $0.1) }
    }

    /// A sentence with the attempt count and the last outcome (never a URL or header value).
    public var description: String {
        let why = reason == .budget ? "the time budget ran out" : "the maximum number of attempts was reached"
        let last =
            switch lastOutcome {
            case .success(let last): "status \(last.response.statusCode)"
            case .failure(let error as URLError): "URLError \(error.code.rawValue)"
            case .failure(let error): String(describing: type(of: error))
            }
        return "Gave up after \(attempts) attempt\(attempts == 1 ? "" : "s") because \(why); the last was \(last)."
    }
}
