import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The adapters of the one stream type: each is an `EndpointStream` with the endpoint's typed
/// error, they compose, and a reconnecting stream's decoded values reconnect too.
@Suite struct StreamAdapterTests {
    private func run<R: Sendable>(_ server: TestServer, _ body: @Sendable () async throws -> R) async rethrows -> R {
        try await Loopback.$baseURL.withValue(server.baseURL) { try await body() }
    }

    /// Compiles only if every adapter's `Failure` is the endpoint's `TaskError`.
    private static func readAll<Element>(
        _ stream: EndpointStream<TickStream, Element>
    ) async throws(TickStream.TaskError) -> [Element] {
        var values: [Element] = []
        for try await value in stream { values.append(value) }
        return values
    }

    @Test(arguments: TestTransport.all)
    func reconnectingEventsDecodedAsValuesReconnectWithTheLastEventID(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let seen = LockedBox<[String?]>([])
        server.route("/sse") { request in
            var index = 0
            seen.mutate {
                $0.append(request.header("Last-Event-ID"))
                index = $0.count
            }
            switch index {
            case 1: return .streamed([Data("id: 1\ndata: {\"n\":1}\n\n".utf8)], contentType: "text/event-stream")
            case 2: return .streamed([Data("id: 2\ndata: {\"n\":2}\n\n".utf8)], contentType: "text/event-stream")
            default: return TestServer.Response(status: 204)
            }
        }
        let policy = ReconnectionPolicy(delay: 0.01, maximumDelay: 0.05, maximumAttempts: 3)
        let ticks = try await run(server) {
            try await Self.readAll(transport.client().bytes(for: TickStream("sse")).events.reconnecting(policy).values)
        }
        #expect(ticks.map(\.n) == [1, 2])
        #expect(seen.value == [nil, "1", "2"])
    }

    @Test(arguments: TestTransport.all)
    func everyAdapterThrowsTheEndpointsTypedError(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/sse") { _ in
            .streamed([Data("data: {\"n\":1}\n\ndata: {\"n\":".utf8)], contentType: "text/event-stream", then: .drop)
        }
        try await run(server) {
            let events = try await transport.client().bytes(for: TickStream("sse")).events
            let error = await #expect(throws: TickStream.TaskError.self) { _ = try await Self.readAll(events) }
            #expect(error?.urlErrorCode == .networkConnectionLost, "got \(String(describing: error))")
            let values = try await transport.client().bytes(for: TickStream("sse")).events.values
            let valuesError = await #expect(throws: TickStream.TaskError.self) { _ = try await Self.readAll(values) }
            #expect(valuesError?.stage == .transport)
        }
    }

    @Test(arguments: TestTransport.all)
    func theChunksOfAStreamAreItsBodyAsItArrived(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let chunks = ["{\"n\":1}\n", "{\"n\":2}\n"].map { Data($0.utf8) }
        server.route("/lines") { _ in .streamed(chunks, pause: .milliseconds(5), contentType: "application/x-ndjson") }
        let (bytes, ticks) = try await run(server) {
            let bytes = try await Self.readAll(transport.client().bytes(for: TickStream("lines")))
            let ticks = try await Self.readAll(transport.client().bytes(for: TickStream("lines")).lines)
            return (bytes, ticks)
        }
        #expect(bytes.reduce(Data(), +) == chunks.reduce(Data(), +))
        #expect(ticks.map(\.n) == [1, 2])
    }
}
