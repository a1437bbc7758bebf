import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension EndpointTaskError {
    /// Where the request's time went: for the failures that got an answer
    /// (``errorResponse(httpResponse:response:)``, ``errorResponseParseError(httpResponse:data:error:)``,
    /// ``responseParseError(httpResponse:data:error:)``) and for transport failures
    /// (``urlLoadError(_:)``: a timeout, a refused or lost connection, too many redirects), whose
    /// attempts each say why they failed (``RequestMetrics/Attempt/error``).
    ///
    /// ```swift
    /// catch {
    ///     if let metrics = error.metrics { print(metrics) }   // the attempts behind a last 503 or timeout
    /// }
    /// ```
    ///
    /// A transport failure's metrics ride in its `URLError`'s user info, under a key of the
    /// library's; the code and the rest of the user info are the transport's. `nil` for the
    /// other cases: where nothing was sent (a build or authentication error) and those with no
    /// value to carry them (``internetConnectionOffline``, ``cancelled``) or whose value is
    /// yours (``middlewareError(_:)``, ``streamError(_:)``); an installed
    /// ``RequestEventListener`` receives the metrics of every request in its last event.
    public var metrics: RequestMetrics? {
        if case .urlLoadError(let error) = self { return (error.userInfo[metricsKey] as? MetricsCarrier)?.metrics }
        return (httpResponse as? ErrorHTTPResponse)?.metrics
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
        case .urlLoadError(let error):
            var userInfo = error.userInfo
            userInfo[metricsKey] = MetricsCarrier(metrics)
            return .urlLoadError(URLError(error.code, userInfo: userInfo))
        default:
            return self
        }
    }
}

/// The user info key of a transport failure's metrics.
private let metricsKey = "EndpointsRequestMetrics"

/// A transport failure's metrics in its `URLError`'s user info: a reference whose description is
/// one short line, so that printing the error's user info does not print the whole timeline.
private final class MetricsCarrier: Sendable, CustomStringConvertible {
    let metrics: RequestMetrics

    init(_ metrics: RequestMetrics) { self.metrics = metrics }

    var description: String { "RequestMetrics of \(metrics.endpointName)" }
}
