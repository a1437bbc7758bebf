import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The streaming senders, parsers and ad-hoc constructors of earlier builds of this release, kept
// as deprecated forwarders in Compatibility/Streaming+Renamed.swift and AdHocRequest+Renamed.swift:
// each still compiles (with a warning) and behaves as before.
@Suite struct StreamingRenamedTests {
    private static let ticks = Data("id: 1\ndata: {\"n\":1}\n\ndata: {\"n\":2}\n\n".utf8)

    private func run<R: Sendable>(_ server: TestServer, _ body: @Sendable () async throws -> R) async rethrows -> R {
        try await Loopback.$baseURL.withValue(server.baseURL) { try await body() }
    }

    @available(*, deprecated)
    @Test func theSendersPerKindForwardToTheAdapters() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/sse") { _ in .streamed([Self.ticks], contentType: "text/event-stream") }
        server.route("/lines") { _ in
            .streamed([Data("{\"n\":3}\n{\"n\":4}\n".utf8)], contentType: "application/x-ndjson")
        }
        let (events, values, lines) = try await run(server) {
            var events: [String] = []
            for try await event in try await URLSession.shared.events(for: TickStream("sse")) {
                events.append(event.data)
            }
            var values: [Int] = []
            for try await tick in try await URLSession.shared.eventValues(for: TickStream("sse")) {
                values.append(tick.n)
            }
            var lines: [Int] = []
            for try await tick in try await URLSession.shared.lines(for: TickStream("lines")) { lines.append(tick.n) }
            return (events, values, lines)
        }
        #expect(events == [#"{"n":1}"#, #"{"n":2}"#])
        #expect(values == [1, 2])
        #expect(lines == [3, 4])
    }

    /// The old reconnecting stream opens when iterated, and retries a first connection that fails.
    @available(*, deprecated)
    @Test func theOldReconnectingStreamOpensLazilyAndRetriesTheFirstConnection() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let served = LockedBox(0)
        server.route("/sse") { _ in
            served.mutate { $0 += 1 }
            return served.value == 1 ? .streamed([Self.ticks], contentType: "text/event-stream") : .status(204)
        }
        let transport = FailingFirstTransport()
        let client = EndpointClient(transport: transport)
        let policy = EventStreamReconnection(delay: 0.01, maximumDelay: 0.05, maximumAttempts: 3)
        let data = try await run(server) {
            let stream = client.events(for: TickStream("sse"), reconnecting: policy)
            #expect(transport.calls == 0)
            var data: [String] = []
            for try await event in stream { data.append(event.data) }
            return data
        }
        #expect(data == [#"{"n":1}"#, #"{"n":2}"#])
        // The failed first connection, the one that streamed, the 204 that ended it.
        #expect(transport.calls == 3)
        #expect(served.value == 2)
    }

    @available(*, deprecated)
    @Test func theParsersStillParse() {
        var parser = ServerSentEventParser()
        #expect(parser.parse(Array("data: a\n\ndata: b".utf8)).map(\.data) == ["a"])
        #expect(parser.finish().isEmpty)
        var splitter = JSONLinesSplitter()
        #expect(splitter.parse(Array("{\"n\":1}\n{\"n\"".utf8)) == [Data("{\"n\":1}".utf8)])
        #expect(splitter.finish() == [Data("{\"n\"".utf8)])
    }

    @available(*, deprecated)
    @Test func aURLInAStringVariableStillMakesARequest() throws {
        let url = "https://api.example.com/users?page=2"
        #expect(try Request<Data>.get(url).urlRequest().url?.absoluteString == url)
        #expect(try Request<Data>.post(url, body: ["a": 1]).urlRequest().httpMethod == "POST")
        #expect(try Request<Data>.request("PURGE", url).urlRequest().httpMethod == "PURGE")
    }
}

/// Fails its first request as a lost connection would, then sends through URLSession.
final class FailingFirstTransport: HTTPTransport, Sendable {
    private let inner = URLSessionTransport(session: .shared)
    private let count = LockedBox(0)
    var calls: Int { count.value }

    private func fail() throws {
        var first = false
        count.mutate {
            $0 += 1
            first = $0 == 1
        }
        if first { throw URLError(.networkConnectionLost) }
    }

    func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
        try fail()
        return try await inner.send(request, context: context)
    }

    func stream(_ request: URLRequest, context: RequestContext) async throws -> (ResponseBody, HTTPURLResponse) {
        try fail()
        return try await inner.stream(request, context: context)
    }
}
