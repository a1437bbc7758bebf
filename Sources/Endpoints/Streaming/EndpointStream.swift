import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The body of an endpoint's response as it arrives, read as raw chunks or through an adapter:
/// ``events`` (server-sent events), ``values`` (each event's data decoded as the endpoint's
/// `Response`), ``lines`` (JSON lines decoded as the `Response`) and ``reconnecting(delay:maximumDelay:maximumAttempts:reconnectsWhenEnded:)`` (events
/// that survive dropped connections). Made by ``EndpointSending/bytes(for:environment:auth:middleware:)``
/// once the server answered 2xx; read it once, from one task.
///
/// ```swift
/// let stream = try await URLSession.shared.bytes(for: PriceFeed())
/// print(stream.response.statusCode)            // 200
/// for try await event in stream.events {
///     print(event.data)
/// }
/// ```
///
/// Every failure while reading is the endpoint's typed error: a connection dropped mid-stream is
/// `.urlLoadError` (`URLError.networkConnectionLost`), a stall longer than the request's
/// `timeoutInterval` is `.urlLoadError` (`.timedOut`), a value that does not decode is
/// `.responseParseError` with the bytes of that value (its ``EndpointTaskError/stage`` is
/// ``RequestStage/stream``), an error of a custom transport's own is `.streamError`, and cancelling
/// the reading task is `.cancelled` (the transfer stops at once). Leaving the loop early also stops
/// the transfer.
///
/// An adapter reads the same body: read the stream or one of its adapters, once. A typed mock of
/// the endpoint answers with its value: raw chunks and events read a `Data` mock as the body (any
/// other value fails the first read with `.streamError`), ``values`` and ``lines`` deliver the
/// mocked `Response` itself, once.
public struct EndpointStream<T: Endpoint, Element: Sendable>: AsyncSequence, Sendable {
    /// The response head: status, headers, URL after redirects (of the first connection, for a
    /// stream that reconnects).
    public let response: HTTPURLResponse
    let endpoint: T
    /// The connection the stream was made with.
    let first: StreamConnection<T>
    /// Opens the endpoint again, for a reconnection.
    let reopen: StreamConnection<T>.Open
    /// How the body (or a typed mock's value) becomes the values.
    let format: StreamFormat<T, Element>
    /// How the stream comes back after its connection ends; `nil` when it does not.
    var reconnection: ReconnectionPolicy?

    init(
        endpoint: T, first: StreamConnection<T>, reopen: @escaping StreamConnection<T>.Open,
        format: StreamFormat<T, Element>, reconnection: ReconnectionPolicy? = nil
    ) {
        self.response = first.response
        self.endpoint = endpoint
        self.first = first
        self.reopen = reopen
        self.format = format
        self.reconnection = reconnection
    }

    /// The recorder of the first connection's request; `nil` for a typed mock.
    var recorder: RequestRecorder? {
        guard case .body(_, let recording) = first.source else { return nil }
        return recording.recorder
    }

    /// Ends the transfer unread: its body is not wanted.
    func abandon() {
        if case .body(let body, _) = first.source { body.cancel() }
    }

    /// This stream read with another format.
    func adapted<Other>(_ format: StreamFormat<T, Other>) -> EndpointStream<T, Other> {
        EndpointStream<T, Other>(
            endpoint: endpoint, first: first, reopen: reopen, format: format, reconnection: reconnection)
    }

    /// Reads the values in order, reconnecting first when the stream does and its connection ended.
    ///
    /// The connection's state is kept here rather than in a reader of its own: reading a value is
    /// then a call on this type alone, which generic code reaches without looking up another
    /// type's metadata (`endpoints-bench stream` measured that at 0.2 µs an event).
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let reopen: StreamConnection<T>.Open
        private let format: StreamFormat<T, Element>
        private let reconnection: ReconnectionPolicy?
        /// The events read so far, for a stream that reconnects.
        private let log: EventLog?
        private var opened = false
        private var finished = false
        private var failures = 0
        private var endsWithThisConnection = false

        // The connection being read.
        /// Whether a connection is being read (else the stream connects before reading).
        private var connected = false
        private var response: HTTPURLResponse
        private var body: ResponseBody.AsyncIterator?
        private var decoder: StreamDecoder<Element>?
        /// The values decoded from the last chunk, handed out in order, then `failure` if any.
        private var pending: [Element] = []
        private var index = 0
        private var failure: DecodingStepError?
        /// Why a typed mock cannot be this stream, thrown as `.streamError` once the values are
        /// out. Not a `T.TaskError`: a field of that type would give this iterator a layout known
        /// only at run time, looked up for each value.
        private var mockFailure: (any Error)?
        /// The connection has no more chunks.
        private var ended = true
        /// The connection's request, finished when its body ends or fails, and the bytes read.
        private var recording: RecordingEnd?
        private var received = 0

        /// An iterator reading `first`, or opening the endpoint when asked for the first value.
        init(
            first: StreamConnection<T>?, reopen: @escaping StreamConnection<T>.Open, format: StreamFormat<T, Element>,
            reconnection: ReconnectionPolicy?
        ) {
            self.reopen = reopen
            self.format = format
            self.reconnection = reconnection
            log = reconnection.map { EventLog(delay: $0.delay) }
            response = first?.response ?? .mocked
            if let first {
                opened = true
                read(first)
            }
        }

        /// The next value, or `nil` at the end of the response (of the stream, when it reconnects).
        public mutating func next() async throws(T.TaskError) -> Element? {
            if log == nil { return try await nextOfConnection() }
            return try await nextReconnecting()
        }

        /// The next value of a stream that reconnects.
        private mutating func nextReconnecting() async throws(T.TaskError) -> Element? {
            guard let reconnection, let log else { return nil }
            while !finished {
                if !connected { try await connect(reconnection, log) }
                guard connected else { continue }
                do {
                    if let value = try await nextOfConnection() {
                        if log.sawEvent {
                            log.sawEvent = false
                            failures = 0
                        }
                        return value
                    }
                    connected = false
                    if !reconnection.reconnectsWhenEnded || endsWithThisConnection { finished = true }
                } catch {
                    connected = false
                    try reconnectable(error, reconnection)
                }
            }
            return nil
        }

        /// Starts reading `connection`.
        private mutating func read(_ connection: StreamConnection<T>) {
            response = connection.response
            if let log {
                // 204: the server asks not to reconnect.
                if response.statusCode == 204 {
                    finished = true
                    return
                }
                // A typed mock is delivered once, then the stream ends.
                if response.isMocked { endsWithThisConnection = true }
                log.idSetOnThisConnection = false
            }
            connected = true
            pending = []
            index = 0
            failure = nil
            mockFailure = nil
            switch connection.source {
            case .body(let body, let recording):
                self.body = body.makeAsyncIterator()
                decoder = format.decoder(response, log)
                ended = false
                self.recording = recording
                received = 0
            case .mocked(let value):
                body = nil
                decoder = nil
                ended = true
                recording = nil
                do {
                    pending = try format.mocked(value)
                } catch {
                    mockFailure = error
                }
            }
        }

        /// The next value of the connection being read, or `nil` at its end. Inlined into
        /// ``next()``: a call of its own cost an async frame and a metadata look-up per value.
        @inline(__always)
        private mutating func nextOfConnection() async throws(T.TaskError) -> Element? {
            while true {
                if index < pending.count {
                    defer { index += 1 }
                    return pending[index]
                }
                if let failure {
                    // The stream ends at a value that does not decode; the transfer stops.
                    self.failure = nil
                    pending = []
                    index = 0
                    ended = true
                    body?.cancel()
                    body = nil
                    let error = T.TaskError.responseParseError(
                        httpResponse: response, data: failure.data, error: .streamedValue(failure.error))
                    throw error.ended(by: recording?.recorder, decoding: true)
                }
                pending = []
                index = 0
                if let mockFailure {
                    self.mockFailure = nil
                    throw .streamError(mockFailure)
                }
                guard !ended, var body, let decoder else { return nil }
                let chunk: Data?
                do {
                    chunk = try await body.next()
                } catch {
                    ended = true
                    self.body = nil
                    throw T.TaskError(streaming: error).ended(by: recording?.recorder)
                }
                self.body = body
                let step: StreamDecoder<Element>.Step
                if let chunk {
                    received += chunk.count
                    step = decoder.feed(chunk)
                } else {
                    ended = true
                    step = decoder.finish()
                    if let recorder = recording?.recorder {
                        recorder.bodyFinished(bytes: received)
                        if step.failure == nil { recorder.finishDecoded() }
                    }
                }
                pending = step.values
                failure = step.failure
            }
        }

        /// Opens the stream again, after the reconnection wait unless it is the first time.
        private mutating func connect(_ reconnection: ReconnectionPolicy, _ log: EventLog) async throws(T
            .TaskError)
        {
            if opened {
                do {
                    let seconds = reconnection.wait(base: log.delay, failures: failures)
                    try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
                } catch {
                    finished = true
                    throw .cancelled
                }
            }
            opened = true
            do {
                read(try await reopen(log.lastEventID))
            } catch {
                try reconnectable(error, reconnection)
            }
        }

        /// Counts a failure that reconnecting may cure; ends the stream with any other error.
        private mutating func reconnectable(
            _ error: T.TaskError, _ reconnection: ReconnectionPolicy
        ) throws(T.TaskError) {
            switch error {
            case .urlLoadError, .internetConnectionOffline:
                failures += 1
                if failures > reconnection.maximumAttempts {
                    finished = true
                    throw error
                }
            default:
                finished = true
                throw error
            }
        }
    }

    /// An iterator over the values.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(first: first, reopen: reopen, format: format, reconnection: reconnection)
    }
}

/// One connection of a stream: its head, and its body or a typed mock's value.
struct StreamConnection<T: Endpoint>: Sendable {
    enum Source: Sendable {
        /// The body, and the request's recorder, which the reader finishes.
        case body(ResponseBody, RecordingEnd)
        case mocked(T.Response)
    }

    /// Opens a connection, with `Last-Event-ID` when `lastEventID` is not `nil`.
    typealias Open = @Sendable (_ lastEventID: String?) async throws(T.TaskError) -> StreamConnection<T>

    let response: HTTPURLResponse
    let source: Source
}

/// What a reconnecting stream remembers of the events it read; owned by one iterator.
final class EventLog {
    /// The last event ID, which a reconnection sends as `Last-Event-ID`.
    var lastEventID: String?
    /// Whether an event of the current connection set an ID.
    var idSetOnThisConnection = false
    /// The wait before reconnecting, in seconds: the policy's, until the server sends `retry:`.
    var delay: TimeInterval
    /// An event was read since the iterator last looked.
    var sawEvent = false

    init(delay: TimeInterval) { self.delay = delay }

    /// Takes note of `event`, as the parser dispatches it.
    func saw(_ event: ServerSentEvent) {
        sawEvent = true
        // The standard's last-event-ID buffer outlives a connection, while each connection's
        // parser starts empty: an event without an id keeps the one before, unless this
        // connection had set one (then an empty `id:` reset it).
        if let id = event.id {
            lastEventID = id
            idSetOnThisConnection = true
        } else if idSetOnThisConnection {
            lastEventID = nil
        }
        if let retry = event.retry { delay = Double(retry) / 1000 }
    }
}

/// A typed mock answered a stream of bytes or events with a value that is not `Data` (the body).
struct MockedStreamError: Error, CustomStringConvertible {
    let endpoint: Any.Type

    var description: String {
        "A mock of \(endpoint) answered a stream of bytes or events with a value that is not Data; mock the body as Data, or use a fake transport."
    }
}
