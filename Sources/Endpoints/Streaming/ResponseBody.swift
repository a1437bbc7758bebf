import Foundation

/// A response body as it arrives: an `AsyncSequence` of `Data` chunks (never empty), read once, by
/// one task.
///
/// Transports hand it over with the response head (see ``HTTPTransport/stream(_:context:)``).
/// At most 1 MiB (or the limit it was made with) waits unread; beyond that the producer is paused
/// until the reader catches up (the chunk sequence is not asked for more; a data task is suspended,
/// except on Linux, see ``URLSessionTransport/stream(_:context:)``). Cancelling the reading task, or dropping
/// the body before its end, stops the transfer.
///
/// ```swift
/// let (body, response) = try await transport.stream(request, context: context)
/// for try await chunk in body {
///     file.write(chunk)
/// }
/// ```
///
/// Mocks and custom transports make one from data, or from any `AsyncSequence` of chunks, such
/// as an `AsyncThrowingStream` their connection feeds:
///
/// ```swift
/// let whole = ResponseBody(Data("data: hi\n\n".utf8))
/// let (chunks, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
/// let streamed = ResponseBody(chunks)
/// continuation.yield(Data("data: 1\n\n".utf8))
/// continuation.finish()
/// ```
public struct ResponseBody: AsyncSequence, Sendable {
    /// 1 MiB: how many bytes wait unread before the transfer is paused, unless told otherwise.
    @usableFromInline static let defaultBufferLimit = 1 << 20

    /// Where the chunks come from: a body already in memory (a buffered send's) is held as it is,
    /// so passing it through the middleware chain costs no buffer and no suspension.
    fileprivate enum Storage: Sendable {
        case data(Data)
        case stream(Reader)
    }

    private let storage: Storage
    /// Told of each chunk as the reader takes it, and of the end (`nil`); see ``observing(_:)``.
    private var observer: (@Sendable (Data?) -> Void)?

    /// A body read from `buffer`. A transport makes it with the call, on the caller's side, and
    /// hands it over with the head, rather than making it where the head arrives (its delegate
    /// queue, its loop thread): ThreadSanitizer cannot see the ordering a continuation resumed
    /// before its task awaits gives (the runtime's atomics are not instrumented), and reported
    /// the reader's fields, written there, as racing with the caller's reads. Until then the call
    /// keeps it under its lock and never drops it there: letting go of the last reader stops the
    /// transfer, which takes that lock.
    init(buffer: BodyBuffer) {
        storage = .stream(Reader(buffer))
    }

    /// A body that is `data`, in one chunk (none when `data` is empty).
    public init(_ data: Data) {
        storage = .data(data)
    }

    /// The whole body when it is already in memory and nobody observes it: what a buffered send
    /// returned, or what a middleware answered with.
    var bufferedData: Data? {
        guard observer == nil, case .data(let data) = storage else { return nil }
        return data
    }

    /// A body that reads `chunks` as it is read, pausing `chunks` while `bufferLimit` bytes wait
    /// unread (1 MiB unless given). An error `chunks` throws ends the body with that error, after
    /// the chunks before it; when the reader goes away (cancelled, or the body dropped), the task
    /// reading `chunks` is cancelled (an `AsyncThrowingStream`'s `onTermination` runs then).
    ///
    /// This is how a custom transport streams: see ``HTTPTransport/stream(_:context:)``.
    ///
    /// ```swift
    /// let body = ResponseBody(AsyncThrowingStream { continuation in
    ///     continuation.yield(Data("{\"n\":1}\n".utf8))
    ///     continuation.finish()
    /// })
    /// ```
    public init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, bufferLimit: Int = defaultBufferLimit)
    where Chunks.Element == Data {
        let (body, writer) = Self.makeStream(bufferLimit: bufferLimit)
        let task = Task {
            do {
                for try await chunk in chunks { try await writer.write(chunk) }
                writer.finish()
            } catch {
                writer.finish(throwing: error)
            }
        }
        writer.buffer.setHooks(BodyBuffer.Hooks(terminate: { task.cancel() }))
        self = body
    }

    /// A body and the writer that produces it: what ``init(_:bufferLimit:)`` reads its chunks
    /// into. Custom transports use that initializer.
    static func makeStream(bufferLimit: Int = defaultBufferLimit) -> (body: ResponseBody, writer: Writer) {
        let buffer = BodyBuffer(limit: bufferLimit)
        return (ResponseBody(buffer: buffer), Writer(buffer: buffer))
    }

    /// Produces a body made with `makeStream(bufferLimit:)`.
    struct Writer: Sendable {
        let buffer: BodyBuffer

        /// Appends `chunk`, then waits while the reader is more than the buffer limit behind.
        /// - Throws: `CancellationError` when the reader is gone (cancelled, or dropped the body).
        func write(_ chunk: Data) async throws {
            try await buffer.write(chunk)
        }

        /// Ends the body; with an `error`, the reader gets it after the chunks written before.
        func finish(throwing error: (any Error)? = nil) {
            buffer.finish(throwing: error)
        }

        /// Whether the reader is gone, so there is no point writing more.
        var isCancelled: Bool { buffer.isTerminated }
    }

    /// Reads the chunks in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private var storage: Storage
        private let observer: (@Sendable (Data?) -> Void)?
        /// Whether the end was reached (a body in memory hands over its one chunk first).
        private var ended = false

        fileprivate init(storage: Storage, observer: (@Sendable (Data?) -> Void)?) {
            self.storage = storage
            self.observer = observer
        }

        /// The next chunk, or `nil` at the end of the body.
        /// - Throws: What the transport failed with (`URLError.networkConnectionLost` when the
        ///   connection dropped mid-body, `.timedOut` when it stalled), or `CancellationError`.
        public mutating func next() async throws -> Data? {
            let chunk: Data?
            switch storage {
            case .stream(let reader):
                chunk = try await reader.buffer.next()
            case .data(let data):
                if ended { return nil }
                chunk = data.isEmpty ? nil : data
                storage = .data(Data())
                ended = chunk == nil
            }
            observer?(chunk)
            return chunk
        }

        /// Stops the transfer: the rest of the body is not wanted.
        func cancel() {
            if case .stream(let reader) = storage { reader.buffer.terminate() }
        }
    }

    /// An iterator over the chunks; a body has one reader.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(storage: storage, observer: observer) }

    /// This body, telling `observer` of each chunk as the reader takes it and of the end (`nil`),
    /// without holding any: for a ``StreamingMiddleware`` that logs, counts or times a stream.
    ///
    /// ```swift
    /// let counted = body.observing { chunk in
    ///     if let chunk { bytes.add(chunk.count) } else { print("ended after", bytes.value, "bytes") }
    /// }
    /// ```
    ///
    /// Observers run on the reading task, in the order they were added (the first added, first).
    /// A failure of the body is not observed: it reaches the reader, as before.
    public func observing(_ observer: @escaping @Sendable (Data?) -> Void) -> ResponseBody {
        var body = self
        if let earlier = self.observer {
            body.observer = { chunk in
                earlier(chunk)
                observer(chunk)
            }
        } else {
            body.observer = observer
        }
        return body
    }

    /// Reads the whole body, failing when it is longer than `limit` bytes.
    ///
    /// ```swift
    /// let data = try await body.collect(upTo: 10 << 20)
    /// ```
    /// - Throws: ``ResponseBodyTooLarge`` past `limit`, or what reading the body threw.
    public func collect(upTo limit: Int = .max) async throws -> Data {
        if let data = bufferedData {
            guard data.count <= limit else { throw ResponseBodyTooLarge(maximumBytes: limit) }
            return data
        }
        var data = Data()
        for try await chunk in self {
            guard chunk.count <= limit - data.count else {
                cancel()
                throw ResponseBodyTooLarge(maximumBytes: limit)
            }
            data.append(chunk)
        }
        return data
    }

    /// Ends the transfer early: the body is no longer wanted. (Letting go of the body and its
    /// iterators does the same.)
    func cancel() {
        if case .stream(let reader) = storage { reader.buffer.terminate() }
    }

    /// The reading end; when the body and its iterators are gone, the transfer stops.
    final class Reader: Sendable {
        let buffer: BodyBuffer

        init(_ buffer: BodyBuffer) { self.buffer = buffer }

        deinit { buffer.terminate() }
    }
}

/// A response body was longer than the caller would collect with
/// ``ResponseBody/collect(upTo:)``; printed, it names the limit: `ResponseBodyTooLarge(maximumBytes: 1048576)`.
public struct ResponseBodyTooLarge: Error, Sendable {
    /// The most bytes the caller accepted: the `limit` it passed.
    let maximumBytes: Int
}
