import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The streaming senders of earlier builds of this release, one per kind of stream, now adapters
// of the one stream `bytes(for:)` returns (`.events`, `.events.values`, `.lines`,
// `.events.reconnecting(_:)`), and the parsers that were public for standalone use. Kept so that
// code calling them still compiles, with a warning.

extension EndpointSending {
    /// Sends `endpoint` and returns the server-sent events of its body, as they arrive.
    @available(*, deprecated, message: "Use bytes(for:).events instead: try await client.bytes(for: endpoint).events.")
    public func events<T: Endpoint>(
        for endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = []
    ) async throws(T.TaskError) -> EndpointStream<T, ServerSentEvent> {
        try await bytes(for: endpoint, environment: environment, auth: auth, middleware: middleware).events
    }

    /// Sends `endpoint` and returns the `data` of each server-sent event decoded as its `Response`.
    @available(
        *, deprecated,
        message: "Use bytes(for:).events.values instead: try await client.bytes(for: endpoint).events.values."
    )
    public func eventValues<T: Endpoint>(
        for endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = []
    ) async throws(T.TaskError) -> EndpointStream<T, T.Response> {
        try await bytes(for: endpoint, environment: environment, auth: auth, middleware: middleware).events.values
    }

    /// Sends `endpoint` and returns each line of its JSON Lines body decoded as its `Response`.
    @available(*, deprecated, message: "Use bytes(for:).lines instead: try await client.bytes(for: endpoint).lines.")
    public func lines<T: Endpoint>(
        for endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = []
    ) async throws(T.TaskError) -> EndpointStream<T, T.Response> {
        try await bytes(for: endpoint, environment: environment, auth: auth, middleware: middleware).lines
    }

    /// Sends `endpoint` when iterated and returns its server-sent events, reconnecting when the
    /// connection ends; the first connection too is retried after a connection error.
    @available(
        *, deprecated,
        message:
            "Use bytes(for:).events.reconnecting(_:) instead: try await client.bytes(for: endpoint).events.reconnecting()."
    )
    public func events<T: Endpoint>(
        for endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = [],
        reconnecting reconnection: EventStreamReconnection
    ) -> ReconnectingEventStream<T.ErrorResponse> {
        let reopen = reopen(endpoint, environment, auth, middleware)
        let format = StreamFormat<T, Data>.bytes
        return ReconnectingEventStream {
            var events = EndpointStream<T, ServerSentEvent>.AsyncIterator(
                first: nil, reopen: reopen, format: .events(of: format), reconnection: reconnection.policy)
            return { () async throws(T.TaskError) -> ServerSentEvent? in try await events.next() }
        }
    }
}

/// Server-sent events that survive dropped connections, sent when first iterated.
@available(
    *, deprecated,
    message: "Use EndpointStream instead: try await client.bytes(for: endpoint).events.reconnecting()."
)
public struct ReconnectingEventStream<ErrorResponse: Sendable>: AsyncSequence, Sendable {
    let makeNext: @Sendable () -> () async throws(EndpointTaskError<ErrorResponse>) -> ServerSentEvent?

    init(_ makeNext: @escaping @Sendable () -> () async throws(EndpointTaskError<ErrorResponse>) -> ServerSentEvent?) {
        self.makeNext = makeNext
    }

    /// Reads events, reconnecting as the stream's ``EventStreamReconnection`` says.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let nextEvent: () async throws(EndpointTaskError<ErrorResponse>) -> ServerSentEvent?

        /// The next event, reconnecting first when the connection ended.
        public mutating func next() async throws(EndpointTaskError<ErrorResponse>) -> ServerSentEvent? {
            try await nextEvent()
        }
    }

    /// An iterator that opens the stream when first asked.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(nextEvent: makeNext()) }
}

/// An incremental parser for the WHATWG `text/event-stream` format.
@available(*, deprecated, message: "Read a response's events with bytes(for:).events; the parser is no longer public.")
public struct ServerSentEventParser: Sendable {
    var parser: EventStreamParser

    /// Creates a parser at the start of a stream.
    public init(dispatchesUnterminatedEvent: Bool = false) {
        // No limit: the public parser never had one.
        parser = EventStreamParser(dispatchesUnterminatedEvent: dispatchesUnterminatedEvent, maximumSize: .max)
    }

    /// Reads `bytes`, the next part of the stream, and returns the events it completed, in order.
    public mutating func parse(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] { parser.parse(bytes) }

    /// Ends the stream and returns what is left.
    public mutating func finish() -> [ServerSentEvent] { parser.finish() }
}

/// Splits a JSON Lines (NDJSON) stream into its lines, incrementally.
@available(
    *, deprecated, message: "Read a response's JSON lines with bytes(for:).lines; the splitter is no longer public."
)
public struct JSONLinesSplitter: Sendable {
    var splitter = NDJSONSplitter(maximumSize: .max)  // no limit: the public splitter never had one

    /// Creates a splitter at the start of a stream.
    public init() {}

    /// Reads `bytes`, the next part of the stream, and returns the lines it completed, in order.
    public mutating func parse(_ bytes: some Sequence<UInt8>) -> [Data] { splitter.parse(bytes) }

    /// Ends the stream and returns its last line when it had no newline and is not blank.
    public mutating func finish() -> [Data] { splitter.finish() }
}
