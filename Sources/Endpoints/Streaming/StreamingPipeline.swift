import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The request pipeline for responses read as they arrive: build → authenticate → middleware →
/// transport (``HTTPTransport/stream(_:context:)``) → validate. Decoding happens as the caller
/// reads, in ``EndpointStream``.
///
/// Middleware runs with the response head. For a 2xx the body handed back through the chain is
/// empty and the stream goes to the caller; any other status is read whole first, so logging,
/// retries on 503, refresh on 401 and custom middleware see it as they would a buffered response,
/// and it is decoded as the endpoint's `ErrorResponse`. A middleware that answers a 2xx itself
/// (without calling `next`) streams the data it returned.
struct StreamingPipeline<T: Endpoint> {
    let endpoint: T
    let environment: T.Server.Environments
    let auth: T.Auth
    let middleware: [any Middleware]
    let transport: any HTTPTransport
    /// Changes the built request before authentication: another URL for a next page, an upload's
    /// `Content-Length`.
    var adjust: @Sendable (URLRequest) -> URLRequest = { $0 }
    /// The body of an upload, made afresh for each send (a stream can be read once).
    var bodyStream: (@Sendable () -> InputStream?)?

    /// What opening a stream gives: the head and the body, or a typed mock's value.
    enum Opening {
        case body(ResponseBody, HTTPURLResponse)
        case mocked(T.Response, URL?)
    }

    /// Sends the request and returns once a 2xx head arrived, with the body still arriving.
    /// - Throws: `T.TaskError`; a non-2xx answer as `.errorResponse` (or `.errorResponseParseError`).
    func open() async throws(T.TaskError) -> Opening {
        let overrides = PipelineOverrides.current
        if let mocks = overrides.mocks, let outcome = await mocks.resolve(endpoint) {
            return .mocked(try outcome.get(), try? endpoint.urlRequest(environment: environment).url)
        }
        if Task.isCancelled { throw .cancelled }

        let request: URLRequest
        do {
            request = adjust(try endpoint.urlRequest(environment: environment))
        } catch {
            throw .endpointError(error)
        }

        let transport = overrides.transport ?? self.transport
        let credentialHeaders = Set(auth.credentialHeaderNames.map { $0.lowercased() })
        let credentialUpdate: (@Sendable (URLRequest) -> URLRequest?)? =
            T.Auth.self == NoAuth.self ? nil : { @Sendable [auth] request in auth.updatedCredentials(for: request) }
        var attempt = 1
        while true {
            let authenticated: URLRequest
            do {
                authenticated = try await auth.authenticate(request: request)
            } catch {
                throw Task.isCancelled ? .cancelled : .authenticationError(error)
            }
            let context = RequestContext(
                endpointName: String(describing: T.self),
                credentialHeaders: credentialHeaders,
                authenticationAttempt: attempt,
                credentialUpdate: credentialUpdate
            )
            let (body, data, response) = try await exchange(authenticated, context: context, transport: transport)
            if attempt == 1, auth.shouldReauthenticate(for: authenticated, response: response) {
                body?.cancel()
                do {
                    try await auth.reauthenticate(after: authenticated)
                } catch {
                    throw Task.isCancelled ? .cancelled : .authenticationError(error)
                }
                attempt += 1
                continue
            }
            guard (200..<300).contains(response.statusCode) else {
                body?.cancel()
                // Pipeline.decode throws the typed error for any non-2xx answer.
                _ = try Pipeline<T>.decode(data, response: response, for: endpoint)
                throw .errorResponseParseError(
                    httpResponse: response, data: data, error: DecodingFailure(URLError(.badServerResponse)))
            }
            return .body(body ?? ResponseBody(data), response)
        }
    }

    /// Runs the middleware chain around the streaming transport. A 2xx body is kept aside (the
    /// chain sees it empty); another status is read whole so the chain sees it.
    private func exchange(
        _ request: URLRequest,
        context: RequestContext,
        transport: any HTTPTransport
    ) async throws(T.TaskError) -> (ResponseBody?, Data, HTTPURLResponse) {
        let kept = Locked<ResponseBody?>(nil)
        let bodyStream = self.bodyStream
        var next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse) = { request in
            var request = request
            if let bodyStream { request.httpBodyStream = bodyStream() }
            let (body, response) = try await Self.stream(request, context: context, transport: transport)
            guard (200..<300).contains(response.statusCode) else {
                return (try await body.collect(), response)
            }
            // A middleware that sends again (a retry) replaces the body of the earlier send.
            kept.withLock { kept in
                kept?.cancel()
                kept = body
            }
            return (Data(), response)
        }
        for middleware in middleware.reversed() {
            let inner = next
            next = { request in try await middleware.intercept(request, context: context, next: inner) }
        }
        do {
            let (data, response) = try await next(request)
            let body = kept.withLock { kept in
                defer { kept = nil }
                return kept
            }
            return (body, data, response)
        } catch {
            kept.withLock { $0?.cancel() }
            throw T.TaskError(error)
        }
    }

    /// The transport's stream. Until `stream(_:context:)` is a requirement of ``HTTPTransport``,
    /// a call through the existential reaches the protocol extension's buffered default, so the
    /// transports that stream for real are dispatched to here.
    private static func stream(
        _ request: URLRequest,
        context: RequestContext,
        transport: any HTTPTransport
    ) async throws -> (ResponseBody, HTTPURLResponse) {
        if let transport = transport as? URLSessionTransport {
            return try await transport.stream(request, context: context)
        }
        if let transport = transport as? any StreamingHTTPTransport {
            return try await transport.stream(request, context: context)
        }
        return try await transport.stream(request, context: context)
    }
}

/// A transport that streams responses itself rather than through the buffered default of
/// ``HTTPTransport/stream(_:context:)``. Conform a custom transport to it (the mocking module's
/// fake transport does) so streaming APIs read its bodies as they are produced.
///
/// ```swift
/// extension MyTransport: StreamingHTTPTransport {
///     func stream(_ request: URLRequest, context: RequestContext) async throws -> (ResponseBody, HTTPURLResponse) {
///         let (body, writer) = ResponseBody.makeStream()
///         // … write chunks as they come, then writer.finish()
///         return (body, response)
///     }
/// }
/// ```
public protocol StreamingHTTPTransport: HTTPTransport {
    /// Sends `request` and returns the head as soon as it is known, with the body arriving.
    func stream(_ request: URLRequest, context: RequestContext) async throws -> (ResponseBody, HTTPURLResponse)
}
