import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a reconnecting event stream (``EndpointSending/events(for:environment:auth:middleware:reconnecting:)``)
/// comes back after its connection ends, as the WHATWG `EventSource` does.
///
/// ```swift
/// let reconnection = EventStreamReconnection(delay: 1, maximumDelay: 30, maximumAttempts: 10)
/// for try await event in client.events(for: Notifications(), reconnecting: reconnection) {
///     print(event.data)
/// }
/// ```
public struct EventStreamReconnection: Sendable, Equatable {
    /// The wait before reconnecting until the server sets its own with a `retry:` field, in seconds.
    public var delay: TimeInterval
    /// The longest wait, however often reconnecting failed and whatever `retry:` asked for.
    public var maximumDelay: TimeInterval
    /// How many reconnections in a row may fail before the stream ends with the last error.
    public var maximumAttempts: Int
    /// Whether a stream the server ended cleanly is reopened (the standard's behaviour), or ends.
    public var reconnectsWhenEnded: Bool

    /// A reconnection policy.
    /// - Parameters:
    ///   - delay: The first wait, in seconds (3 by default, as browsers use); a server's `retry:`
    ///     replaces it. Each failed attempt in a row doubles it, up to `maximumDelay`.
    ///   - maximumDelay: The longest wait, in seconds.
    ///   - maximumAttempts: Failed reconnections in a row before the stream throws.
    ///   - reconnectsWhenEnded: Whether a cleanly ended stream is reopened.
    public init(
        delay: TimeInterval = 3,
        maximumDelay: TimeInterval = 60,
        maximumAttempts: Int = 5,
        reconnectsWhenEnded: Bool = true
    ) {
        self.delay = max(0, delay)
        self.maximumDelay = max(0, maximumDelay)
        self.maximumAttempts = max(0, maximumAttempts)
        self.reconnectsWhenEnded = reconnectsWhenEnded
    }

    /// Three seconds, doubling per failure up to a minute, five failures in a row at most.
    public static let `default` = EventStreamReconnection()

    /// The wait before attempt `failures + 1` when the base wait is `base` seconds.
    func wait(base: TimeInterval, failures: Int) -> TimeInterval {
        min(maximumDelay, base * pow(2, Double(max(0, failures - 1))))
    }
}

/// Server-sent events that survive dropped connections: each reconnection sends the endpoint again
/// with `Last-Event-ID` set to the last event's id, after the server's `retry:` time.
///
/// Reconnected after a connection error (a `URLError`: lost connection, timeout, offline) and,
/// unless ``EventStreamReconnection/reconnectsWhenEnded`` is off, after a clean end. It ends
/// without reconnecting when the server answers `204 No Content` (the standard's way to say
/// "stop"), and throws for anything else: a non-2xx answer (with the endpoint's typed error body),
/// an authentication failure, cancellation, or `maximumAttempts` failed reconnections in a row. A
/// typed mock is a finite script: its events are delivered once.
public struct ReconnectingEventStream<ErrorResponse: Sendable>: AsyncSequence, Sendable {
    public typealias Element = ServerSentEvent
    public typealias Failure = EndpointTaskError<ErrorResponse>

    typealias Open =
        @Sendable (_ lastEventID: String?) async throws(Failure) -> EndpointStream<
            ServerSentEvent, ErrorResponse
        >

    let open: Open
    let reconnection: EventStreamReconnection

    init(reconnection: EventStreamReconnection, open: @escaping Open) {
        self.reconnection = reconnection
        self.open = open
    }

    /// Reads events, reconnecting as the stream's ``EventStreamReconnection`` says.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let stream: ReconnectingEventStream
        var current: EndpointStream<ServerSentEvent, ErrorResponse>.AsyncIterator?
        var opened = false
        var finished = false
        var lastEventID: String?
        var baseDelay: TimeInterval
        var failures = 0
        var endsWithThisConnection = false
        var idSetOnThisConnection = false

        init(_ stream: ReconnectingEventStream) {
            self.stream = stream
            baseDelay = stream.reconnection.delay
        }

        /// The next event, reconnecting first when the connection ended.
        public mutating func next() async throws(Failure) -> ServerSentEvent? {
            while !finished {
                if current == nil { try await connect() }
                guard var events = current else { continue }
                do {
                    if let event = try await events.next() {
                        current = events
                        failures = 0
                        // The standard's last-event-ID buffer outlives a connection, while each
                        // connection's parser starts empty: an event without an id keeps the one
                        // before, unless this connection had set one (then an empty `id:` reset it).
                        if let id = event.id {
                            lastEventID = id
                            idSetOnThisConnection = true
                        } else if idSetOnThisConnection {
                            lastEventID = nil
                        }
                        if let retry = event.retry { baseDelay = Double(retry) / 1000 }
                        return event
                    }
                    current = nil
                    if !stream.reconnection.reconnectsWhenEnded || endsWithThisConnection { finished = true }
                } catch {
                    current = nil
                    try reconnectable(error)
                }
            }
            return nil
        }

        /// Opens the stream, after the reconnection wait unless it is the first time.
        private mutating func connect() async throws(Failure) {
            if opened {
                do {
                    let seconds = stream.reconnection.wait(base: baseDelay, failures: failures)
                    try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
                } catch {
                    finished = true
                    throw .cancelled
                }
            }
            opened = true
            do {
                let events = try await stream.open(lastEventID)
                // 204: the server asks not to reconnect.
                if events.response.statusCode == 204 {
                    finished = true
                    return
                }
                // A typed mock is delivered once, then the stream ends.
                if events.response.isMocked { endsWithThisConnection = true }
                current = events.makeAsyncIterator()
                idSetOnThisConnection = false
            } catch {
                try reconnectable(error)
            }
        }

        /// Counts a failure that reconnecting may cure; ends the stream with any other error.
        private mutating func reconnectable(_ error: Failure) throws(Failure) {
            switch error {
            case .urlLoadError, .internetConnectionOffline:
                failures += 1
                if failures > stream.reconnection.maximumAttempts {
                    finished = true
                    throw error
                }
            default:
                finished = true
                throw error
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(self) }
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
