import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Definition {
    /// Sorts what a data task delivered into the body of a 2xx response or the typed error, as
    /// Endpoints 0.4 did, for code that runs its own `URLSession` tasks.
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
    public func response(data: Data?, response: URLResponse?, error: (any Error)?) -> Result<Data, T.TaskError> {
        if let error {
            return .failure(T.TaskError(Self.urlError(error)))
        }
        guard let httpResponse = response as? HTTPURLResponse else {
            return .failure(.urlLoadError(URLError(.badServerResponse)))
        }
        let data = data ?? Data()
        if (200..<300).contains(httpResponse.statusCode) {
            return .success(httpResponse.statusCode == 204 ? Data() : data)
        }
        if let empty = EmptyCodable() as? T.ErrorResponse {
            return .failure(.errorResponse(httpResponse: httpResponse, response: empty))
        }
        do {
            let decoded = try T.errorDecoder.decode(T.ErrorResponse.self, from: data)
            return .failure(.errorResponse(httpResponse: httpResponse, response: decoded))
        } catch {
            return .failure(
                .errorResponseParseError(httpResponse: httpResponse, data: data, error: DecodingFailure(error)))
        }
    }

    /// `error` as a `URLError` when it is one, also when it arrives as an `NSError` in
    /// `NSURLErrorDomain` (which does not bridge on every platform).
    private static func urlError(_ error: any Error) -> any Error {
        if error is URLError { return error }
        let bridged = error as NSError
        guard bridged.domain == NSURLErrorDomain else { return error }
        #if canImport(FoundationNetworking)
            let code = URLError.Code(rawValue: bridged.code) ?? .unknown
        #else
            let code = URLError.Code(rawValue: bridged.code)
        #endif
        return URLError(code, userInfo: bridged.userInfo)
    }
}
