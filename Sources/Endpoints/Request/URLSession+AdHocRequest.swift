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
        return PipelineCall(
            name: name,
            build: { () throws(EndpointError) in try request.builtRequest(decodes: decode != nil) },
            auth: authentication,
            middleware: (parts.target.base?.middleware ?? []) + middleware + parts.middleware,
            acceptableStatusCodes: parts.acceptableStatusCodes,
            decodeResponse: { data, response in
                guard let decode else { throw EndpointError.unsupportedResponse("\(Response.self)") }
                return try decode(data, response, request.responseDecoder)
            },
            decodeError: { data in try request.errorDecoder.decode(ErrorResponse.self, from: data) },
            mock: { resolver in await (resolver as? any AdHocRequestMockResolver)?.resolve(request) }
        )
    }
}

extension URLSession {
    /// Sends `request` and returns its typed response.
    ///
    /// ```swift
    /// let users = try await URLSession.shared.response(for: Request<[User]>.get("users", on: Api.base))
    /// let age = try await URLSession.shared.response(for: .estimatedAge(forName: "Zaid"))
    /// ```
    ///
    /// The request goes through the pipeline an ``Endpoint`` goes through: it is built (a bad value
    /// fails with `.endpointError` before anything is sent), authenticated with the request's or its
    /// base's method, passed through the base's and the request's middleware, and sent; a 2xx
    /// response is decoded as `Response`, anything else as `ErrorResponse`. Cancelling the calling
    /// task cancels the request.
    /// - Throws: `EndpointTaskError<ErrorResponse>`, which covers every failure.
    public func response<Response, ErrorResponse>(
        for request: AdHocRequest<Response, ErrorResponse>
    ) async throws(EndpointTaskError<ErrorResponse>) -> Response {
        try await EndpointClient(session: self).response(for: request)
    }

    /// Sends a ``Request`` (no typed error body): the same as the overload for any
    /// so that static members such as `.estimatedAge(forName:)` resolve without naming the type.
    public func response<Response>(
        for request: Request<Response>
    ) async throws(EndpointTaskError<EmptyCodable>) -> Response {
        try await EndpointClient(session: self).response(for: request)
    }
}

extension EndpointClient {
    /// Sends `request` through this client's transport and middleware and returns its typed
    /// response; see `URLSession.response(for:)`.
    ///
    /// ```swift
    /// let client = EndpointClient(session: .shared, middleware: [LoggingMiddleware(level: .basic)])
    /// let users = try await client.response(for: Request<[User]>.get("users", on: Api.base))
    /// ```
    ///
    /// Middleware run in this order: the request base's, the client's, then the request's own.
    public func response<Response, ErrorResponse>(
        for request: AdHocRequest<Response, ErrorResponse>
    ) async throws(EndpointTaskError<ErrorResponse>) -> Response {
        try await request.call(middleware: middleware).run(on: transport).0
    }

    /// Sends a ``Request`` (no typed error body), so that static members resolve without naming
    /// the type: `try await client.response(for: .estimatedAge(forName: "Zaid"))`.
    public func response<Response>(
        for request: Request<Response>
    ) async throws(EndpointTaskError<EmptyCodable>) -> Response {
        try await request.call(middleware: middleware).run(on: transport).0
    }

    /// Sends `request` and returns its typed response with the HTTP response it came from.
    ///
    /// ```swift
    /// let result = try await client.typedResponse(for: Request<[User]>.get("users", on: Api.base))
    /// let etag = result.value(forHTTPHeaderField: "ETag")
    /// ```
    public func typedResponse<Response, ErrorResponse>(
        for request: AdHocRequest<Response, ErrorResponse>
    ) async throws(EndpointTaskError<ErrorResponse>) -> TypedResponse<Response> {
        let (value, response) = try await request.call(middleware: middleware).run(on: transport)
        return TypedResponse(value: value, httpResponse: response)
    }

    /// Creates a data task for `request`, sent through this client when resumed; see
    /// `URLSession.endpointTask(for:completion:)`.
    public func endpointTask<Response, ErrorResponse>(
        for request: AdHocRequest<Response, ErrorResponse>,
        completion: @escaping @Sendable (Result<Response, EndpointTaskError<ErrorResponse>>) -> Void
    ) throws(EndpointTaskError<ErrorResponse>) -> URLSessionDataTask {
        let built: URLRequest
        do {
            built = try request.builtRequest()
        } catch {
            throw .endpointError(error)
        }
        let call = request.call(middleware: middleware)
        let prebuilt = PipelineCall(
            name: call.name,
            build: { built },
            auth: call.auth,
            middleware: call.middleware,
            acceptableStatusCodes: call.acceptableStatusCodes,
            decodeResponse: call.decodeResponse,
            decodeError: call.decodeError,
            mock: call.mock
        )
        return PipelineDataTask(request: built, call: prebuilt, transport: transport, completion: completion)
    }
}

extension URLSession {
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
    /// `URLSession.response(for:)`, authentication included (unlike an
    /// `Endpoint`'s task, a request's authentication is a value, known only at run time). The
    /// completion handler is called exactly once, on an arbitrary queue; after `cancel()` it gets
    /// `.cancelled` unless it was already called.
    public func endpointTask<Response, ErrorResponse>(
        for request: AdHocRequest<Response, ErrorResponse>,
        completion: @escaping @Sendable (Result<Response, EndpointTaskError<ErrorResponse>>) -> Void
    ) throws(EndpointTaskError<ErrorResponse>) -> URLSessionDataTask {
        try EndpointClient(session: self).endpointTask(for: request, completion: completion)
    }

    /// Creates a data task for a ``Request`` (no typed error body), so that static members resolve
    /// without naming the type.
    public func endpointTask<Response>(
        for request: Request<Response>,
        completion: @escaping @Sendable (Result<Response, EndpointTaskError<EmptyCodable>>) -> Void
    ) throws(EndpointTaskError<EmptyCodable>) -> URLSessionDataTask {
        try EndpointClient(session: self).endpointTask(for: request, completion: completion)
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
