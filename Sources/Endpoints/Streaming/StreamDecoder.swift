import Foundation

/// A value that did not decode, with its bytes.
struct DecodingStepError: Error {
    let data: Data
    let error: any Error
}

/// How large one value of a stream (a server-sent event, a JSON line) may grow.
package enum StreamLimits {
    /// 16 MiB: far above any event or line a service sends, and a bound on what a server that
    /// never ends one can make the client hold.
    package static let maximumValueSize = 16 << 20
    /// How much of a value past the limit its error keeps.
    static let keptPrefix = 64 << 10
}

/// A streamed value (a server-sent event, a JSON line) that passed the limit before it ended.
struct StreamedValueTooLarge: Error, CustomStringConvertible {
    let limit: Int
    var description: String {
        "A streamed value (a server-sent event or a JSON line) passed \(limit) bytes before it ended; "
            + "the stream was stopped there."
    }

    /// The failure of a step whose parser stopped at a value of `oversized` bytes, if it did.
    static func failure(_ oversized: Data?, limit: Int) -> DecodingStepError? {
        oversized.map { DecodingStepError(data: $0, error: StreamedValueTooLarge(limit: limit)) }
    }
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

    /// This decoder's values turned into others with `transform`, up to the first failure.
    func map<Next>(
        bytes: @escaping (Element) -> Data, _ transform: @escaping (Element) throws -> Next
    ) -> StreamDecoder<Next> {
        func mapped(_ step: Step) -> StreamDecoder<Next>.Step {
            var next = StreamDecoder<Next>.values(step.values, bytes: bytes, transform)
            if next.failure == nil { next.failure = step.failure }
            return next
        }
        return StreamDecoder<Next>(feed: { mapped(self.feed($0)) }, finish: { mapped(self.finish()) })
    }
}

extension StreamDecoder where Element == Data {
    /// The chunks as they arrive.
    static func chunks() -> StreamDecoder {
        StreamDecoder(feed: { Step(values: [$0]) }, finish: { Step(values: []) })
    }

    /// This decoder's values read, in order, by `next`, as if they were the body's chunks.
    func then<Next>(_ next: StreamDecoder<Next>) -> StreamDecoder<Next> {
        func passed(_ step: Step, finishing: Bool) -> StreamDecoder<Next>.Step {
            var out = StreamDecoder<Next>.Step(values: [], failure: nil)
            for value in step.values {
                let fed = next.feed(value)
                out.values += fed.values
                if let failure = fed.failure {
                    out.failure = failure
                    return out
                }
            }
            if let failure = step.failure {
                out.failure = failure
            } else if finishing {
                let last = next.finish()
                out.values += last.values
                out.failure = last.failure
            }
            return out
        }
        return StreamDecoder<Next>(
            feed: { passed(self.feed($0), finishing: false) },
            finish: { passed(self.finish(), finishing: true) }
        )
    }
}

extension StreamDecoder where Element == ServerSentEvent {
    /// Each server-sent event as the parser dispatches it, told to `log` when there is one.
    static func events(_ parser: EventStreamParser, log: EventLog? = nil) -> StreamDecoder {
        let box = MutableBox(parser)
        func checked(_ events: [ServerSentEvent]) -> Step {
            Step(values: events, failure: StreamedValueTooLarge.failure(box.value.oversized, limit: parser.maximumSize))
        }
        guard let log else {
            return StreamDecoder(feed: { checked(box.value.parse($0)) }, finish: { Step(values: box.value.finish()) })
        }
        func logged(_ events: [ServerSentEvent]) -> Step {
            for event in events { log.saw(event) }
            return checked(events)
        }
        return StreamDecoder(feed: { logged(box.value.parse($0)) }, finish: { logged(box.value.finish()) })
    }
}

extension StreamDecoder {
    /// Each complete JSON line, decoded with `decode`.
    static func jsonLines(_ decode: @escaping (Data) throws -> Element) -> StreamDecoder {
        let box = MutableBox(NDJSONSplitter())
        return StreamDecoder(
            feed: {
                var step = values(box.value.parse($0), bytes: { $0 }, decode)
                if step.failure == nil {
                    step.failure = StreamedValueTooLarge.failure(box.value.oversized, limit: box.value.maximumSize)
                }
                return step
            },
            finish: { values(box.value.finish(), bytes: { $0 }, decode) }
        )
    }
}

/// A value a decoder's closures change; owned by one iterator.
private final class MutableBox<Value> {
    var value: Value
    init(_ value: Value) { self.value = value }
}
