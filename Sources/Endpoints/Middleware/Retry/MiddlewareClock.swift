import Foundation

/// The time source and the waiting of ``RetryMiddleware`` and ``ChaosMiddleware``, so tests can
/// run backoff, `Retry-After` and injected latency without taking real time.
///
/// ```swift
/// /// Never waits: records each wait and moves its own time forward by it.
/// final class TestClock: MiddlewareClock, @unchecked Sendable {
///     // @unchecked Sendable: `now` and `slept` are only touched while holding `lock`.
///     private let lock = NSLock()
///     private var current = Date(timeIntervalSince1970: 0)
///     private(set) var slept: [TimeInterval] = []
///
///     var now: Date { lock.withLock { current } }
///     func sleep(seconds: TimeInterval) async throws {
///         lock.withLock { current += seconds; slept.append(seconds) }
///     }
/// }
///
/// let clock = TestClock()
/// let retry = RetryMiddleware(clock: clock, seed: 1)
/// ```
///
/// Without one, the middleware reads `Date()` and waits with `Task.sleep`.
public protocol MiddlewareClock: Sendable {
    /// The current wall-clock time; used for the retry budget and to read `Retry-After` dates.
    var now: Date { get }
    /// Waits `seconds`; throws `CancellationError` when the task is cancelled meanwhile.
    func sleep(seconds: TimeInterval) async throws
}

/// The real clock: `Date()` and `Task.sleep`; what the middleware use when given no clock.
struct SystemClock: MiddlewareClock {
    /// `Date()`.
    var now: Date { Date() }

    /// `Task.sleep` for `seconds` (nothing for zero or less).
    func sleep(seconds: TimeInterval) async throws {
        guard seconds > 0 else { return try Task.checkCancellation() }
        let nanoseconds = min(seconds * 1_000_000_000, Double(UInt64.max / 2))
        try await Task.sleep(nanoseconds: UInt64(nanoseconds))
    }
}
