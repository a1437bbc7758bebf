import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension EndpointSending {
    /// Sends `endpoint` and returns its typed response.
    ///
    /// ```swift
    /// let response = try await URLSession.shared.response(with: MyEndpoint())
    ///
    /// // Per-request context, for apps that talk to several deployments or accounts at once:
    /// let profile = try await URLSession.shared.response(
    ///     with: ProfileEndpoint(),
    ///     environment: client.environment,
    ///     auth: client.auth
    /// )
    /// ```
    ///
    /// The request is built, authenticated, passed through the middleware and sent; a response
    /// whose status the endpoint accepts (2xx by default) is decoded as `T.Response`, anything else
    /// as `T.ErrorResponse`. When the authentication method asks for it (a ``JWTAuth`` on 401),
    /// credentials are renewed and the request is sent once more. Cancelling the calling task
    /// cancels the request.
    ///
    /// - Parameters:
    ///   - endpoint: The endpoint to send.
    ///   - environment: The server environment; the server's `defaultEnvironment` when omitted.
    ///   - auth: The authentication method; the endpoint's declared `auth` when omitted.
    ///   - middleware: Middleware for this request only, inside the endpoint's and the client's.
    /// - Throws: `T.TaskError`, which covers every failure.
    public func response<T: Endpoint>(
        with endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = []
    ) async throws(T.TaskError) -> T.Response {
        let client = endpointClient
        return try await client.call(endpoint, environment: environment, auth: auth, middleware: middleware)
            .run(on: client.transport).0
    }

    /// Sends `endpoint` with its declared environment and authentication: the same as
    /// ``response(with:environment:auth:middleware:)`` with every parameter omitted.
    ///
    /// ```swift
    /// let response = try await URLSession.shared.response(with: MyEndpoint())
    /// ```
    ///
    /// A separate overload rather than only default arguments: a default argument such as
    /// `T.Server.defaultEnvironment` is evaluated at the call site, and when that call site is the
    /// refresh handler inside the server's own `static let auth = JWTAuth(...)` (the README's
    /// sample), the server's conformance is still being inferred there and the compiler crashed.
    public func response<T: Endpoint>(with endpoint: T) async throws(T.TaskError) -> T.Response {
        try await response(with: endpoint, environment: T.Server.defaultEnvironment, auth: T.auth)
    }

    /// Sends `endpoint` and returns its typed response together with the HTTP response it came
    /// from, for the status and headers (an `ETag`, a rate limit, a `Location`).
    ///
    /// ```swift
    /// let result = try await URLSession.shared.typedResponse(with: ProfileEndpoint())
    /// print(result.httpResponse.statusCode, result.httpResponse.value(forHTTPHeaderField: "ETag") ?? "")
    /// ```
    ///
    /// Sent like ``response(with:environment:auth:middleware:)``. A mocked call reports status 200
    /// with no headers.
    public func typedResponse<T: Endpoint>(
        with endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = []
    ) async throws(T.TaskError) -> TypedResponse<T.Response> {
        let client = endpointClient
        let (value, response, recorder) = try await client.call(
            endpoint, environment: environment, auth: auth, middleware: middleware
        ).run(on: client.transport)
        return TypedResponse(value: value, httpResponse: response, recorder: recorder)
    }
}
