import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Spellings of earlier builds of this release that a smaller surface replaced: a reconnection
// policy's named default, the retry middleware's give-up report read field by field, and the
// limit a too-large body's error repeated. Kept so that code using them still compiles, with a
// warning.

/// How a reconnecting event stream comes back, as a value; the policy's parts are now arguments
/// of ``EndpointStream/reconnecting(delay:maximumDelay:maximumAttempts:reconnectsWhenEnded:)``.
@available(
    *, deprecated,
    message:
        "Pass the policy's parts to reconnecting itself: .reconnecting(delay: 1, maximumDelay: 30, maximumAttempts: 10)."
)
public struct EventStreamReconnection: Sendable, Equatable {
    let policy: ReconnectionPolicy

    /// A reconnection policy.
    public init(
        delay: TimeInterval = 3,
        maximumDelay: TimeInterval = 60,
        maximumAttempts: Int = 5,
        reconnectsWhenEnded: Bool = true
    ) {
        policy = ReconnectionPolicy(
            delay: delay, maximumDelay: maximumDelay, maximumAttempts: maximumAttempts,
            reconnectsWhenEnded: reconnectsWhenEnded)
    }

    /// Three seconds, doubling per failure up to a minute, five failures in a row at most.
    @available(
        *, deprecated,
        message: "Call reconnecting() without arguments: try await client.bytes(for: endpoint).events.reconnecting()."
    )
    public static var `default`: EventStreamReconnection { EventStreamReconnection() }
}

extension EndpointStream where Element == ServerSentEvent {
    /// This stream, reconnecting as `reconnection` says.
    @available(
        *, deprecated,
        message:
            "Pass the policy's parts to reconnecting itself: .reconnecting(delay: 1, maximumDelay: 30, maximumAttempts: 10)."
    )
    public func reconnecting(_ reconnection: EventStreamReconnection) -> EndpointStream {
        reconnecting(reconnection.policy)
    }
}

extension RetryExhausted {
    /// The last error when the last attempt failed without a response, such as a `URLError`.
    @available(
        *, deprecated,
        message: "Read lastOutcome: if case .failure(let error) = exhausted.lastOutcome { ... }."
    )
    public var underlyingError: (any Error)? {
        if case .failure(let error) = lastOutcome { error } else { nil }
    }

    /// The last response when the last attempt got one (a 503, say).
    @available(
        *, deprecated,
        message: "Read lastOutcome: if case .success(let last) = exhausted.lastOutcome { last.response }."
    )
    public var response: HTTPURLResponse? { try? lastOutcome.get().response }

    /// The body of the last response.
    @available(
        *, deprecated,
        message: "Read lastOutcome: if case .success(let last) = exhausted.lastOutcome { last.data }."
    )
    public var data: Data? { try? lastOutcome.get().data }
}

extension ResponseBodyTooLarge {
    /// The most bytes the caller accepted.
    @available(
        *, deprecated,
        message: "Use the limit you passed to collect(upTo:); the error's description names it too."
    )
    public var limit: Int { maximumBytes }
}

/// Exponential backoff with full jitter, as a value; its parts are now arguments of
/// ``RetryMiddleware``: `initialDelay`, `delayMultiplier` and `maximumDelay`.
@available(
    *, deprecated,
    message:
        "Pass the backoff's parts to RetryMiddleware itself: RetryMiddleware(initialDelay: 0.5, delayMultiplier: 2, maximumDelay: 10)."
)
public struct Backoff: Sendable, Hashable {
    let value: ExponentialBackoff

    /// Creates a backoff; negative values count as 0 and a multiplier below 1 as 1.
    public init(initial: TimeInterval = 0.25, multiplier: Double = 2, maximum: TimeInterval = 8) {
        value = ExponentialBackoff(initial: initial, multiplier: multiplier, maximum: maximum)
    }
}

extension RetryMiddleware {
    /// Creates a retry middleware with a ``Backoff`` value.
    @available(
        *, deprecated,
        message:
            "Pass the backoff's parts to RetryMiddleware itself: RetryMiddleware(initialDelay: 0.5, delayMultiplier: 2, maximumDelay: 10)."
    )
    public init(
        maximumAttempts: Int = 3,
        budget: TimeInterval = 30,
        backoff: Backoff,
        maximumRetryAfter: TimeInterval = 60,
        retryableStatusCodes: Set<Int>? = nil,
        retryableErrorCodes: Set<URLError.Code>? = nil,
        retriesNonIdempotentRequests: Bool = false,
        clock: (any MiddlewareClock)? = nil,
        seed: UInt64? = nil,
        onGiveUp: (@Sendable (RetryExhausted) -> Void)? = nil
    ) {
        self.init(
            maximumAttempts: maximumAttempts, budget: budget, initialDelay: backoff.value.initial,
            delayMultiplier: backoff.value.multiplier, maximumDelay: backoff.value.maximum,
            maximumRetryAfter: maximumRetryAfter, retryableStatusCodes: retryableStatusCodes,
            retryableErrorCodes: retryableErrorCodes, retriesNonIdempotentRequests: retriesNonIdempotentRequests,
            clock: clock, seed: seed, onGiveUp: onGiveUp)
    }
}
