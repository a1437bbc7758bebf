import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends a request again after transient failures, waiting with exponential backoff and full
/// jitter, or as long as the server's `Retry-After` asks.
///
/// ```swift
/// struct ApiServer: ServerDefinition {
///     var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com")!] }
///     static let middleware: [any Middleware] = [RetryMiddleware(maximumAttempts: 4, budget: 20), LoggingMiddleware()]
/// }
/// ```
///
/// What is retried:
/// - methods `GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS` and `TRACE` (idempotent by RFC 9110); `POST`, `PATCH` and others only when
///   the request carries an `Idempotency-Key` header or `retriesNonIdempotentRequests` is set;
/// - connection failures and timeouts (`retryableErrorCodes`), a body cut off part-way among
///   them (`.networkConnectionLost` on every platform; corelibs' `-1` for it is mapped by the
///   transport), and the statuses 408, 429, 502, 503 and 504 (`retryableStatusCodes`).
///
/// Never retried: cancellation, TLS and certificate failures, and `URLError.unknown` (-1), which
/// is what Linux's URLSession reports for failures curl's words do not place.
///
/// Waiting: a retryable response's `Retry-After` (delay-seconds, or an HTTP-date in any of the
/// three RFC 9110 formats) is honoured, capped at `maximumRetryAfter`; otherwise the wait comes
/// from `backoff`. The retries stop after `maximumAttempts` sends, or when the next wait would
/// pass `budget` seconds since the first send.
///
/// Giving up: when the last outcome is still a retryable failure, that outcome is what the caller
/// gets, in its own typed case: a last 503 arrives as `.errorResponse` with its decoded body, a
/// last timeout as `.urlLoadError`. `onGiveUp` is told the attempt count and the outcome as a
/// ``RetryExhausted``, for logging or metrics:
///
/// ```swift
/// RetryMiddleware(maximumAttempts: 4, onGiveUp: { print("gave up: \($0)") })
/// ```
///
/// (Before, giving up threw `RetryExhausted` as `.middlewareError`, which hid the error's category.)
///
/// Where it goes in the chain: middleware after it (inner) sees every attempt; middleware before
/// it (outer) sees one call. Cancelling the task stops the wait at once.
public struct RetryMiddleware: Middleware {
    /// The most times a request is sent, the first included.
    let maximumAttempts: Int
    /// The most seconds from the first send to the start of the last wait; a retry whose wait
    /// would end later is not made.
    let budget: TimeInterval
    /// The waits between attempts when the server gives no `Retry-After`.
    let backoff: ExponentialBackoff
    /// The longest `Retry-After` honoured; longer values are cut to this.
    let maximumRetryAfter: TimeInterval
    /// Statuses that are retried.
    let retryableStatusCodes: Set<Int>
    /// `URLError` codes that are retried.
    let retryableErrorCodes: Set<URLError.Code>
    /// Methods retried without an `Idempotency-Key` (upper-case).
    let idempotentMethods: Set<String>
    /// Retry every method, `POST` and `PATCH` included. Only for APIs that deduplicate requests.
    let retriesNonIdempotentRequests: Bool
    /// The time source and waiting; replace it in tests.
    let clock: any MiddlewareClock
    /// Called when the middleware gives up on a retryable failure, before the last outcome is
    /// returned or thrown.
    let onGiveUp: (@Sendable (RetryExhausted) -> Void)?

    private let generator: Locked<SplitMix64>?

    /// The statuses retried by default: 408, 429, 502, 503, 504.
    static let standardStatusCodes: Set<Int> = [408, 429, 502, 503, 504]

    /// The `URLError` codes retried by default: connection failures and timeouts.
    static let standardErrorCodes: Set<URLError.Code> = [
        .timedOut, .cannotConnectToHost, .networkConnectionLost, .cannotFindHost, .dnsLookupFailed,
        .notConnectedToInternet,
    ]

    /// Creates a retry middleware.
    ///
    /// ```swift
    /// RetryMiddleware()                                           // 3 attempts within 30 s
    /// RetryMiddleware(maximumAttempts: 5, budget: 60, initialDelay: 1, maximumDelay: 20)
    /// RetryMiddleware(clock: testClock, seed: 1)                  // tests: no real waiting, fixed jitter
    /// RetryMiddleware(retryableStatusCodes: [408, 429, 500, 502, 503, 504])   // 500 too
    /// ```
    /// - Parameters:
    ///   - maximumAttempts: The most sends, at least 1.
    ///   - budget: The most seconds spent, waits included.
    ///   - initialDelay: Without `Retry-After`, the longest wait before the first retry, in seconds;
    ///     each wait is drawn at random below its ceiling (full jitter), so clients that failed
    ///     together do not retry together.
    ///   - delayMultiplier: How much the ceiling grows with each retry (at least 1).
    ///   - maximumDelay: The largest ceiling, in seconds. With the defaults: up to 0.25 s before the
    ///     first retry, 0.5 s before the second, then 1, 2, 4 and 8 s at most.
    ///   - maximumRetryAfter: The cap on `Retry-After`.
    ///   - retryableStatusCodes: Statuses to retry; `nil` for 408, 429, 502, 503 and 504.
    ///   - retryableErrorCodes: `URLError` codes to retry; `nil` for connection failures and timeouts
    ///     (`.timedOut`, `.cannotConnectToHost`, `.networkConnectionLost`, `.cannotFindHost`,
    ///     `.dnsLookupFailed`, `.notConnectedToInternet`). `.unknown`, `.cancelled` and TLS codes are ignored.
    ///   - retriesNonIdempotentRequests: Retry `POST`, `PATCH` and other methods too.
    ///   - clock: The time source and waiting, for tests; `nil` for `Date()` and `Task.sleep`.
    ///   - seed: Seeds the jitter so waits repeat exactly; random when `nil`.
    ///   - onGiveUp: Told the attempt count and the last outcome when the retries run out.
    public init(
        maximumAttempts: Int = 3,
        budget: TimeInterval = 30,
        initialDelay: TimeInterval = 0.25,
        delayMultiplier: Double = 2,
        maximumDelay: TimeInterval = 8,
        maximumRetryAfter: TimeInterval = 60,
        retryableStatusCodes: Set<Int>? = nil,
        retryableErrorCodes: Set<URLError.Code>? = nil,
        retriesNonIdempotentRequests: Bool = false,
        clock: (any MiddlewareClock)? = nil,
        seed: UInt64? = nil,
        onGiveUp: (@Sendable (RetryExhausted) -> Void)? = nil
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.budget = max(0, budget)
        self.backoff = ExponentialBackoff(initial: initialDelay, multiplier: delayMultiplier, maximum: maximumDelay)
        self.maximumRetryAfter = max(0, maximumRetryAfter)
        self.retryableStatusCodes = retryableStatusCodes ?? Self.standardStatusCodes
        self.retryableErrorCodes = (retryableErrorCodes ?? Self.standardErrorCodes).subtracting(Self.neverRetried)
        self.idempotentMethods = Method.idempotentNames
        self.retriesNonIdempotentRequests = retriesNonIdempotentRequests
        self.clock = clock ?? SystemClock()
        self.generator = seed.map { Locked(SplitMix64(seed: $0)) }
        self.onGiveUp = onGiveUp
    }

    /// Codes that mean "do not try again": cancellation, TLS (Linux reports it as `.unknown`), certificates.
    static let neverRetried: Set<URLError.Code> = [
        .cancelled, .unknown, .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
        .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
        .clientCertificateRequired, .userCancelledAuthentication, .userAuthenticationRequired,
    ]

    /// Sends `request`, and again after retryable failures, as described on ``RetryMiddleware``.
    public func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        guard mayRetry(request) else { return try await next(request) }
        let start = clock.now
        var attempt = 0
        while true {
            attempt += 1
            var wait: TimeInterval
            let outcome: Result<(Data, HTTPURLResponse), any Error>
            do {
                let (data, response) = try await next(request)
                guard retryableStatusCodes.contains(response.statusCode) else { return (data, response) }
                outcome = .success((data, response))
                wait = nextWait(afterAttempt: attempt)
                if let header = response.value(forHTTPHeaderField: "Retry-After"),
                    let requested = RetryAfterHeader.delay(from: header, now: clock.now)
                {
                    wait = min(requested, maximumRetryAfter)
                }
            } catch {
                guard isRetryable(error) else { throw error }
                outcome = .failure(error)
                wait = nextWait(afterAttempt: attempt)
            }
            let reason: RetryExhausted.Reason? =
                if attempt >= maximumAttempts {
                    .maximumAttempts
                } else if clock.now.timeIntervalSince(start) + wait > budget {
                    .budget
                } else {
                    nil
                }
            if let reason {
                // The last outcome goes to the caller as it came, so its category survives.
                onGiveUp?(RetryExhausted(attempts: attempt, reason: reason, outcome: outcome))
                return try outcome.get()
            }
            try Task.checkCancellation()
            context.recorder?.retryScheduled(reason: Self.reason(for: outcome), delay: wait)
            try await clock.sleep(seconds: wait)
        }
    }

    /// Why a retry is made, for the request's events: `status 503`, `URLError -1001`.
    static func reason(for outcome: Result<(Data, HTTPURLResponse), any Error>) -> String {
        switch outcome {
        case .success((_, let response)): "status \(response.statusCode)"
        case .failure(let error as URLError): "URLError \(error.code.rawValue)"
        case .failure: "error"
        }
    }

    /// Whether this request may be sent more than once.
    func mayRetry(_ request: URLRequest) -> Bool {
        if maximumAttempts <= 1 { return false }
        if retriesNonIdempotentRequests || request.value(forHTTPHeaderField: "Idempotency-Key") != nil { return true }
        return idempotentMethods.contains((request.httpMethod ?? "GET").uppercased())
    }

    /// Whether a failure without a response is worth another attempt.
    func isRetryable(_ error: any Error) -> Bool {
        guard let error = error as? URLError else { return false }
        return retryableErrorCodes.contains(error.code)
    }

    private func nextWait(afterAttempt attempt: Int) -> TimeInterval {
        let unit =
            generator?.withLock { $0.nextUnitInterval() }
            ?? Double.random(in: 0..<1)
        return backoff.delay(forRetry: attempt, unit: unit)
    }
}
