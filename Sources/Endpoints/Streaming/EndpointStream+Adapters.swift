import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The adapters of `EndpointStream`: a byte stream read as server-sent events or JSON lines,
// events decoded as values, and events that reconnect.

extension EndpointStream where Element == Data {
    /// The server-sent events of this `text/event-stream` body, as they arrive.
    ///
    /// ```swift
    /// for try await event in try await client.bytes(for: PriceFeed()).events {
    ///     if event.type == "price" { print(event.data) }
    /// }
    /// ```
    ///
    /// The body is read as the WHATWG event-stream format: `data` lines are joined with newlines,
    /// `event` sets the type, `id` carries over to later events, `retry` is kept, comments are
    /// skipped, and CR, LF and CRLF all end lines; an event the stream ends before its blank line is
    /// discarded, as the standard says. A typed mock whose `Response` is `Data` is parsed as an
    /// event stream.
    public var events: EndpointStream<T, ServerSentEvent> {
        adapted(.events(of: format))
    }

    /// Each line of this JSON Lines (NDJSON) body decoded as the endpoint's `Response` (with
    /// ``Endpoint/decodeResponse(_:response:)``, so `responseDecoder` applies), as the lines arrive.
    ///
    /// ```swift
    /// for try await entry in try await client.bytes(for: AuditLog()).lines {
    ///     print(entry.action)
    /// }
    /// ```
    ///
    /// Blank lines are skipped, CRLF works, and the last line needs no newline. A line that does
    /// not decode ends the stream with `.responseParseError`, which carries that line. With
    /// `Response == Data` each line comes raw. A typed mock answers with its one value.
    public var lines: EndpointStream<T, T.Response> {
        adapted(.lines(of: format, endpoint: endpoint))
    }
}

extension EndpointStream where Element == ServerSentEvent {
    /// The `data` of each event decoded as the endpoint's `Response` (with
    /// ``Endpoint/decodeResponse(_:response:)``, so `responseDecoder` applies).
    ///
    /// ```swift
    /// struct Completion: Endpoint {
    ///     typealias Server = ChatServer
    ///     struct Response: Decodable, Sendable { let token: String }
    ///     static let definition: Definition<Completion> = Definition(method: .post, path: "v1/complete")
    /// }
    ///
    /// for try await chunk in try await client.bytes(for: Completion()).events.values {
    ///     print(chunk.token, terminator: "")
    /// }
    /// ```
    ///
    /// An event whose data does not decode ends the stream with `.responseParseError`, which
    /// carries that event's data. Read ``events`` to see event types and IDs, or to skip events
    /// such as a final `[DONE]`. A typed mock answers with its one value.
    public var values: EndpointStream<T, T.Response> {
        adapted(.values(of: format, endpoint: endpoint))
    }

    /// These events, reconnecting when the connection ends and resuming with `Last-Event-ID`, as
    /// a browser's `EventSource` does.
    ///
    /// ```swift
    /// let feed = try await client.bytes(for: Notifications()).events.reconnecting()
    /// for try await event in feed {
    ///     show(event.data)   // continues across dropped connections
    /// }
    /// ```
    ///
    /// Each reconnection sends the endpoint again like ``EndpointSending/bytes(for:environment:auth:middleware:)``
    /// (authentication, refresh on 401, middleware, mocks), with `Last-Event-ID` set to the id of the
    /// last event received once there is one, after the server's `retry:` time (or the policy's
    /// delay, doubled per failure in a row). It reconnects after a connection error (a `URLError`:
    /// lost connection, timeout, offline) and, unless the policy says otherwise, after a clean end.
    /// It ends without reconnecting when the server answers `204 No Content` (the standard's way to
    /// say "stop"), and throws for anything else: a non-2xx answer (with the endpoint's typed error
    /// body), an authentication failure, cancellation, or `maximumAttempts` failed reconnections in
    /// a row. A typed mock is a finite script: its events are delivered once. ``values`` of a
    /// reconnecting stream reconnect too. By default it waits 3 seconds, doubling per failure up
    /// to a minute, and throws after five failures in a row.
    ///
    /// ```swift
    /// for try await event in try await client.bytes(for: Notifications()).events.reconnecting(maximumAttempts: 10) {
    ///     print(event.data)
    /// }
    /// ```
    /// - Parameters:
    ///   - delay: The first wait, in seconds (3, as browsers use); a server's `retry:` replaces it.
    ///     Each failed attempt in a row doubles it, up to `maximumDelay`.
    ///   - maximumDelay: The longest wait, in seconds, whatever `retry:` asked for.
    ///   - maximumAttempts: Failed reconnections in a row before the stream throws the last error.
    ///   - reconnectsWhenEnded: Whether a stream the server ended cleanly is reopened (the
    ///     standard's behaviour), or ends.
    public func reconnecting(
        delay: TimeInterval = 3,
        maximumDelay: TimeInterval = 60,
        maximumAttempts: Int = 5,
        reconnectsWhenEnded: Bool = true
    ) -> EndpointStream {
        reconnecting(
            ReconnectionPolicy(
                delay: delay, maximumDelay: maximumDelay, maximumAttempts: maximumAttempts,
                reconnectsWhenEnded: reconnectsWhenEnded))
    }

    /// This stream, reconnecting as `policy` says.
    func reconnecting(_ policy: ReconnectionPolicy) -> EndpointStream {
        var stream = self
        stream.reconnection = policy
        return stream
    }
}
