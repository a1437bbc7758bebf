import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Conveniences that repeated what the value beside them already gives, removed from the public
// surface in this release. Each still compiles, deprecated with the spelling to write instead.

extension TypedResponse {
    /// The response's status code.
    @available(*, deprecated, message: "Write httpResponse.statusCode.")
    public var statusCode: Int { httpResponse.statusCode }

    /// A header of the response, looked up case-insensitively.
    @available(*, deprecated, message: "Write httpResponse.value(forHTTPHeaderField:).")
    public func value(forHTTPHeaderField name: String) -> String? {
        httpResponse.value(forHTTPHeaderField: name)
    }
}

extension EndpointTaskError {
    /// The method of the request the server answered, for ``errorResponse(httpResponse:response:)``.
    @available(
        *, deprecated,
        message: "The method is the one your code sent: the endpoint's definition, or the ad-hoc request's constructor."
    )
    public var requestMethod: String? {
        if case .errorResponse(let response, _) = self { return (response as? ErrorHTTPResponse)?.method }
        return nil
    }
}

extension ChaosMiddleware {
    /// How often each kind of fault happens, as an earlier build of this release took it; the
    /// rates are now arguments of ``ChaosMiddleware/init(seed:latencyRate:latency:failureRate:failureCodes:statusRate:statusCodes:clock:)``.
    @available(
        *, deprecated,
        message:
            "Pass the rates to ChaosMiddleware itself: ChaosMiddleware(seed: 42, latencyRate: 0.2, failureRate: 0.05)."
    )
    public struct Configuration: Sendable, Hashable {
        let rates: Rates

        /// Creates a configuration. Nothing is injected unless you set a rate.
        public init(
            latencyRate: Double = 0,
            latency: ClosedRange<TimeInterval> = 0.1...1,
            failureRate: Double = 0,
            failureCodes: [URLError.Code] = [.timedOut, .networkConnectionLost, .cannotConnectToHost],
            statusRate: Double = 0,
            statusCodes: [Int] = [500, 502, 503, 504]
        ) {
            rates = Rates(
                latencyRate: latencyRate, latency: latency, failureRate: failureRate, failureCodes: failureCodes,
                statusRate: statusRate, statusCodes: statusCodes)
        }
    }

    /// Creates a chaos middleware from a ``Configuration``.
    @available(
        *, deprecated,
        message:
            "Pass the rates to ChaosMiddleware itself: ChaosMiddleware(seed: 42, latencyRate: 0.2, failureRate: 0.05)."
    )
    public init(seed: UInt64? = nil, configuration: Configuration, clock: (any MiddlewareClock)? = nil) {
        self.init(seed: seed, rates: configuration.rates, clock: clock)
    }
}

extension EndpointTaskError {
    /// The URL of the request, when it is known: the response's URL when the server answered,
    /// the failing URL of a load error.
    @available(
        *, deprecated,
        message: "Read httpResponse?.url, or for .urlLoadError(let error) error.failingURL."
    )
    public var url: URL? {
        if let url = httpResponse?.url { return url }
        if case .urlLoadError(let error) = self { return error.failingURL }
        return nil
    }
}
