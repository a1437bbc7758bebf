import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Definition {
    /// Sorts what a data task delivered into the body of a 2xx response or the typed error, as
    /// Endpoints 0.4 did, for code that runs its own `URLSession` tasks. It always accepts 2xx,
    /// whatever the definition's acceptable status codes, as 0.4 did.
    ///
    /// ```swift
    /// let task = URLSession.shared.dataTask(with: try MyEndpoint().urlRequest()) { data, response, error in
    ///     let result = MyEndpoint.definition.response(data: data, response: response, error: error)
    /// }
    /// ```
    ///
    /// A transport error becomes `.internetConnectionOffline`, `.cancelled` or `.urlLoadError`; a
    /// response that is not HTTP `.urlLoadError(URLError(.badServerResponse))`; a 2xx status the
    /// body (empty for 204); any other status `.errorResponse` with the body decoded as
    /// ``Endpoint/ErrorResponse``, or `.errorResponseParseError` when it does not decode.
    /// - Parameters:
    ///   - data: The body, if any.
    ///   - response: The response, if any.
    ///   - error: The transport's error, if any.
    @available(
        *, deprecated,
        message:
            "Send the endpoint with response(with:), or endpointTask(with:) for a completion handler: both sort the outcome into the response or the typed error."
    )
    public func response(data: Data?, response: URLResponse?, error: (any Error)?) -> Result<Data, T.TaskError> {
        if let error {
            // The typed error maps an NSError in NSURLErrorDomain like the URLError it is.
            return .failure(T.TaskError(error))
        }
        guard let httpResponse = response as? HTTPURLResponse else {
            return .failure(.urlLoadError(URLError(.badServerResponse)))
        }
        let data = data ?? Data()
        if (200..<300).contains(httpResponse.statusCode) {
            return .success(httpResponse.statusCode == 204 ? Data() : data)
        }
        // The pipeline's own decoding of an error body, so both answer the same way.
        return .failure(
            PipelineCall<Data, T.ErrorResponse>.errorBody(data, response: httpResponse, method: nil) {
                try T.errorDecoder.decodeErrorBody(T.ErrorResponse.self, from: $0)
            })
    }
}
