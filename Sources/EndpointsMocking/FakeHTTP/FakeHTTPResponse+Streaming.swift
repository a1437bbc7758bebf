import Endpoints
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The chunks of a streamed fake response and how it ends.
struct FakeStream: Sendable {
    let chunks: [Data]
    let pauseNanoseconds: UInt64
    let failure: (any Error)?
}

extension FakeHTTPResponse {
    /// A response whose body arrives as `chunks`, each after `pause` seconds, then ends, or fails
    /// with `failure` (a `URLError(.networkConnectionLost)` to play a dropped connection).
    /// Streaming APIs (`bytes(for:)` and its `.events` and `.lines`, downloads) read the chunks as
    /// they come; buffered ones get them all at once.
    ///
    /// ```swift
    /// fake.register(.get, "/feed", .streamed(["data: 1\n\n", "data: 2\n\n"].map { Data($0.utf8) }, pause: 0.05,
    ///                                         headers: ["Content-Type": "text/event-stream"]))
    /// ```
    public static func streamed(
        _ chunks: [Data],
        pause: TimeInterval = 0,
        status: Int = 200,
        headers: [String: String] = [:],
        failure: (any Error)? = nil
    ) -> FakeHTTPResponse {
        var response = FakeHTTPResponse(status: status, headers: headers, body: chunks.reduce(Data(), +))
        response.stream = FakeStream(
            chunks: chunks, pauseNanoseconds: UInt64(max(0, pause) * 1_000_000_000), failure: failure)
        return response
    }

    /// A `text/event-stream` response sending each of `events` as its own chunk, `pause` seconds apart.
    ///
    /// ```swift
    /// fake.register(.get, "/ticks", .events([ServerSentEvent(type: "tick", data: "1", id: "1")], pause: 0.01))
    /// ```
    public static func events(
        _ events: [ServerSentEvent],
        pause: TimeInterval = 0,
        headers: [String: String] = [:],
        failure: (any Error)? = nil
    ) -> FakeHTTPResponse {
        var all = ["Content-Type": "text/event-stream"]
        all.merge(headers) { _, given in given }
        let chunks = events.map { Data("\($0.description)\n\n".utf8) }
        return streamed(chunks, pause: pause, headers: all, failure: failure)
    }

    /// An `application/x-ndjson` response sending each of `values` as one JSON line, `pause`
    /// seconds apart.
    ///
    /// ```swift
    /// fake.register(.get, "/log", .lines([Entry(action: "login"), Entry(action: "logout")]))
    /// ```
    public static func lines<Value: Encodable & Sendable>(
        _ values: [Value],
        pause: TimeInterval = 0,
        encoder: JSONEncoder = JSONEncoder(),
        failure: (any Error)? = nil
    ) -> FakeHTTPResponse {
        let chunks = values.compactMap { value in (try? encoder.encode(value)).map { $0 + Data([0x0A]) } }
        return streamed(chunks, pause: pause, headers: ["Content-Type": "application/x-ndjson"], failure: failure)
    }
}

extension FakeHTTPTransport {
    /// Answers `request` as the pipeline's streaming transport: a ``FakeHTTPResponse/streamed(_:pause:status:headers:failure:)``
    /// response writes its chunks with their pauses (cancelled when the reader goes away), any
    /// other response is one chunk.
    public func stream(_ request: URLRequest, context: RequestContext) async throws -> (ResponseBody, HTTPURLResponse) {
        let fakeRequest = FakeHTTPRequest(request, context: context)
        let response = try await answer(to: fakeRequest)
        let head = response.httpResponse(for: fakeRequest.url)
        guard let stream = response.stream else { return (ResponseBody(response.body), head) }
        let chunks = AsyncThrowingStream<Data, any Error> { continuation in
            let task = Task {
                for chunk in stream.chunks {
                    if stream.pauseNanoseconds > 0 {
                        do {
                            try await Task.sleep(nanoseconds: stream.pauseNanoseconds)
                        } catch {
                            continuation.finish(throwing: error)
                            return
                        }
                    }
                    continuation.yield(chunk)
                }
                continuation.finish(throwing: stream.failure)
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return (ResponseBody(chunks), head)
    }
}
