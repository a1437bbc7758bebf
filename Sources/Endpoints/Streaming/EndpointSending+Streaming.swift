import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension EndpointSending {
    /// Sends `endpoint` and returns its body as chunks of bytes, as they arrive.
    ///
    /// ```swift
    /// let stream = try await client.bytes(for: LogTail())
    /// for try await chunk in stream {
    ///     output.write(chunk)
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
    ) async throws(T.TaskError) -> EndpointStream<Data, T.ErrorResponse> {
        try await bytes(for: endpoint, environment, auth, middleware, transfer: .none)
    }

    /// ``bytes(for:environment:auth:middleware:)`` carrying `transfer` to the transport (a download).
    func bytes<T: Endpoint>(
        for endpoint: T,
        _ environment: T.Server.Environments,
        _ auth: T.Auth,
        _ middleware: [any Middleware],
        transfer: Transfer
    ) async throws(T.TaskError) -> EndpointStream<Data, T.ErrorResponse> {
        try await openStream(endpoint, environment, auth, middleware, transfer: transfer, decoder: StreamDecoder.chunks)
        {
            value in
            guard let data = value as? Data else { throw MockedStreamError(endpoint: T.self, format: "bytes") }
            return data.isEmpty ? [] : [data]
        }
    }

    /// Sends `endpoint` and returns the server-sent events of its `text/event-stream` body, as
    /// they arrive.
    ///
    /// ```swift
    /// for try await event in try await client.events(for: PriceFeed()) {
    ///     if event.type == "price" { print(event.data) }
    /// }
    /// ```
    ///
    /// The body is read as the WHATWG event-stream format (see ``ServerSentEventParser``); an
    /// event the stream ends before its blank line is discarded, as the standard says. Sent
    /// like ``bytes(for:environment:auth:middleware:)``; a typed mock whose `Response` is `Data`
    /// is parsed as an event stream.
    public func events<T: Endpoint>(
        for endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = []
    ) async throws(T.TaskError) -> EndpointStream<ServerSentEvent, T.ErrorResponse> {
        try await openStream(endpoint, environment, auth, middleware) { _ in
            StreamDecoder.events(ServerSentEventParser())
        } mocked: { value in
            guard let data = value as? Data else { throw MockedStreamError(endpoint: T.self, format: "events") }
            var parser = ServerSentEventParser()
            return parser.parse(data) + parser.finish()
        }
    }

    /// Sends `endpoint` and returns the `data` of each server-sent event decoded as the endpoint's
    /// `Response` (with ``Endpoint/decodeResponse(_:response:)``, so `responseDecoder` applies).
    ///
    /// ```swift
    /// struct Completion: Endpoint {
    ///     typealias Server = ChatServer
    ///     struct Response: Decodable, Sendable { let token: String }
    ///     static let definition: Definition<Completion> = Definition(method: .post, path: "v1/complete")
    /// }
    ///
    /// for try await chunk in try await client.eventValues(for: Completion()) {
    ///     print(chunk.token, terminator: "")
    /// }
    /// ```
    ///
    /// An event whose data does not decode ends the stream with `.responseParseError`, which
    /// carries that event's data. Use ``events(for:environment:auth:middleware:)`` to see event
    /// types and IDs, or to skip events such as a final `[DONE]`. A typed mock answers with its one value.
    public func eventValues<T: Endpoint>(
        for endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = []
    ) async throws(T.TaskError) -> EndpointStream<T.Response, T.ErrorResponse> {
        try await openStream(endpoint, environment, auth, middleware) { [endpoint] response in
            StreamDecoder.events(ServerSentEventParser()) {
                try endpoint.decodeResponse(Data($0.data.utf8), response: response)
            }
        } mocked: {
            [$0]
        }
    }

    /// Sends `endpoint` and returns each line of its JSON Lines (NDJSON) body decoded as the
    /// endpoint's `Response`, as the lines arrive.
    ///
    /// ```swift
    /// for try await entry in try await client.lines(for: AuditLog()) {
    ///     print(entry.action)
    /// }
    /// ```
    ///
    /// Blank lines are skipped, CRLF works, and the last line needs no newline (see
    /// ``JSONLinesSplitter``). A line that does not decode ends the stream with
    /// `.responseParseError`, which carries that line. With `Response == Data` each line comes
    /// raw. A typed mock answers with its one value.
    public func lines<T: Endpoint>(
        for endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = []
    ) async throws(T.TaskError) -> EndpointStream<T.Response, T.ErrorResponse> {
        try await openStream(endpoint, environment, auth, middleware) { [endpoint] response in
            StreamDecoder.jsonLines { try endpoint.decodeResponse($0, response: response) }
        } mocked: {
            [$0]
        }
    }

    /// Sends `endpoint` and returns its server-sent events, reconnecting when the connection ends
    /// and resuming with `Last-Event-ID`, as a browser's `EventSource` does.
    ///
    /// ```swift
    /// for try await event in client.events(for: Notifications(), reconnecting: .default) {
    ///     show(event.data)   // continues across dropped connections
    /// }
    /// ```
    ///
    /// Each connection is sent like ``events(for:environment:auth:middleware:)`` (authentication,
    /// refresh on 401, middleware, mocks), with `Last-Event-ID` set to the id of the last event
    /// received once there is one, after the server's `retry:` time (or the policy's delay). See
    /// ``ReconnectingEventStream`` for when it reconnects and when it ends. Nothing is sent until
    /// the sequence is iterated.
    public func events<T: Endpoint>(
        for endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = [],
        reconnecting reconnection: EventStreamReconnection
    ) -> ReconnectingEventStream<T.ErrorResponse> {
        let client = endpointClient
        return ReconnectingEventStream(reconnection: reconnection) { lastEventID throws(T.TaskError) in
            try await client.events(
                for: endpoint, environment: environment, auth: auth,
                middleware: [LastEventIDHeader(id: lastEventID)] + middleware)
        }
    }

    private func openStream<T: Endpoint, Element: Sendable>(
        _ endpoint: T,
        _ environment: T.Server.Environments,
        _ auth: T.Auth,
        _ middleware: [any Middleware],
        transfer: Transfer = .none,
        decoder: @escaping @Sendable (HTTPURLResponse) -> StreamDecoder<Element>,
        mocked: (T.Response) throws -> [Element]
    ) async throws(T.TaskError) -> EndpointStream<Element, T.ErrorResponse> {
        let client = endpointClient
        let call = client.call(endpoint, environment: environment, auth: auth, middleware: middleware)
        switch try await call.carrying(transfer).open(on: client.transport) {
        case .body(let body, let response):
            return EndpointStream(response: response, body: body) { decoder(response) }
        case .mocked(let value):
            do {
                return EndpointStream(response: .mocked, elements: try mocked(value))
            } catch {
                throw .streamError(error)
            }
        }
    }

    private func openStream<T: Endpoint>(
        _ endpoint: T,
        _ environment: T.Server.Environments,
        _ auth: T.Auth,
        _ middleware: [any Middleware],
        transfer: Transfer = .none,
        decoder: @escaping @Sendable () -> StreamDecoder<Data>,
        mocked: (T.Response) throws -> [Data]
    ) async throws(T.TaskError) -> EndpointStream<Data, T.ErrorResponse> {
        try await openStream(
            endpoint, environment, auth, middleware, transfer: transfer, decoder: { _ in decoder() }, mocked: mocked)
    }
}

/// A typed mock answered a streaming call with a value that cannot be that stream: raw bytes
/// and events need a mock whose `Response` is `Data` (the body).
struct MockedStreamError: Error, CustomStringConvertible {
    let endpoint: Any.Type
    let format: String

    var description: String {
        "A mock of \(endpoint) answered a \(format) stream with a value that is not Data; mock the body as Data, or use a fake transport."
    }
}
