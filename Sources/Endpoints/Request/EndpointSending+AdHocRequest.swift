import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension EndpointSending {
    /// Sends `request` and returns its typed response.
    ///
    /// ```swift
    /// let users = try await URLSession.shared.response(for: Request<[User]>.get("users", on: Api.base))
    /// let age = try await URLSession.shared.response(for: .estimatedAge(forName: "Zaid"))
    /// ```
    ///
    /// The request goes through the pipeline an ``Endpoint`` goes through: it is built (a bad value
    /// fails with `.endpointError` before anything is sent), authenticated with the request's or its
    /// base's method, passed through the middleware, and sent; a 2xx response is decoded as
    /// `Response`, anything else as `ErrorResponse`. Middleware run in this order: the request
    /// base's, the client's, then the request's own. Cancelling the calling task cancels the request.
    /// - Throws: `EndpointTaskError<ErrorResponse>`, which covers every failure.
    public func response<Response, ErrorResponse>(
        for request: AdHocRequest<Response, ErrorResponse>
    ) async throws(EndpointTaskError<ErrorResponse>) -> Response {
        try await send(request).0
    }

    /// Sends a ``Request`` (no typed error body), so that static members such as
    /// `.estimatedAge(forName:)` resolve without naming the type.
    ///
    /// ```swift
    /// let age = try await client.response(for: .estimatedAge(forName: "Zaid"))
    /// ```
    public func response<Response>(
        for request: Request<Response>
    ) async throws(EndpointTaskError<EmptyCodable>) -> Response {
        try await send(request).0
    }

    /// Sends `request` and returns its typed response with the HTTP response it came from.
    ///
    /// ```swift
    /// let result = try await URLSession.shared.typedResponse(for: Request<[User]>.get("users", on: Api.base))
    /// let etag = result.httpResponse.value(forHTTPHeaderField: "ETag")
    /// ```
    public func typedResponse<Response, ErrorResponse>(
        for request: AdHocRequest<Response, ErrorResponse>
    ) async throws(EndpointTaskError<ErrorResponse>) -> TypedResponse<Response> {
        let (value, response, recorder) = try await send(request)
        return TypedResponse(value: value, httpResponse: response, recorder: recorder)
    }

    /// Runs `request` through the client's middleware and transport.
    private func send<Response, ErrorResponse>(
        _ request: AdHocRequest<Response, ErrorResponse>
    ) async throws(EndpointTaskError<ErrorResponse>) -> (Response, HTTPURLResponse, RequestRecorder?) {
        let client = endpointClient
        var call = request.call(middleware: client.middleware)
        call.eventDelivery = client.eventDelivery
        return try await call.run(on: client.transport)
    }

    /// Creates a data task for `request`; call `resume()` to send it, `cancel()` to cancel it.
    ///
    /// ```swift
    /// let task = try URLSession.shared.endpointTask(for: .estimatedAge(forName: "Zaid")) { result in
    ///     switch result {
    ///     case .success(let person): print("\(person.name) is probably \(person.age) years old.")
    ///     case .failure(let error): print(error)
    ///     }
    /// }
    /// task.resume()
    /// ```
    ///
    /// The request is built when the task is created: a request that cannot be built throws
    /// `.endpointError` here and nothing is sent. Resuming runs the same pipeline as
    /// `response(for:)`, authentication included (unlike an `Endpoint`'s task, a request's
    /// authentication is a value, known only at run time). The completion handler is called
    /// exactly once, on an arbitrary queue; after `cancel()` it gets `.cancelled` unless it was
    /// already called.
    public func endpointTask<Response, ErrorResponse>(
        for request: AdHocRequest<Response, ErrorResponse>,
        completion: @escaping @Sendable (Result<Response, EndpointTaskError<ErrorResponse>>) -> Void
    ) throws(EndpointTaskError<ErrorResponse>) -> URLSessionDataTask {
        try dataTask(for: request, completion: completion)
    }

    /// Creates a data task for a ``Request`` (no typed error body), so that static members resolve
    /// without naming the type.
    ///
    /// ```swift
    /// let task = try client.endpointTask(for: .estimatedAge(forName: "Zaid")) { result in print(result) }
    /// task.resume()
    /// ```
    public func endpointTask<Response>(
        for request: Request<Response>,
        completion: @escaping @Sendable (Result<Response, EndpointTaskError<EmptyCodable>>) -> Void
    ) throws(EndpointTaskError<EmptyCodable>) -> URLSessionDataTask {
        try dataTask(for: request, completion: completion)
    }

    /// The task both `endpointTask(for:completion:)` overloads return: its request built now, the
    /// pipeline run when resumed.
    private func dataTask<Response, ErrorResponse>(
        for request: AdHocRequest<Response, ErrorResponse>,
        completion: @escaping @Sendable (Result<Response, EndpointTaskError<ErrorResponse>>) -> Void
    ) throws(EndpointTaskError<ErrorResponse>) -> URLSessionDataTask {
        let built: URLRequest
        do {
            built = try request.builtRequest()
        } catch {
            throw .endpointError(error)
        }
        let client = endpointClient
        let call = request.call(middleware: client.middleware)
        var prebuilt = call
        prebuilt.build = { built }
        prebuilt.eventDelivery = client.eventDelivery
        return PipelineDataTask(request: built, call: prebuilt, transport: client.transport, completion: completion)
    }
}
