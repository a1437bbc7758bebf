import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What sends endpoints and ad-hoc requests through the pipeline: `URLSession` and ``EndpointClient``.
///
/// Every sender is written once, on this protocol, for both: `response(with:)`,
/// `typedResponse(with:)`, `endpointTask(with:)`, `endpointPublisher(with:)`, `bytes(for:)` (whose
/// stream reads events, lines and reconnects through adapters), `upload(_:from:)`, `upload(_:fromFile:)`,
/// `download(_:to:)`, `pages(for:)`, and for ad-hoc requests `response(for:)`, `typedResponse(for:)`,
/// `endpointTask(for:)` and `endpointPublisher(for:)`. A session sends through
/// `EndpointClient(session: self)`, a client through its own transport and middleware.
///
/// ```swift
/// let viaSession = try await URLSession.shared.response(with: ProfileEndpoint())
/// let viaClient = try await EndpointClient(session: .shared).response(with: ProfileEndpoint())
/// ```
///
/// Conform a type of your own to send through the client it holds:
///
/// ```swift
/// struct Backend: EndpointSending {
///     let endpointClient = EndpointClient(session: .shared, middleware: [LoggingMiddleware(level: .basic)])
/// }
/// let profile = try await Backend().response(with: ProfileEndpoint())
/// ```
public protocol EndpointSending {
    /// The client that sends: `EndpointClient(session: self)` for a session, the client itself
    /// for a client.
    ///
    /// ```swift
    /// let client = URLSession.shared.endpointClient   // sends through URLSession.shared
    /// ```
    var endpointClient: EndpointClient { get }
}

extension URLSession: EndpointSending {
    /// A client that sends through this session, with no middleware of its own:
    /// `EndpointClient(session: self)`.
    ///
    /// ```swift
    /// let response = try await URLSession.shared.endpointClient.response(with: MyEndpoint())
    /// ```
    public var endpointClient: EndpointClient { EndpointClient(session: self) }
}

extension EndpointClient: EndpointSending {
    /// The client itself.
    ///
    /// ```swift
    /// let client = EndpointClient(session: .shared)
    /// let same = client.endpointClient   // client
    /// ```
    public var endpointClient: EndpointClient { self }
}

extension EndpointSending {
    /// `endpoint` as the pipeline runs it, with ``endpointClient``'s middleware between the
    /// endpoint's and the call's.
    func call<T: Endpoint>(
        _ endpoint: T,
        environment: T.Server.Environments,
        auth: T.Auth,
        middleware: [any Middleware]
    ) -> PipelineCall<T.Response, T.ErrorResponse> {
        let client = endpointClient
        var call = PipelineCall(
            endpoint, environment: environment, auth: auth, middleware: client.middleware + middleware,
            eventDelivery: client.eventDelivery)
        call.measures = client.measuresRequests
        return call
    }
}
