import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AdHocRequest {
    /// The error type every way of sending this request throws.
    public typealias TaskError = EndpointTaskError<ErrorResponse>

    /// The authentication method the request is sent with: its own, its base's, or none.
    var authentication: any AuthenticationMethod { parts.auth ?? parts.target.base?.auth ?? NoAuth() }

    /// The middleware the request goes through: its base's, then its own; outermost first.
    var middlewareChain: [any Middleware] { (parts.target.base?.middleware ?? []) + parts.middleware }

    /// Builds the request, or the typed error that stops it before anything is sent.
    func builtRequest() throws(EndpointError) -> URLRequest {
        guard decode != nil else { throw .unsupportedResponse("\(Response.self)") }
        return try urlRequest()
    }

    /// Validates the status and decodes the body: `Response` for 2xx, `ErrorResponse` otherwise.
    func decodeResult(_ data: Data, response: HTTPURLResponse) throws(TaskError) -> Response {
        guard (200..<300).contains(response.statusCode) else {
            if let empty = EmptyCodable() as? ErrorResponse {
                throw .errorResponse(httpResponse: response, response: empty)
            }
            let decoded: ErrorResponse
            do {
                decoded = try errorDecoder.decode(ErrorResponse.self, from: data)
            } catch {
                throw .errorResponseParseError(httpResponse: response, data: data, error: DecodingFailure(error))
            }
            throw .errorResponse(httpResponse: response, response: decoded)
        }
        guard let decode else { throw .endpointError(.unsupportedResponse("\(Response.self)")) }
        do {
            return try decode(data, response, responseDecoder)
        } catch {
            throw .responseParseError(httpResponse: response, data: data, error: DecodingFailure(error))
        }
    }
}

extension URLSession {
    /// Sends `request` and returns its typed response.
    ///
    /// ```swift
    /// let users = try await URLSession.shared.response(with: Request<[User]>.get("users", on: Api.base))
    /// let age = try await URLSession.shared.response(with: .estimatedAge(forName: "Zaid"))
    /// ```
    ///
    /// The request goes through the pipeline an ``Endpoint`` goes through: it is built (a bad value
    /// fails with `.endpointError` before anything is sent), authenticated with the request's or its
    /// base's method, passed through the base's and the request's middleware, and sent; a 2xx
    /// response is decoded as `Response`, anything else as `ErrorResponse`. Cancelling the calling
    /// task cancels the request.
    /// - Throws: `EndpointTaskError<ErrorResponse>`, which covers every failure.
    public func response<Response, ErrorResponse>(
        with request: AdHocRequest<Response, ErrorResponse>
    ) async throws(EndpointTaskError<ErrorResponse>) -> Response {
        try await AdHocPipeline(request: request, session: self).run()
    }

    /// Sends a ``Request`` (no typed error body): the same as the overload for any
    /// so that static members such as `.estimatedAge(forName:)` resolve without naming the type.
    public func response<Response>(
        with request: Request<Response>
    ) async throws(EndpointTaskError<EmptyCodable>) -> Response {
        try await AdHocPipeline(request: request, session: self).run()
    }
}

/// Sends an ad-hoc request: build → authenticate → middleware → transport → validate → decode.
///
/// A stand-in until the pipeline core runs closures: it follows `Pipeline.run` step for step.
struct AdHocPipeline<Response: Sendable, ErrorResponse: Decodable & Sendable> {
    typealias TaskError = EndpointTaskError<ErrorResponse>
    let request: AdHocRequest<Response, ErrorResponse>
    let session: URLSession

    func run() async throws(TaskError) -> Response {
        let overrides = PipelineOverrides.current
        if Task.isCancelled { throw .cancelled }
        let built: URLRequest
        do {
            built = try request.builtRequest()
        } catch {
            throw .endpointError(error)
        }
        let transport = overrides.transport ?? URLSessionTransport(session: session)
        let auth = request.authentication
        let credentialHeaders = Set(auth.credentialHeaderNames.map { $0.lowercased() })
        var attempt = 1
        while true {
            let authenticated: URLRequest
            do {
                authenticated = try await auth.authenticate(request: built)
            } catch {
                throw Task.isCancelled ? .cancelled : .authenticationError(error)
            }
            let context = RequestContext(
                endpointName: request.name,
                credentialHeaders: credentialHeaders,
                authenticationAttempt: attempt,
                credentialUpdate: { auth.updatedCredentials(for: $0) }
            )
            var next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse) = { request in
                try await transport.send(request, context: context)
            }
            for middleware in request.middlewareChain.reversed() {
                let inner = next
                next = { request in try await middleware.intercept(request, context: context, next: inner) }
            }
            let (data, response): (Data, HTTPURLResponse)
            do {
                (data, response) = try await next(authenticated)
            } catch {
                throw TaskError(error)
            }
            if attempt == 1, auth.shouldReauthenticate(for: authenticated, response: response) {
                do {
                    try await auth.reauthenticate(after: authenticated)
                } catch {
                    throw Task.isCancelled ? .cancelled : .authenticationError(error)
                }
                attempt += 1
                continue
            }
            return try request.decodeResult(data, response: response)
        }
    }
}
