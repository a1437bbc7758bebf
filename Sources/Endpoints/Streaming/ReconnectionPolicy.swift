import Foundation

/// How a reconnecting event stream (``EndpointStream/reconnecting(delay:maximumDelay:maximumAttempts:reconnectsWhenEnded:)``)
/// comes back after its connection ends, as the WHATWG `EventSource` does.
struct ReconnectionPolicy: Sendable, Equatable {
    /// The wait before reconnecting until the server sets its own with a `retry:` field, in seconds.
    let delay: TimeInterval
    /// The longest wait, however often reconnecting failed and whatever `retry:` asked for.
    let maximumDelay: TimeInterval
    /// How many reconnections in a row may fail before the stream ends with the last error.
    let maximumAttempts: Int
    /// Whether a stream the server ended cleanly is reopened (the standard's behaviour), or ends.
    let reconnectsWhenEnded: Bool

    /// A reconnection policy.
    /// - Parameters:
    ///   - delay: The first wait, in seconds (3 by default, as browsers use); a server's `retry:`
    ///     replaces it. Each failed attempt in a row doubles it, up to `maximumDelay`.
    ///   - maximumDelay: The longest wait, in seconds.
    ///   - maximumAttempts: Failed reconnections in a row before the stream throws.
    ///   - reconnectsWhenEnded: Whether a cleanly ended stream is reopened.
    init(
        delay: TimeInterval = 3,
        maximumDelay: TimeInterval = 60,
        maximumAttempts: Int = 5,
        reconnectsWhenEnded: Bool = true
    ) {
        self.delay = max(0, delay)
        self.maximumDelay = max(0, maximumDelay)
        self.maximumAttempts = max(0, maximumAttempts)
        self.reconnectsWhenEnded = reconnectsWhenEnded
    }

    /// The wait before attempt `failures + 1` when the base wait is `base` seconds.
    func wait(base: TimeInterval, failures: Int) -> TimeInterval {
        min(maximumDelay, base * pow(2, Double(max(0, failures - 1))))
    }
}
