import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The values of a streamed response, decoded as they arrive: raw chunks, server-sent events,
/// JSON lines. Made by ``EndpointSending/bytes(for:environment:auth:middleware:)`` and its siblings
/// once the server answered 2xx; read it once, from one task.
///
/// ```swift
/// let stream = try await URLSession.shared.events(for: PriceFeed())
/// print(stream.response.statusCode)            // 200
/// for try await event in stream {
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
public struct EndpointStream<Element: Sendable, ErrorResponse: Sendable>: AsyncSequence, Sendable {
    /// The error reading throws: the endpoint's `TaskError`.
    public typealias Failure = EndpointTaskError<ErrorResponse>

    /// The response head: status, headers, URL after redirects.
    public let response: HTTPURLResponse
    private let source: Source

    enum Source: Sendable {
        case body(ResponseBody, @Sendable () -> StreamDecoder<Element>)
        case elements([Element])
    }

    init(response: HTTPURLResponse, body: ResponseBody, decoder: @escaping @Sendable () -> StreamDecoder<Element>) {
        self.response = response
        self.source = .body(body, decoder)
    }

    init(response: HTTPURLResponse, elements: [Element]) {
        self.response = response
        self.source = .elements(elements)
    }

    /// Reads the values in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private var body: ResponseBody.AsyncIterator?
        private let decoder: StreamDecoder<Element>?
        private let response: HTTPURLResponse
        /// The values decoded from the last chunk, handed out in order, then `failure` if any.
        private var pending: [Element]
        private var index = 0
        private var failure: DecodingStepError?
        private var ended = false

        init(_ stream: EndpointStream) {
            response = stream.response
            switch stream.source {
            case .body(let body, let makeDecoder):
                self.body = body.makeAsyncIterator()
                decoder = makeDecoder()
                pending = []
            case .elements(let elements):
                body = nil
                decoder = nil
                pending = elements
                ended = true
            }
        }

        /// The next value, or `nil` at the end of the response.
        public mutating func next() async throws(Failure) -> Element? {
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
                    throw .responseParseError(
                        httpResponse: response, data: failure.data, error: .streamedValue(failure.error))
                }
                pending = []
                index = 0
                guard !ended, var body, let decoder else { return nil }
                let chunk: Data?
                do {
                    chunk = try await body.next()
                } catch {
                    ended = true
                    self.body = nil
                    throw Failure(streaming: error)
                }
                self.body = body
                let step: StreamDecoder<Element>.Step
                if let chunk {
                    step = decoder.feed(chunk)
                } else {
                    ended = true
                    step = decoder.finish()
                }
                pending = step.values
                failure = step.failure
            }
        }
    }

    /// An iterator over the values.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(self) }
}

/// A value that did not decode, with its bytes.
struct DecodingStepError: Error {
    let data: Data
    let error: any Error
}

/// Turns chunks of a body into values, or the failure of the first value that did not decode;
/// one per iterator, used from one task.
final class StreamDecoder<Element> {
    /// The values one chunk completed, and the failure that ended them, if one did.
    struct Step {
        var values: [Element]
        var failure: DecodingStepError?
    }

    private let feedChunk: (Data) -> Step
    private let finishStream: () -> Step

    init(feed: @escaping (Data) -> Step, finish: @escaping () -> Step) {
        feedChunk = feed
        finishStream = finish
    }

    func feed(_ chunk: Data) -> Step { feedChunk(chunk) }
    func finish() -> Step { finishStream() }

    /// `items` turned into values with `transform`, up to the first failure.
    static func values<Item>(
        _ items: [Item], bytes: (Item) -> Data, _ transform: (Item) throws -> Element
    ) -> Step {
        var step = Step(values: [], failure: nil)
        step.values.reserveCapacity(items.count)
        for item in items {
            do {
                step.values.append(try transform(item))
            } catch {
                step.failure = DecodingStepError(data: bytes(item), error: error)
                break
            }
        }
        return step
    }
}

extension StreamDecoder where Element == Data {
    /// The chunks as they arrive.
    static func chunks() -> StreamDecoder {
        StreamDecoder(feed: { Step(values: [$0]) }, finish: { Step(values: []) })
    }
}

extension StreamDecoder where Element == ServerSentEvent {
    /// Each server-sent event as the parser dispatches it.
    static func events(_ parser: ServerSentEventParser) -> StreamDecoder {
        let box = MutableBox(parser)
        return StreamDecoder(
            feed: { Step(values: box.value.parse($0)) },
            finish: { Step(values: box.value.finish()) }
        )
    }
}

extension StreamDecoder {
    /// Each complete JSON line, decoded with `decode`.
    static func jsonLines(_ decode: @escaping (Data) throws -> Element) -> StreamDecoder {
        let box = MutableBox(JSONLinesSplitter())
        return StreamDecoder(
            feed: { values(box.value.parse($0), bytes: { $0 }, decode) },
            finish: { values(box.value.finish(), bytes: { $0 }, decode) }
        )
    }

    /// Each server-sent event, turned into a value with `transform`.
    static func events(
        _ parser: ServerSentEventParser,
        _ transform: @escaping (ServerSentEvent) throws -> Element
    ) -> StreamDecoder {
        let box = MutableBox(parser)
        let bytes = { (event: ServerSentEvent) in Data(event.data.utf8) }
        return StreamDecoder(
            feed: { values(box.value.parse($0), bytes: bytes, transform) },
            finish: { values(box.value.finish(), bytes: bytes, transform) }
        )
    }
}

/// A value a decoder's closures change; owned by one iterator.
private final class MutableBox<Value> {
    var value: Value
    init(_ value: Value) { self.value = value }
}
