import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``StreamingMiddleware`` is handed the body as it arrives, in every kind of call: it sees a
/// stream's head when it arrives and each chunk as it is read, and a buffered call's body in memory.
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
            next: @escaping @Sendable (URLRequest) async throws -> (ResponseBody, HTTPURLResponse)
        ) async throws -> (ResponseBody, HTTPURLResponse) {
            let (body, response) = try await next(request)
            let (name, log) = (name, log)
            log.withLock { $0.append("\(name) head \(response.statusCode)") }
            let observed = body.observing { chunk in
                log.withLock { $0.append(chunk.map { "\(name) chunk \($0.count)" } ?? "\(name) end") }
            }
            return (observed, response)
        }

        var entries: [String] { log.withLock { $0 } }
    }

    /// Reads the body whole and answers with every `1` made a `2`: a middleware that changes a body.
    private struct Incrementing: StreamingMiddleware {
        func intercept(
            _ request: URLRequest,
            context: RequestContext,
            next: @escaping @Sendable (URLRequest) async throws -> (ResponseBody, HTTPURLResponse)
        ) async throws -> (ResponseBody, HTTPURLResponse) {
            let (body, response) = try await next(request)
            let data = try await body.collect(upTo: 1 << 16)
            let changed = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "1", with: "2")
            return (ResponseBody(Data(changed.utf8)), response)
        }
    }

    private let event = Data("data: {\"n\":1}\n\n".utf8)

    /// The server sends one event and then nothing (the stream stays open): the middleware has seen
    /// the head before any byte was read, and the chunk once it was, long before the body ends.
    @Test(arguments: TestTransport.all)
    func chunksAreObservedAsTheyArriveNotWhenTheBodyEnds(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let event = self.event
        server.route("/ticks") { _ in .streamed([event], contentType: "text/event-stream", then: .stall) }
        let meter = Meter("meter")
        try await Loopback.$baseURL.withValue(server.baseURL) {
            let stream = try await transport.client().bytes(for: TickStream("ticks"), middleware: [meter]).events.values
            #expect(meter.entries == ["meter head 200"])
            for try await tick in stream {
                #expect(tick == Tick(n: 1, text: nil))
                break
            }
        }
        #expect(meter.entries == ["meter head 200", "meter chunk \(event.count)"])
    }

    @Test(arguments: TestTransport.all)
    func theEndIsObservedOnceAfterEveryChunk(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let chunks = [Data("{\"n\":1}\n".utf8), Data("{\"n\":2}\n".utf8)]
        server.route("/lines") { _ in .streamed(chunks, contentType: "application/jsonl") }
        let meter = Meter("meter")
        let ticks = try await Loopback.$baseURL.withValue(server.baseURL) {
            var ticks: [Tick] = []
            for try await tick in try await transport.client(middleware: [meter])
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
    @Test(arguments: TestTransport.all)
    func theInnermostObservesFirst(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let event = self.event
        server.route("/ticks") { _ in .streamed([event], contentType: "text/event-stream") }
        let log = TestLocked([String]())
        let outer = Meter("outer", log: log)
        let inner = Meter("inner", log: log)
        try await Loopback.$baseURL.withValue(server.baseURL) {
            let stream = try await transport.client().bytes(
                for: TickStream("ticks"), middleware: [outer, HeadRecorder(), inner]
            ).events.values
            for try await _ in stream {}
        }
        #expect(
            log.withLock { $0 } == [
                "inner head 200", "outer head 200", "inner chunk \(event.count)", "outer chunk \(event.count)",
                "inner end", "outer end",
            ])
    }

    /// In a buffered call the body comes through the same contract, in memory: the middleware reads
    /// it whole and the caller decodes what it returned.
    @Test(arguments: TestTransport.all)
    func aBufferedCallHandsTheBodyThroughTheSameContract(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/one") { _ in .json(raw: #"{"n":1,"text":"quiet"}"#) }
        let meter = Meter("meter")
        let tick = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await transport.client().response(with: TickStream("one"), middleware: [meter, Incrementing()])
        }
        #expect(tick == Tick(n: 2, text: "quiet"))
        let bodyLength = #"{"n":2,"text":"quiet"}"#.utf8.count
        #expect(meter.entries == ["meter head 200", "meter chunk \(bodyLength)", "meter end"])
    }

    /// A stream whose status is not accepted reaches a streaming middleware as a body it can read
    /// whole; the caller still gets the typed error body.
    @Test(arguments: TestTransport.all)
    func anErrorBodyOfAStreamIsHandedOverAndStillDecoded(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/ticks") { _ in .json(raw: #"{"code":7,"message":"no ticks"}"#, status: 409) }
        let meter = Meter("meter")
        await Loopback.$baseURL.withValue(server.baseURL) {
            do {
                _ = try await transport.client().bytes(for: TickStream("ticks"), middleware: [meter]).events.values
                Issue.record("a 409 opened a stream")
            } catch let error as EndpointTaskError<APIError> {
                guard case .errorResponse(let http, let body) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(http.statusCode == 409)
                #expect(body == APIError(code: 7, message: "no ticks"))
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
        #expect(meter.entries.first == "meter head 409")
        #expect(meter.entries.last == "meter end")
    }
}
