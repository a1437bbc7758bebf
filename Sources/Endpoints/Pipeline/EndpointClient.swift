import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends endpoints through a transport of your choice, with middleware for every request it sends.
///
/// `URLSession.shared.response(with:)` is the same as `EndpointClient(session: .shared).response(with:)`:
/// both are ``EndpointSending``, which gives them the same senders.
/// Make a client when production code needs another transport (an adapter for another HTTP
/// library, a recording transport, a ``URLSessionTransport`` with its own per-host limit) or
/// middleware that every endpoint should go through:
///
/// ```swift
/// let client = EndpointClient(
///     transport: URLSessionTransport(session: .shared, maximumRequestsPerHost: 8),
///     middleware: [LoggingMiddleware(level: .basic)]
/// )
/// let user = try await client.response(with: UserEndpoint(pathComponents: .init(userId: 42)))
/// ```
///
/// A client is a small value: keep one per backend, or make them as needed. Middleware run in
/// this order: the endpoint's own (``Endpoint/middleware``), the client's, then those given per request.
public struct EndpointClient: Sendable {
    /// What sends the requests.
    let transport: any HTTPTransport
    /// Middleware for every request this client sends, inside each endpoint's own.
    let middleware: [any Middleware]
    /// Hands the events of this client's requests to its listener; `nil` without one.
    let eventDelivery: EventDelivery?
    /// Whether this client's requests are measured (``TypedResponse/metrics``): always, except
    /// for `endpoints-bench`, which turns it off in alternate rounds to time what measuring costs.
    package var measuresRequests = true

    /// A client that sends through `transport`; `eventListener` receives the events of every
    /// request it sends (see <doc:MetricsAndEvents>).
    public init(
        transport: any HTTPTransport, middleware: [any Middleware] = [],
        eventListener: (any RequestEventListener)? = nil
    ) {
        self.transport = transport
        self.middleware = middleware
        self.eventDelivery = eventListener.map(EventDelivery.init)
    }

    /// A client that sends through `session` with a ``URLSessionTransport``; `eventListener`
    /// receives the events of every request it sends.
    public init(
        session: URLSession, middleware: [any Middleware] = [], eventListener: (any RequestEventListener)? = nil
    ) {
        self.init(
            transport: URLSessionTransport(session: session), middleware: middleware, eventListener: eventListener)
    }
}

/// A decoded response value with the HTTP response it came from.
public struct TypedResponse<Value: Sendable>: Sendable {
    /// The decoded value.
    public let value: Value
    /// The HTTP response: status, headers, URL.
    public let httpResponse: HTTPURLResponse
    /// Where the request's time went: its attempts, waits and decoding (for a mocked call, the
    /// endpoint's name and how long the mock took, with no attempt).
    public var metrics: RequestMetrics { recorder?.metrics ?? RequestMetrics() }
    /// The finished request's recorder, which holds its metrics: they are copied out only when read.
    private let recorder: RequestRecorder?

    /// Pairs a value with its response and the recorder of the request that got it, which ends
    /// the request's measuring: the value is decoded (see `PipelineCall.run`).
    init(value: Value, httpResponse: HTTPURLResponse, recorder: RequestRecorder? = nil) {
        self.value = value
        self.httpResponse = httpResponse
        self.recorder = recorder
        recorder?.finishDecoded()
    }
}
