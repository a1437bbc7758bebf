import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The samples of Endpoints.docc/StreamingAndFiles.md, as written there, run against a loopback
// server. `print` inside the namespace records what the samples print, so the test can check it.

enum StreamingArticle {
    final class Output: Sendable {
        let lines = LockedBox<[String]>([])
    }

    @TaskLocal static var output = Output()

    static func print(_ items: Any...) {
        let line = items.map { String(describing: $0) }.joined(separator: " ")
        output.lines.mutate { $0.append(line) }
    }

    struct StreamServer: ServerDefinition {
        var baseUrls: [TypicalEnvironments: URL] { [.production: Loopback.baseURL] }
    }

    struct Price: Codable, Sendable {
        let symbol: String
        let value: Int
    }

    struct PriceUpload: Endpoint {
        typealias Server = StreamServer
        typealias Response = Echo
        static let definition: Definition<PriceUpload> = Definition(method: .put, path: "echo")
    }

    struct PriceFeed: Endpoint {
        typealias Server = StreamServer
        typealias Response = Price
        static let definition: Definition<PriceFeed> = Definition(path: "prices")
    }

    static func events() async throws {
        for try await event in try await URLSession.shared.bytes(for: PriceFeed()).events {
            print(event.type, event.id ?? "-", event.data)
        }
    }

    static func reconnecting() async throws {
        let feed = try await URLSession.shared.bytes(for: PriceFeed()).events.reconnecting()
        for try await event in feed {
            print(event.id ?? "-", event.data)
        }
    }

    static func eventValues() async throws {
        for try await price in try await URLSession.shared.bytes(for: PriceFeed()).events.values {
            print(price.symbol, price.value)
        }
    }

    static func linesAndBytes() async throws {
        for try await price in try await URLSession.shared.bytes(for: PriceFeed()).lines {
            print(price.value)
        }

        let stream = try await URLSession.shared.bytes(for: PriceFeed())
        print(stream.response.statusCode)
        for try await chunk in stream {
            print(chunk.count)
        }
    }

    static func files() async throws -> Echo {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("prices.csv")
        try await URLSession.shared.download(PriceFeed(), to: file) { progress in
            print(progress.fractionCompleted ?? 0)
        }

        let receipt = try await URLSession.shared.upload(PriceUpload(), fromFile: file) { progress in
            print(progress.completedBytes)
        }
        try? FileManager.default.removeItem(at: file)
        return receipt
    }

    static func sequenceUpload() async throws -> Echo {
        let lines = AsyncStream<Data> { continuation in
            for price in ["1.25\n", "1.50\n"] { continuation.yield(Data(price.utf8)) }
            continuation.finish()
        }
        let receipt = try await URLSession.shared.upload(PriceUpload(), from: lines)
        return receipt
    }

    static func resumable() async throws {
        let archive = FileManager.default.temporaryDirectory.appendingPathComponent("prices-2026.csv")
        for attempt in 1...3 {
            do {
                try await URLSession.shared.download(PriceFeed(), to: archive, resumable: true)
                break
            } catch {
                print("attempt \(attempt) stopped; what arrived is kept for the next")
            }
        }
    }

    struct Prices: PaginatedEndpoint {
        typealias Server = StreamServer
        typealias Response = [Price]
        static let definition: Definition<Prices> = Definition(path: "prices/history")
    }

    static func pages() async throws {
        for try await page in URLSession.shared.pages(for: Prices()) {
            print(page.count)
        }
    }
}

@Suite struct StreamingArticleSamples {
    private func run(_ server: TestServer, _ sample: @Sendable () async throws -> Void) async throws -> [String] {
        let output = StreamingArticle.Output()
        try await StreamingArticle.$output.withValue(output) {
            try await Loopback.$baseURL.withValue(server.baseURL) { try await sample() }
        }
        return output.lines.value
    }

    private let sse = Data(
        "event: price\nid: 1\ndata: {\"symbol\":\"A\",\"value\":1}\n\ndata: {\"symbol\":\"B\",\"value\":2}\n\n".utf8)
    private let ndjson = Data("{\"symbol\":\"A\",\"value\":1}\n{\"symbol\":\"B\",\"value\":2}\n".utf8)

    @Test func events() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/prices") { [sse] _ in .streamed([sse], contentType: "text/event-stream") }
        #expect(
            try await run(server) { try await StreamingArticle.events() } == [
                #"price 1 {"symbol":"A","value":1}"#, #"message 1 {"symbol":"B","value":2}"#,
            ])
        #expect(try await run(server) { try await StreamingArticle.eventValues() } == ["A 1", "B 2"])
    }

    @Test func reconnecting() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connections = LockedBox<[String?]>([])
        server.route("/prices") { [sse] request in
            var count = 0
            connections.mutate {
                $0.append(request.header("Last-Event-ID"))
                count = $0.count
            }
            // Once, with "retry: 1" so the reconnection is quick; then 204: no more.
            let body = Data("retry: 1\n".utf8) + sse
            return count == 1 ? .streamed([body], contentType: "text/event-stream") : TestServer.Response(status: 204)
        }
        let output = try await run(server) { try await StreamingArticle.reconnecting() }
        #expect(output == [#"1 {"symbol":"A","value":1}"#, #"1 {"symbol":"B","value":2}"#])
        #expect(connections.value == [nil, "1"])
    }

    @Test func linesAndBytes() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/prices") { [ndjson] _ in .streamed([ndjson]) }
        let output = try await run(server) { try await StreamingArticle.linesAndBytes() }
        #expect(output == ["1", "2", "200", String(ndjson.count)])
    }

    @Test func files() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/prices") { _ in .generated(count: 200_000) }
        let receipt = LockedBox<Echo?>(nil)
        let output = try await run(server) {
            let echo = try await StreamingArticle.files()
            receipt.mutate { $0 = echo }
        }
        #expect(output.contains("1.0"))
        #expect(output.last == "200000")
        #expect(receipt.value?.method == "PUT")
        #expect(server.requests.last?.body.count == 200_000)
    }

    /// The first attempt drops after 64 KiB; the second continues it.
    @Test func resumable() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let file = RangeServedFile(count: 200_000)
        let sends = LockedBox(0)
        server.route("/prices") { request in
            sends.mutate { $0 += 1 }
            return sends.value == 1 ? file.dropped(after: 64 << 10) : file.answer(request)
        }
        let archive = FileManager.default.temporaryDirectory.appendingPathComponent("prices-2026.csv")
        defer { try? FileManager.default.removeItem(at: archive) }
        let output = try await run(server) { try await StreamingArticle.resumable() }
        #expect(output == ["attempt 1 stopped; what arrived is kept for the next"])
        #expect(server.requests.last?.header("Range") == "bytes=65536-")
        #expect(try Data(contentsOf: archive) == file.body)
    }

    @Test func sequenceUpload() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let receipt = LockedBox<Echo?>(nil)
        _ = try await run(server) {
            let echo = try await StreamingArticle.sequenceUpload()
            receipt.mutate { $0 = echo }
        }
        #expect(receipt.value?.body == "1.25\n1.50\n")
        #expect(receipt.value?.headers["content-length"] == "10")
    }

    @Test func pages() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/prices/history") { request in
            var response = TestServer.Response.json(raw: #"[{"symbol":"A","value":1},{"symbol":"B","value":2}]"#)
            if request.queryValue("page") == nil {
                response.headers.append(("Link", #"</prices/history?page=2>; rel="next""#))
            }
            return response
        }
        #expect(try await run(server) { try await StreamingArticle.pages() } == ["2", "2"])
    }
}
