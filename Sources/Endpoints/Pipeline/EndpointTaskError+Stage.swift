/// The step of sending a request that failed, as ``EndpointTaskError/stage`` reports it.
///
/// The steps run in this order: build → authenticate → middleware → transport → validate the
/// status → decode the body; a stream is then read, and a page's link followed.
///
/// ```swift
/// do {
///     let user = try await client.response(with: GetUser(pathComponents: .init(id: 42)))
/// } catch {
///     switch error.stage {
///     case .transport: showOfflineBanner()          // worth retrying
///     case .validation: show(error.description)     // the server said no
///     case .building, .decoding: assertionFailure("\(error)")   // a bug on one side
///     default: log(error)
///     }
/// }
/// ```
///
/// It is one type for every endpoint (not nested in the generic ``EndpointTaskError``), so it can
/// key a dictionary of counts or a metrics label across endpoints. Printed, or as its `rawValue`,
/// it is the case's name: `"\(RequestStage.transport)"` is `transport`.
public enum RequestStage: String, Sendable, Hashable, CaseIterable {
    /// The request could not be built from the endpoint's values or its server; nothing was sent.
    case building
    /// The authentication method could not apply or renew its credentials.
    case authentication
    /// A middleware, or a custom transport, threw an error of its own.
    case middleware
    /// The transport failed: refused, offline, timed out, TLS, a connection lost (also part-way
    /// through a body or a stream), too many redirects.
    case transport
    /// The server answered with a status the endpoint does not accept (its error body decoded or not).
    case validation
    /// The server answered with an accepted status but the body did not decode as `Response`.
    case decoding
    /// A streamed body failed after the request was sent: a value of the stream did not decode, a
    /// custom transport's body threw, an upload's sequence threw, a mock was not a stream.
    case stream
    /// The next page's link was refused (see ``PaginatedEndpoint``).
    case pageLink
    /// The request was cancelled, at whichever step it was.
    case cancellation
}

extension EndpointTaskError {
    /// Which step of sending failed: the same answer for every error of that step, whichever case
    /// carries it.
    ///
    /// ```swift
    /// if error.stage == .transport { scheduleRetry() }
    /// ```
    ///
    /// ``endpointError(_:)`` is ``RequestStage/building``; ``authenticationError(_:)``
    /// ``RequestStage/authentication``; ``middlewareError(_:)`` ``RequestStage/middleware``;
    /// ``urlLoadError(_:)`` and ``internetConnectionOffline`` ``RequestStage/transport``;
    /// ``errorResponse(httpResponse:response:)`` and
    /// ``errorResponseParseError(httpResponse:data:error:)`` ``RequestStage/validation``;
    /// ``responseParseError(httpResponse:data:error:)`` ``RequestStage/decoding``, or
    /// ``RequestStage/stream`` for a value of a stream; ``streamError(_:)``
    /// ``RequestStage/stream``; ``pageLinkError(target:)`` ``RequestStage/pageLink``; ``cancelled``
    /// ``RequestStage/cancellation``.
    public var stage: RequestStage {
        switch self {
        case .endpointError: .building
        case .authenticationError: .authentication
        case .middlewareError: .middleware
        case .urlLoadError, .internetConnectionOffline: .transport
        case .errorResponse, .errorResponseParseError: .validation
        case .responseParseError(_, _, let failure): failure.isStreamedValue ? .stream : .decoding
        case .streamError: .stream
        case .pageLinkError: .pageLink
        case .cancelled: .cancellation
        }
    }

    /// The typed error for a failure while a streamed body was read or written: mapped like
    /// ``init(_:)``, except that an error of no known kind is ``streamError(_:)`` rather than
    /// ``middlewareError(_:)``, since no middleware runs then.
    init(streaming error: any Error) {
        self.init(error)
        if case .middlewareError(let error) = self { self = .streamError(error) }
    }
}

extension DecodingFailure {
    /// The failure of one value of a stream (a JSON line, an event's data).
    static func streamedValue(_ error: any Error) -> DecodingFailure {
        var failure = DecodingFailure(error)
        failure.isStreamedValue = true
        return failure
    }
}
