import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``StreamingMiddleware`` sees a stream's head when it arrives and each chunk as it is read.
@Suite struct StreamingMiddlewareTests {
    /// Records the heads it intercepts and the chunks (and end) it observes, tagged with its name.
    private final class Meter: StreamingMiddleware, Sendable {
        let name: String
        let log: TestLocked<[String]>

        init(_ name: String, log: TestLocked<[String]> = TestLocked([])) {
            self.name = name
            self.log = log
        }

        func intercept(
            _ request: URLRequest,
            context: RequestContext,
            next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
        ) async throws -> (Data, HTTPURLResponse) {
            let (data, response) = try await next(request)
            log.withLock { $0.append("\(name) head \(response.statusCode) \(data.count)") }
            return (data, response)
        }

        func observe(_ body: ResponseBody, of response: HTTPURLResponse, context: RequestContext) -> ResponseBody {
            let (name, log) = (name, log)
            return body.observing { chunk in
                log.withLock { $0.append(chunk.map { "\(name) chunk \($0.count)" } ?? "\(name) end") }
            }
        }

        var entries: [String] { log.withLock { $0 } }
    }

    private let event = Data("data: {\"n\":1}\n\n".utf8)

    /// The server sends one event and then nothing (the stream stays open): the middleware has seen
    /// the head before any byte was read, and the chunk once it was, long before the body ends.
    @Test func chunksAreObservedAsTheyArriveNotWhenTheBodyEnds() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let event = self.event
        server.route("/ticks") { _ in .streamed([event], contentType: "text/event-stream", then: .stall) }
        let meter = Meter("meter")
        try await Loopback.$baseURL.withValue(server.baseURL) {
            let stream = try await URLSession.shared.bytes(for: TickStream("ticks"), middleware: [meter]).events.values
            #expect(meter.entries == ["meter head 200 0"])
            for try await tick in stream {
                #expect(tick == Tick(n: 1, text: nil))
                break
            }
        }
        #expect(meter.entries == ["meter head 200 0", "meter chunk \(event.count)"])
    }

    @Test func theEndIsObservedOnceAfterEveryChunk() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let chunks = [Data("{\"n\":1}\n".utf8), Data("{\"n\":2}\n".utf8)]
        server.route("/lines") { _ in .streamed(chunks, contentType: "application/jsonl") }
        let meter = Meter("meter")
        let ticks = try await Loopback.$baseURL.withValue(server.baseURL) {
            var ticks: [Tick] = []
            for try await tick in try await EndpointClient(session: .shared, middleware: [meter])
                .bytes(for: TickStream("lines")).lines
            {
                ticks.append(tick)
            }
            return ticks
        }
        #expect(ticks.map(\.n) == [1, 2])
        let observed = meter.entries.dropFirst()
        #expect(observed.last == "meter end")
        #expect(observed.filter { $0 == "meter end" }.count == 1)
        let bytes = observed.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }.reduce(0, +)
        #expect(bytes == chunks.map(\.count).reduce(0, +))
    }

    /// The innermost middleware observes first; plain middleware are left out.
    @Test func theInnermostObservesFirst() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let event = self.event
        server.route("/ticks") { _ in .streamed([event], contentType: "text/event-stream") }
        let log = TestLocked([String]())
        let outer = Meter("outer", log: log)
        let inner = Meter("inner", log: log)
        try await Loopback.$baseURL.withValue(server.baseURL) {
            let stream = try await URLSession.shared.bytes(
                for: TickStream("ticks"), middleware: [outer, HeadRecorder(), inner]
            ).events.values
            for try await _ in stream {}
        }
        #expect(
            log.withLock { $0 } == [
                "inner head 200 0", "outer head 200 0", "inner chunk \(event.count)", "outer chunk \(event.count)",
                "inner end", "outer end",
            ])
    }
}
