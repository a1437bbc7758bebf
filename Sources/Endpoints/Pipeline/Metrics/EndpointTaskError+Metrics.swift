import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension EndpointTaskError {
    /// Where the request's time went, when the server answered: for
    /// ``errorResponse(httpResponse:response:)``, ``errorResponseParseError(httpResponse:data:error:)``
    /// and ``responseParseError(httpResponse:data:error:)``.
    ///
    /// ```swift
    /// catch {
    ///     if let metrics = error.metrics { print(metrics) }   // the attempts behind a last 503
    /// }
    /// ```
    ///
    /// `nil` for the other cases: where nothing was sent (a build or authentication error, a
    /// request cancelled before sending) and where no response came (a transport failure, a
    /// cancellation part-way). Those cases keep their values as they were, so that comparing
    /// their `URLError`s behaves as before; an installed ``RequestEventListener`` still receives
    /// the metrics of every request in its last event.
    public var metrics: RequestMetrics? {
        (httpResponse as? ErrorHTTPResponse)?.metrics
    }

    /// This error as the end of the request `recorder` measures: the request finishes with it,
    /// and its metrics are attached. `decoding`: whether it came validating or decoding the body.
    func ended(by recorder: RequestRecorder?, decoding: Bool = false) -> Self {
        guard let recorder else { return self }
        return attaching(recorder.finish(failure: self, decoding: decoding))
    }

    /// This error with `metrics` attached to the response it carries, if it carries one.
    func attaching(_ metrics: RequestMetrics) -> Self {
        switch self {
        case .errorResponse(let response, let body):
            let error = response as? ErrorHTTPResponse
            return .errorResponse(
                httpResponse: ErrorHTTPResponse.make(
                    response, body: error?.body ?? Data(), method: error?.method, metrics: metrics),
                response: body)
        case .errorResponseParseError(let response, let data, let failure):
            return .errorResponseParseError(
                httpResponse: ErrorHTTPResponse.make(response, body: data, metrics: metrics), data: data, error: failure
            )
        case .responseParseError(let response, let data, let failure):
            return .responseParseError(
                httpResponse: ErrorHTTPResponse.make(response, body: data, metrics: metrics), data: data, error: failure
            )
        default:
            return self
        }
    }
}
