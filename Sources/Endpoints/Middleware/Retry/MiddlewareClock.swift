import Foundation

/// The time source and the waiting of ``RetryMiddleware`` and ``ChaosMiddleware``, so tests can
/// run backoff, `Retry-After` and injected latency without taking real time.
///
/// ```swift
/// /// Never waits; records what it was asked to wait and moves its own time forward.
/// final class TestClock: MiddlewareClock {
///     private let state = Mutex((now: Date(timeIntervalSince1970: 0), slept: [TimeInterval]()))
///     var now: Date { state.withLock { $0.now } }
///     func sleep(seconds: TimeInterval) async throws {
///         state.withLock { $0.now += seconds; $0.slept.append(seconds) }
///     }
/// }
/// ```
public protocol MiddlewareClock: Sendable {
    /// The current wall-clock time; used for the retry budget and to read `Retry-After` dates.
    var now: Date { get }
    /// Waits `seconds`; throws `CancellationError` when the task is cancelled meanwhile.
    func sleep(seconds: TimeInterval) async throws
}

/// The real clock: `Date()` and `Task.sleep`.
///
/// ```swift
/// RetryMiddleware(clock: SystemMiddlewareClock())   // the default
/// ```
public struct SystemMiddlewareClock: MiddlewareClock {
    /// Creates the clock.
    public init() {}

    /// `Date()`.
    public var now: Date { Date() }

    /// `Task.sleep` for `seconds` (nothing for zero or less).
    public func sleep(seconds: TimeInterval) async throws {
        guard seconds > 0 else { return try Task.checkCancellation() }
        let nanoseconds = min(seconds * 1_000_000_000, Double(UInt64.max / 2))
        try await Task.sleep(nanoseconds: UInt64(nanoseconds))
    }
}
