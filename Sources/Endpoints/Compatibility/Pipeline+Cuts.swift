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
