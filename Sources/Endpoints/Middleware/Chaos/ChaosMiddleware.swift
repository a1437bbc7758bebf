import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Injects latency, transport failures and error statuses at configured rates, to see how an app
/// copes with a bad network. **For debug builds only**: never ship it enabled.
///
/// ```swift
/// struct ApiServer: ServerDefinition {
///     var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com")!] }
///     #if DEBUG
///         // One shared instance: a computed list would restart from the seed on every request.
///         static let middleware: [any Middleware] = [
///             ChaosMiddleware(seed: 42, latencyRate: 0.2, failureRate: 0.05, statusRate: 0.05)
///         ]
///     #endif
/// }
/// ```
///
/// Every request draws one decision (a latency, and a failure, an error status or nothing) from a
/// SplitMix64 generator started from ``seed``, so the same seed gives the same sequence of
/// decisions on every platform: note the seed of a run that failed (it is random when you give
/// none) and pass it again to replay it. With requests in flight at the same time, which request
/// gets which decision depends on the order they arrive in.
///
/// A failure throws `URLError(code)` without sending the request; an error status answers with
/// that status, an `X-Chaos-Seed` header and the JSON body
/// `{"code": status, "message": "Injected by ChaosMiddleware"}`, also without sending. Latency is
/// waited before either, or before sending. Put it innermost (last) so that retries and logging see
/// the injected faults the way they would see real ones: a ``LoggingMiddleware`` before it logs
/// each injected failure and status.
public struct ChaosMiddleware: Middleware {
    /// How often each kind of fault happens; rates are probabilities from 0 to 1.
    struct Rates: Sendable, Hashable {
        /// The share of requests delayed.
        let latencyRate: Double
        /// How long a delayed request waits, in seconds, drawn uniformly.
        let latency: ClosedRange<TimeInterval>
        /// The share of requests that fail with a `URLError`.
        let failureRate: Double
        /// The codes failures are drawn from.
        let failureCodes: [URLError.Code]
        /// The share of requests answered with an error status (not overlapping with failures).
        let statusRate: Double
        /// The statuses drawn from.
        let statusCodes: [Int]

        /// Clamps each rate to 0...1 and the latency to non-negative seconds.
        init(
            latencyRate: Double = 0,
            latency: ClosedRange<TimeInterval> = 0.1...1,
            failureRate: Double = 0,
            failureCodes: [URLError.Code] = [.timedOut, .networkConnectionLost, .cannotConnectToHost],
            statusRate: Double = 0,
            statusCodes: [Int] = [500, 502, 503, 504]
        ) {
            self.latencyRate = min(max(latencyRate, 0), 1)
            self.latency = max(0, latency.lowerBound)...max(0, latency.upperBound)
            self.failureRate = min(max(failureRate, 0), 1)
            self.failureCodes = failureCodes
            self.statusRate = min(max(statusRate, 0), 1)
            self.statusCodes = statusCodes
        }
    }

    /// What happens to one request, besides latency.
    enum Fault: Sendable, Hashable {
        /// The request is sent normally.
        case none
        /// The request fails with `URLError(code)` and is not sent.
        case failure(URLError.Code)
        /// The request is answered with this status and is not sent.
        case status(Int)
    }

    /// What the middleware decided for one request.
    struct Decision: Sendable, Hashable {
        /// Seconds waited before anything else; 0 for none.
        let latency: TimeInterval
        /// The fault injected.
        let fault: Fault

        /// Creates a decision.
        init(latency: TimeInterval, fault: Fault) {
            self.latency = latency
            self.fault = fault
        }
    }

    /// The seed the decisions come from; reuse it to replay a run.
    public let seed: UInt64
    /// The rates and choices.
    let rates: Rates
    /// Waits the injected latency; replace it in tests.
    let clock: any MiddlewareClock
    private let generator: Locked<SplitMix64>

    /// Creates a chaos middleware. Nothing is injected unless you set a rate; rates are
    /// probabilities from 0 to 1.
    ///
    /// ```swift
    /// let chaos = ChaosMiddleware(failureRate: 0.1)
    /// print("chaos seed", chaos.seed)   // to replay: ChaosMiddleware(seed: thatSeed, failureRate: 0.1)
    /// ```
    /// - Parameters:
    ///   - seed: Where the decisions start; random when `nil`.
    ///   - latencyRate: The share of requests delayed.
    ///   - latency: How long a delayed request waits, in seconds, drawn uniformly.
    ///   - failureRate: The share of requests that fail with a `URLError`.
    ///   - failureCodes: The codes failures are drawn from.
    ///   - statusRate: The share of requests answered with an error status (not overlapping with
    ///     failures).
    ///   - statusCodes: The statuses drawn from.
    ///   - clock: Waits the injected latency, for tests; `nil` for `Task.sleep`.
    public init(
        seed: UInt64? = nil,
        latencyRate: Double = 0,
        latency: ClosedRange<TimeInterval> = 0.1...1,
        failureRate: Double = 0,
        failureCodes: [URLError.Code] = [.timedOut, .networkConnectionLost, .cannotConnectToHost],
        statusRate: Double = 0,
        statusCodes: [Int] = [500, 502, 503, 504],
        clock: (any MiddlewareClock)? = nil
    ) {
        self.init(
            seed: seed,
            rates: Rates(
                latencyRate: latencyRate, latency: latency, failureRate: failureRate, failureCodes: failureCodes,
                statusRate: statusRate, statusCodes: statusCodes),
            clock: clock)
    }

    /// Creates a chaos middleware drawing from `rates`.
    init(seed: UInt64?, rates: Rates, clock: (any MiddlewareClock)? = nil) {
        let seed = seed ?? UInt64.random(in: 0...UInt64.max)
        self.seed = seed
        self.rates = rates
        self.clock = clock ?? SystemClock()
        self.generator = Locked(SplitMix64(seed: seed))
    }

    /// Draws the next decision, exactly as ``intercept(_:context:next:)`` would.
    ///
    /// Each decision consumes five numbers, whatever the rates, so changing a rate does not shift
    /// the decisions that follow.
    func nextDecision() -> Decision {
        generator.withLock { generator in
            ChaosMiddleware.decide(rates, using: &generator)
        }
    }

    static func decide(_ configuration: Rates, using generator: inout SplitMix64) -> Decision {
        let latencyRoll = generator.nextUnitInterval()
        let latencyUnit = generator.nextUnitInterval()
        let faultRoll = generator.nextUnitInterval()
        let failurePick = generator.next()
        let statusPick = generator.next()
        let range = configuration.latency
        let latency =
            latencyRoll < configuration.latencyRate
            ? range.lowerBound + (range.upperBound - range.lowerBound) * latencyUnit : 0
        let fault: Fault
        if faultRoll < configuration.failureRate, !configuration.failureCodes.isEmpty {
            fault = .failure(configuration.failureCodes[Int(failurePick % UInt64(configuration.failureCodes.count))])
        } else if faultRoll < configuration.failureRate + configuration.statusRate, !configuration.statusCodes.isEmpty {
            fault = .status(configuration.statusCodes[Int(statusPick % UInt64(configuration.statusCodes.count))])
        } else {
            fault = .none
        }
        return Decision(latency: latency, fault: fault)
    }

    /// Applies the next decision to `request`.
    public func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        let decision = nextDecision()
        if decision.latency > 0 { try await clock.sleep(seconds: decision.latency) }
        switch decision.fault {
        case .none:
            return try await next(request)
        case .failure(let code):
            throw URLError(code)
        case .status(let status):
            let url = request.url ?? URL(string: "about:blank")!
            let headers = ["Content-Type": "application/json", "X-Chaos-Seed": String(seed)]
            guard
                let response = HTTPURLResponse(
                    url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
            else { throw URLError(.badServerResponse) }
            let body = #"{"code":\#(status),"message":"Injected by ChaosMiddleware"}"#
            return (Data(body.utf8), response)
        }
    }
}
