import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one request pipeline: build → authenticate → middleware → transport → validate → decode.
///
/// Every way of sending (async, Combine, completion handler, mocks) ends up here.
struct Pipeline<T: Endpoint> {
    let endpoint: T
    let environment: T.Server.Environments
    let auth: T.Auth
    let middleware: [any Middleware]
    let transport: any HTTPTransport

    func run() async throws(T.TaskError) -> T.Response {
        let overrides = PipelineOverrides.current
        if let mocks = overrides.mocks, let outcome = await mocks.resolve(endpoint) {
            return try outcome.get()
        }
        if Task.isCancelled { throw .cancelled }

        let request: URLRequest
        do {
            request = try endpoint.urlRequest(environment: environment)
        } catch {
            throw .endpointError(error)
        }

        let transport = overrides.transport ?? self.transport
        SharedInstanceCheck.assertShared(T.self)
        let credentialHeaders = Set(auth.credentialHeaderNames.map { $0.lowercased() })
        let credentialUpdate = Self.credentialUpdate(for: auth)
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
            let (data, response) = try await exchange(authenticated, context: context, transport: transport)
            if attempt == 1, auth.shouldReauthenticate(for: authenticated, response: response) {
                do {
                    try await auth.reauthenticate(after: authenticated)
                } catch {
                    throw Task.isCancelled ? .cancelled : .authenticationError(error)
                }
                attempt += 1
                continue
            }
            return try Self.decode(data, response: response, for: endpoint)
        }
    }

    /// Re-applies credentials that changed while a request waited, for methods that can change.
    private static func credentialUpdate(for auth: T.Auth) -> (@Sendable (URLRequest) -> URLRequest?)? {
        if T.Auth.self == NoAuth.self { return nil }
        return { request in auth.updatedCredentials(for: request) }
    }

    /// Runs the middleware chain and the transport, mapping failures to the typed error.
    private func exchange(
        _ request: URLRequest,
        context: RequestContext,
        transport: any HTTPTransport
    ) async throws(T.TaskError) -> (Data, HTTPURLResponse) {
        var next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse) = { request in
            try await transport.send(request, context: context)
        }
        for middleware in middleware.reversed() {
            let inner = next
            next = { request in try await middleware.intercept(request, context: context, next: inner) }
        }
        do {
            return try await next(request)
        } catch {
            throw T.TaskError(error)
        }
    }

    /// Validates the status and decodes the body: the typed response for 2xx, the typed error otherwise.
    static func decode(_ data: Data, response: HTTPURLResponse, for endpoint: T) throws(T.TaskError) -> T.Response {
        guard (200..<300).contains(response.statusCode) else {
            if let empty = EmptyCodable() as? T.ErrorResponse {
                throw .errorResponse(httpResponse: response, response: empty)
            }
            let decoded: T.ErrorResponse
            do {
                decoded = try T.errorDecoder.decode(T.ErrorResponse.self, from: data)
            } catch {
                throw .errorResponseParseError(httpResponse: response, data: data, error: DecodingFailure(error))
            }
            throw .errorResponse(httpResponse: response, response: decoded)
        }
        do {
            return try endpoint.decodeResponse(data, response: response)
        } catch {
            throw .responseParseError(httpResponse: response, data: data, error: DecodingFailure(error))
        }
    }
}
