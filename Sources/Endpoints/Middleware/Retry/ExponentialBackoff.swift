import Foundation

/// Exponential backoff with full jitter: before retry `n` (1 for the first retry), wait a random
/// time between 0 and `min(maximum, initial × multiplier^(n-1))`.
///
/// Full jitter spreads clients that failed together, so they do not retry together.
/// Set with ``RetryMiddleware``'s `initialDelay`, `delayMultiplier` and `maximumDelay`.
struct ExponentialBackoff: Sendable, Hashable {
    /// The ceiling before the first retry, in seconds.
    let initial: TimeInterval
    /// How much the ceiling grows with each retry.
    let multiplier: Double
    /// The largest ceiling, in seconds.
    let maximum: TimeInterval

    /// Creates a backoff; negative values count as 0 and a multiplier below 1 as 1.
    ///
    /// - Parameters:
    ///   - initial: The ceiling before the first retry, in seconds.
    ///   - multiplier: How much the ceiling grows with each retry.
    ///   - maximum: The largest ceiling, in seconds.
    init(initial: TimeInterval = 0.25, multiplier: Double = 2, maximum: TimeInterval = 8) {
        self.initial = max(0, initial)
        self.multiplier = max(1, multiplier)
        self.maximum = max(0, maximum)
    }

    /// The longest wait before retry `retry` (1 for the first retry).
    func ceiling(forRetry retry: Int) -> TimeInterval {
        let exponent = Double(max(0, retry - 1))
        let grown = initial * pow(multiplier, exponent)
        return grown.isFinite ? min(maximum, grown) : maximum
    }

    /// A random wait in `0...ceiling(forRetry: retry)` drawn from `unit`, a number in `0..<1`.
    ///
    /// ```swift
    /// var generator = SplitMix64(seed: 7)
    /// let wait = backoff.delay(forRetry: 2, unit: generator.nextUnitInterval())
    /// ```
    func delay(forRetry retry: Int, unit: Double) -> TimeInterval {
        ceiling(forRetry: retry) * min(max(unit, 0), 1)
    }
}
