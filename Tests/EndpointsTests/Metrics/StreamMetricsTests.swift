import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request whose body is read as it arrives, sent from a file or written to one is measured and
/// reported as a buffered one is: its events end with `finished` (or `cancelled`), and its last
/// metrics count the body's bytes.
@Suite struct StreamMetricsTests {
    /// `PUT /{route}` with a file's contents as its body.
    struct PutFile: Endpoint {
        typealias Server = LoopbackServer
        typealias Response = Echo
        typealias ErrorResponse = APIError

        static let definition: Definition<PutFile> = Definition(method: .put, path: "\(path: \.route)")

        let pathComponents: Route

        init(_ route: String) { pathComponents = Route(route: route) }
    }

    /// The metrics in the last event of the one request `log` saw.
    private func lastMetrics(_ log: EventLog) -> RequestMetrics? {
        guard case .finished(let metrics) = log.events.last?.kind else {
            Issue.record("the last event is \(log.events.last?.name ?? "none")")
            return nil
        }
        return metrics
    }

    @Test(arguments: TestTransport.all)
    func aStreamReadToItsEndIsReportedWithItsBytes(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let chunks = (0..<4).map { Data(repeating: UInt8($0), count: 3_000) }
        server.route("/chunks") { _ in .streamed(chunks) }
        let log = EventLog()
        let client = transport.client(session: makeMiddlewareTestSession(), eventListener: log)
        var read = 0
        try await Loopback.$baseURL.withValue(server.baseURL) {
            for try await chunk in try await client.bytes(for: FileEndpoint("chunks")) { read += chunk.count }
        }
        #expect(read == 12_000)
        await log.waitForEnds(1)
        #expect(
            log.events.map(\.name) == [
                "started", "attemptSent", "headReceived", "bodyFinished", "decoded", "finished",
            ])
        let metrics = try #require(lastMetrics(log))
        #expect(metrics.attempts.map(\.statusCode) == [200])
        #expect(metrics.attempts.first?.bytesReceived == 12_000)
        #expect(metrics.attempts.first?.receivingBody != nil)
    }

    @Test(arguments: TestTransport.all)
    func aStreamLeftBeforeItsEndEndsCancelled(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/endless") { _ in .streamed([Data("first\n".utf8)], then: .stall) }
        let log = EventLog()
        let client = transport.client(session: makeMiddlewareTestSession(), eventListener: log)
        try await Loopback.$baseURL.withValue(server.baseURL) {
            let stream = try await client.bytes(for: FileEndpoint("endless"))
            var chunks = stream.makeAsyncIterator()
            _ = try await chunks.next()
        }
        // The stream and its reader are gone: the request ends as cancelled.
        await log.waitForEnds(1)
        #expect(log.events.last?.name == "cancelled")
        #expect(log.events.filter(\.isLast).count == 1)
    }

    @Test(arguments: TestTransport.all)
    func aStreamThatFailsEndsFailedAtTheTransport(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/dropped") { _ in .streamed([Data("partial".utf8)], then: .drop) }
        let log = EventLog()
        let client = transport.client(session: makeMiddlewareTestSession(), eventListener: log)
        await #expect(throws: FileEndpoint.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                for try await _ in try await client.bytes(for: FileEndpoint("dropped")) {}
            }
        }
        await log.waitForEnds(1)
        let failures = log.events.compactMap { event -> RequestStage? in
            guard case .failed(let stage) = event.kind else { return nil }
            return stage
        }
        #expect(failures == [.transport])
        #expect(log.events.last?.name == "finished")
    }

    @Test(arguments: TestTransport.all)
    func anUploadRefusedCarriesItsMetrics(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/full") { _ in .json(raw: #"{"code":507,"message":"full"}"#, status: 507) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString)")
        try Data(repeating: 7, count: 5_000).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let log = EventLog()
        let client = transport.client(session: makeMiddlewareTestSession(), eventListener: log)
        do {
            _ = try await Loopback.$baseURL.withValue(server.baseURL) {
                try await client.upload(PutFile("full"), fromFile: file)
            }
            Issue.record("a 507 succeeded")
        } catch let error as PutFile.TaskError {
            let metrics = try #require(error.metrics)
            #expect(metrics.attempts.map(\.statusCode) == [507])
            #expect(metrics.attempts.first?.bytesSent == 5_000, "an upload counts the file it sent")
            #expect(error.stage == .validation)
        }
        await log.waitForEnds(1)
        #expect(log.events.map(\.name).contains("failed"))
    }

    @Test(arguments: TestTransport.all)
    func aDownloadIsReportedWithItsBytes(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/blob") { _ in .generated(count: 100_000) }
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent(
            "metrics-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        let log = EventLog()
        let client = transport.client(session: makeMiddlewareTestSession(), eventListener: log)
        try await Loopback.$baseURL.withValue(server.baseURL) {
            try await client.download(FileEndpoint("blob"), to: destination)
        }
        await log.waitForEnds(1)
        let names = log.events.map(\.name)
        #expect(names.first == "started")
        #expect(Array(names.suffix(3)) == ["bodyFinished", "decoded", "finished"])
        #expect(lastMetrics(log)?.attempts.first?.bytesReceived == 100_000)
    }
}
