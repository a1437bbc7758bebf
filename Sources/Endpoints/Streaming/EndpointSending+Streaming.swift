import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension EndpointSending {
    /// Sends `endpoint` and returns its body as it arrives: chunks of bytes, or through an adapter
    /// of ``EndpointStream``, server-sent events (``EndpointStream/events``), their data decoded
    /// (``EndpointStream/values``), JSON lines decoded (``EndpointStream/lines``), and events that
    /// reconnect (``EndpointStream/reconnecting(delay:maximumDelay:maximumAttempts:reconnectsWhenEnded:)``).
    ///
    /// ```swift
    /// let stream = try await client.bytes(for: LogTail())
    /// for try await chunk in stream {
    ///     output.write(chunk)
    /// }
    ///
    /// for try await event in try await client.bytes(for: PriceFeed()).events {
    ///     print(event.data)
    /// }
    /// ```
    ///
    /// The request goes through the whole pipeline: it is built, authenticated (renewed and sent
    /// again on a 401, before any body is read), passed through the endpoint's, the client's and
    /// the call's middleware and sent through the client's transport. The call
    /// returns when a 2xx head arrives; any other status throws the endpoint's typed error with
    /// the decoded `ErrorResponse`. Middleware sees the head of a 2xx with an empty body, the body
    /// going to the caller (see <doc:StreamingAndFiles>). A typed mock whose `Response` is `Data`
    /// streams that data.
    ///
    /// - Parameters:
    ///   - endpoint: The endpoint to send.
    ///   - environment: The server environment; the server's `defaultEnvironment` when omitted.
    ///   - auth: The authentication method; the endpoint's declared `auth` when omitted.
    ///   - middleware: Middleware for this request only, inside the endpoint's own.
    /// - Throws: `T.TaskError`, here and while reading.
    public func bytes<T: Endpoint>(
        for endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = []
    ) async throws(T.TaskError) -> EndpointStream<T, Data> {
        try await bytes(for: endpoint, environment, auth, middleware, transfer: .none)
    }

    /// ``bytes(for:environment:auth:middleware:)`` carrying `transfer` to the transport (a
    /// download), its built request changed by `adjust` before authentication (a resumed
    /// download's `Range`).
    func bytes<T: Endpoint>(
        for endpoint: T,
        _ environment: T.Server.Environments,
        _ auth: T.Auth,
        _ middleware: [any Middleware],
        transfer: Transfer,
        adjust: (@Sendable (URLRequest) -> URLRequest)? = nil
    ) async throws(T.TaskError) -> EndpointStream<T, Data> {
        let client = endpointClient
        let first = try await client.connection(
            endpoint, environment, auth, middleware, transfer: transfer, adjust: adjust)
        return EndpointStream(
            endpoint: endpoint, first: first, reopen: reopen(endpoint, environment, auth, middleware), format: .bytes)
    }

    /// How a stream of `endpoint` opens again, sending `Last-Event-ID` once there is one.
    func reopen<T: Endpoint>(
        _ endpoint: T,
        _ environment: T.Server.Environments,
        _ auth: T.Auth,
        _ middleware: [any Middleware]
    ) -> StreamConnection<T>.Open {
        let client = endpointClient
        return { lastEventID throws(T.TaskError) in
            try await client.connection(
                endpoint, environment, auth, [LastEventIDHeader(id: lastEventID)] + middleware, transfer: .none)
        }
    }

    /// Sends `endpoint` and returns the head of its response with the body still arriving, or a
    /// typed mock's value.
    private func connection<T: Endpoint>(
        _ endpoint: T,
        _ environment: T.Server.Environments,
        _ auth: T.Auth,
        _ middleware: [any Middleware],
        transfer: Transfer,
        adjust: (@Sendable (URLRequest) -> URLRequest)? = nil
    ) async throws(T.TaskError) -> StreamConnection<T> {
        let client = endpointClient
        var call = client.call(endpoint, environment: environment, auth: auth, middleware: middleware)
        if let adjust { call = call.adjusted(adjust) }
        switch try await call.carrying(transfer).open(on: client.transport) {
        case .body(let body, let response, let recorder):
            return StreamConnection(response: response, source: .body(body, RecordingEnd(recorder)))
        case .mocked(let value):
            return StreamConnection(response: .mocked, source: .mocked(value))
        }
    }
}

/// Sets `Last-Event-ID` on a reconnection's request, outside every other middleware so that
/// logging shows it.
struct LastEventIDHeader: Middleware {
    let id: String?

    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        guard let id else { return try await next(request) }
        var request = request
        request.setValue(id, forHTTPHeaderField: "Last-Event-ID")
        return try await next(request)
    }
}
