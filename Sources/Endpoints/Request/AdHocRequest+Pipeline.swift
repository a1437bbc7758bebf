import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AdHocRequest {
    /// The error type every way of sending this request throws.
    public typealias TaskError = EndpointTaskError<ErrorResponse>

    /// The authentication method the request is sent with: its own, its base's, or none.
    var authentication: any AuthenticationMethod { parts.auth ?? parts.target.base?.auth ?? NoAuth() }

    /// Builds the request, or the typed error that stops it before anything is sent: a `Response`
    /// nothing can decode stops it too.
    func builtRequest() throws(EndpointError) -> URLRequest {
        try builtRequest(decodes: decode != nil)
    }

    private func builtRequest(decodes: Bool) throws(EndpointError) -> URLRequest {
        guard decodes else { throw .unsupportedResponse("\(Response.self)") }
        return try urlRequest()
    }

    /// The request as the pipeline runs it, with `middleware` (a client's) between the base's and
    /// the request's own.
    func call(middleware: [any Middleware] = []) -> PipelineCall<Response, ErrorResponse> {
        let request = self
        // Found once per call: each response of a retried call decodes with the same function.
        let decode = decode
        var call = PipelineCall<Response, ErrorResponse>(
            name: name,
            build: { () throws(EndpointError) in try request.builtRequest(decodes: decode != nil) },
            auth: authentication,
            middleware: (parts.target.base?.middleware ?? []) + middleware + parts.middleware,
            acceptableStatusCodes: parts.acceptableStatusCodes,
            decodeResponse: { data, response in
                guard let decode else { throw EndpointError.unsupportedResponse("\(Response.self)") }
                return try decode(data, response, request.responseDecoder)
            },
            decodeError: { data in try request.errorDecoder.decodeErrorBody(ErrorResponse.self, from: data) },
            mock: { resolver in await (resolver as? any AdHocRequestMockResolver)?.resolve(request) }
        )
        call.followsRedirects = parts.followsRedirects
        return call
    }
}

/// Answers ad-hoc requests with typed values instead of sending them: what a mock scope of
/// EndpointsMocking does for a request registered by name, next to the endpoint mock resolver.
package protocol AdHocRequestMockResolver: Sendable {
    /// The mocked outcome for `request`, or `nil` to send it for real.
    func resolve<Response, ErrorResponse>(
        _ request: AdHocRequest<Response, ErrorResponse>
    ) async -> Result<Response, EndpointTaskError<ErrorResponse>>?
}
