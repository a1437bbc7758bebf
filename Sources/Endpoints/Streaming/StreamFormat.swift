import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a connection's body, or a typed mock's value, becomes a stream's values.
struct StreamFormat<T: Endpoint, Element>: Sendable {
    /// The decoder of a body whose head is `response`, telling `log` of each server-sent event.
    let decoder: @Sendable (_ response: HTTPURLResponse, _ log: EventLog?) -> StreamDecoder<Element>
    /// The values a typed mock's value stands for.
    let mocked: @Sendable (T.Response) throws -> [Element]
    /// Whether the values are the body's chunks as they are, so an adapter reads the body itself.
    var isRaw = false
}

extension StreamFormat where Element == Data {
    /// The body's chunks as they arrive; a typed mock must be `Data`, the body.
    static var bytes: StreamFormat {
        StreamFormat(
            decoder: { _, _ in .chunks() },
            mocked: { value in
                guard let data = value as? Data else { throw MockedStreamError(endpoint: T.self) }
                return data.isEmpty ? [] : [data]
            },
            isRaw: true
        )
    }
}

extension StreamFormat where Element == ServerSentEvent {
    /// The server-sent events of the body `inner` reads.
    static func events(of inner: StreamFormat<T, Data>) -> StreamFormat {
        let decoder: @Sendable (HTTPURLResponse, EventLog?) -> StreamDecoder<ServerSentEvent>
        if inner.isRaw {
            decoder = { _, log in .events(EventStreamParser(), log: log) }
        } else {
            decoder = { response, log in inner.decoder(response, nil).then(.events(EventStreamParser(), log: log)) }
        }
        return StreamFormat(decoder: decoder) { value in
            var parser = EventStreamParser()
            var events: [ServerSentEvent] = []
            for chunk in try inner.mocked(value) { events += parser.parse(chunk) }
            return events + parser.finish()
        }
    }
}

extension StreamFormat where Element == T.Response {
    /// The JSON lines of the body `inner` reads, each decoded as `endpoint`'s `Response`; a typed
    /// mock is its one value.
    static func lines(of inner: StreamFormat<T, Data>, endpoint: T) -> StreamFormat {
        StreamFormat(
            decoder: { response, _ in
                let lines = StreamDecoder<T.Response>.jsonLines { try endpoint.decodeResponse($0, response: response) }
                return inner.isRaw ? lines : inner.decoder(response, nil).then(lines)
            },
            mocked: { [$0] }
        )
    }

    /// The data of each of `inner`'s events decoded as `endpoint`'s `Response`; a typed mock is its
    /// one value.
    static func values(of inner: StreamFormat<T, ServerSentEvent>, endpoint: T) -> StreamFormat {
        StreamFormat(
            decoder: { response, log in
                inner.decoder(response, log).map(bytes: { Data($0.data.utf8) }) {
                    try endpoint.decodeResponse(Data($0.data.utf8), response: response)
                }
            },
            mocked: { [$0] }
        )
    }
}
