import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A value of a JSON-lines or event stream.
struct Tick: Decodable, Sendable, Equatable {
    let n: Int
    let text: String?
}

/// `GET /{route}`, each value decoding as ``Tick``.
struct TickStream: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Tick
    typealias ErrorResponse = APIError

    static let definition: Definition<TickStream> = Definition(path: "\(path: \.route)")

    let pathComponents: Route

    init(_ route: String) { pathComponents = Route(route: route) }
}

/// ``TickStream`` behind ``RefreshingAuth``.
struct PrivateTickStream: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Tick
    typealias ErrorResponse = APIError

    static let auth = RefreshingAuth()
    static let definition: Definition<PrivateTickStream> = Definition(path: "private")
}

/// Counts what passes through it: middleware sees each stream's head with an empty body.
final class HeadRecorder: Middleware, Sendable {
    private let seen = LockedBox<[(Int, Int)]>([])
    var heads: [(status: Int, bodyCount: Int)] { seen.value.map { (status: $0.0, bodyCount: $0.1) } }

    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await next(request)
        seen.mutate { $0.append((response.statusCode, data.count)) }
        return (data, response)
    }
}

/// A tiny lock-guarded box for test bookkeeping.
final class LockedBox<Value>: @unchecked Sendable {
    // @unchecked Sendable: every access to `stored` goes through `lock`.
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}

/// Refreshes on a 401: the first token is stale, the refreshed one is accepted.
final class RefreshingAuth: AuthenticationMethod, Sendable {
    private let token = LockedBox("stale")
    private let refreshes = LockedBox(0)
    var refreshCount: Int { refreshes.value }

    func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest {
        var request = request
        request.setValue("Bearer \(token.value)", forHTTPHeaderField: "Authorization")
        return request
    }

    func shouldReauthenticate(for request: URLRequest, response: HTTPURLResponse) -> Bool { response.statusCode == 401 }

    func reauthenticate(after request: URLRequest) async throws(AuthenticationError) {
        refreshes.mutate { $0 += 1 }
        token.mutate { $0 = "fresh" }
    }
}

@Suite(.timingBound) struct StreamingEndpointTests {
    private func sse(_ text: String) -> Data { Data(text.utf8) }

    private func run<R: Sendable>(
        _ server: TestServer, _ body: @Sendable () async throws -> R
    ) async rethrows -> R {
        try await Loopback.$baseURL.withValue(server.baseURL) { try await body() }
    }

    @Test(arguments: TestTransport.all)
    func eventsArriveTypedAndInOrder(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let chunks = [
            ": hello\n\n", "event: tick\nid: 1\ndata: {\"n\":1}\n\n", "data: {\"n\":2,", "\"text\":\"two\"}\n\n",
        ]
        server.route("/sse") { _ in
            .streamed(chunks.map(self.sse), pause: .milliseconds(5), contentType: "text/event-stream")
        }
        let events = try await run(server) {
            var events: [ServerSentEvent] = []
            let stream = try await transport.client().bytes(for: TickStream("sse")).events
            #expect(stream.response.value(forHTTPHeaderField: "Content-Type") == "text/event-stream")
            for try await event in stream { events.append(event) }
            return events
        }
        #expect(
            events == [
                ServerSentEvent(type: "tick", data: #"{"n":1}"#, id: "1"),
                ServerSentEvent(data: #"{"n":2,"text":"two"}"#, id: "1"),
            ])
    }

    @Test(arguments: TestTransport.all)
    func eventValuesDecodeEachEventsData(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/sse") { _ in
            .streamed([self.sse("data: {\"n\":1}\n\ndata: {\"n\":2}\n\n")], contentType: "text/event-stream")
        }
        let values = try await run(server) {
            var values: [Tick] = []
            for try await value in try await transport.client().bytes(for: TickStream("sse")).events.values {
                values.append(value)
            }
            return values
        }
        #expect(values.map(\.n) == [1, 2])
    }

    /// Every chunk is one byte, so events and UTF-8 sequences are split at every boundary on the wire.
    @Test(arguments: TestTransport.all)
    func oneByteChunksSplitEventsAndUTF8Everywhere(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let text = "\u{FEFF}data: größe 日本 🎉\r\n\r\nevent: e\rdata: ✓\r\rdata: {\"n\":3}\n\n"
        server.route("/bytes-sse") { _ in
            .streamed(Array(text.utf8).map { Data([$0]) }, contentType: "text/event-stream")
        }
        let events = try await run(server) {
            var events: [ServerSentEvent] = []
            for try await event in try await transport.client().bytes(for: TickStream("bytes-sse")).events {
                events.append(event)
            }
            return events
        }
        #expect(events.map(\.data) == ["größe 日本 🎉", "✓", #"{"n":3}"#])
        #expect(events.map(\.type) == ["message", "e", "message"])
    }

    @Test(arguments: TestTransport.all)
    func jsonLinesDecodeLineByLine(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let body = "{\"n\":1}\r\n\n{\"n\":2,\"text\":\"é\"}\n{\"n\":3}"
        server.route("/ndjson") { _ in
            .streamed(Array(body.utf8).map { Data([$0]) }, contentType: "application/x-ndjson")
        }
        let values = try await run(server) {
            var values: [Tick] = []
            for try await value in try await transport.client().bytes(for: TickStream("ndjson")).lines {
                values.append(value)
            }
            return values
        }
        #expect(values == [Tick(n: 1, text: nil), Tick(n: 2, text: "é"), Tick(n: 3, text: nil)])
    }

    @Test(arguments: TestTransport.all)
    func aLineThatDoesNotDecodeEndsTheStreamWithItsBytes(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/bad") { _ in .streamed([Data("{\"n\":1}\n{\"n\":\"x\"}\n{\"n\":3}\n".utf8)]) }
        try await run(server) {
            let stream = try await transport.client().bytes(for: TickStream("bad")).lines
            var iterator = stream.makeAsyncIterator()
            #expect(try await iterator.next()?.n == 1)
            let error = await #expect(throws: TickStream.TaskError.self) { _ = try await iterator.next() }
            guard case .responseParseError(let response, let data, let failure) = error else {
                Issue.record("expected .responseParseError, got \(String(describing: error))")
                return
            }
            #expect(response.statusCode == 200)
            #expect(data == Data(#"{"n":"x"}"#.utf8))
            #expect(failure.codingPath == "n")
            #expect(try await iterator.next() == nil)
        }
    }

    /// A server that never ends a line (or an event) cannot fill the client's memory: past 16 MiB
    /// the stream ends with `.responseParseError` naming the limit, keeping the value's first 64 KiB,
    /// and the transfer stops while the server is still sending.
    @Test(arguments: ["lines", "events"], TestTransport.all)
    func aValuePastTheLimitEndsTheStream(format: String, via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let mebibyte = Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
        let start = Data((format == "lines" ? "{\"n\":1}\n" : "data: {\"n\":1}\n\ndata: ").utf8)
        server.route("/endless") { _ in
            .streamed([start] + Array(repeating: mebibyte, count: 17), contentType: "text/event-stream", then: .stall)
        }
        try await run(server) {
            let stream = try await transport.client().bytes(for: TickStream("endless"))
            var values: [Tick] = []
            let error = await #expect(throws: TickStream.TaskError.self) {
                if format == "lines" {
                    for try await value in stream.lines { values.append(value) }
                } else {
                    for try await value in stream.events.values { values.append(value) }
                }
            }
            #expect(values == [Tick(n: 1, text: nil)])
            guard case .responseParseError(let response, let data, let failure) = error else {
                Issue.record("expected .responseParseError, got \(String(describing: error))")
                return
            }
            #expect(response.statusCode == 200)
            #expect(data.count == 64 << 10)
            #expect(String(describing: failure).contains("passed 16777216 bytes"), "\(failure)")
        }
    }

    @Test(arguments: TestTransport.all)
    func aNon2xxAnswerIsDecodedAsTheErrorResponse(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/limited") { _ in .json(raw: #"{"code": 429, "message": "status code"}"#, status: 429) }
        await run(server) {
            let error = await #expect(throws: TickStream.TaskError.self) {
                _ = try await transport.client().bytes(for: TickStream("limited")).events
            }
            guard case .errorResponse(let response, let body) = error else {
                Issue.record("expected .errorResponse, got \(String(describing: error))")
                return
            }
            #expect(response.statusCode == 429)
            #expect(body == APIError(code: 429, message: "status code"))
        }
    }

    @Test(arguments: TestTransport.all)
    func a401IsRefreshedBeforeTheBodyStarts(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/private") { request in
            request.header("Authorization") == "Bearer fresh"
                ? .streamed([Data("data: {\"n\":7}\n\n".utf8)], contentType: "text/event-stream")
                : .json(["code": 401, "message": "expired"] as [String: AnyEncodableValue], status: 401)
        }
        // A method of its own (the endpoint declares a shared one): each transport's run starts stale.
        let auth = RefreshingAuth()
        let values = try await run(server) {
            var values: [Tick] = []
            for try await value in try await transport.client().bytes(for: PrivateTickStream(), auth: auth).events
                .values
            {
                values.append(value)
            }
            return values
        }
        #expect(values.map(\.n) == [7])
        #expect(auth.refreshCount == 1)
        #expect(server.requestCount == 2)
    }

    @Test(arguments: TestTransport.all)
    func middlewareSeesTheHeadWithAnEmptyBody(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/sse") { _ in .streamed([Data("data: {\"n\":1}\n\n".utf8)], contentType: "text/event-stream") }
        let recorder = HeadRecorder()
        let count = try await run(server) {
            var count = 0
            for try await _ in try await transport.client().bytes(for: TickStream("sse"), middleware: [recorder]).events
            {
                count += 1
            }
            _ = try? await transport.client().bytes(for: TickStream("missing"), middleware: [recorder]).events
            return count
        }
        #expect(count == 1)
        #expect(recorder.heads.map(\.status) == [200, 404])
        #expect(recorder.heads.first?.bodyCount == 0)
        #expect((recorder.heads.last?.bodyCount ?? 0) > 0)
    }

    @Test(arguments: TestTransport.all)
    func retryMiddlewareRetriesBeforeTheBody(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let calls = LockedBox(0)
        server.route("/flaky") { _ in
            calls.mutate { $0 += 1 }
            return calls.value == 1 ? .status(503) : .streamed([Data("{\"n\":5}\n".utf8)])
        }
        let retry = RetryMiddleware(maximumAttempts: 2, budget: 3600, initialDelay: 0.01, maximumDelay: 0.01)
        let values = try await run(server) {
            var values: [Int] = []
            for try await value in try await transport.client().bytes(for: TickStream("flaky"), middleware: [retry])
                .lines
            {
                values.append(value.n)
            }
            return values
        }
        #expect(values == [5])
        #expect(calls.value == 2)
    }

    @Test(arguments: TestTransport.all)
    func aDroppedConnectionEndsTheStreamWithATypedError(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/drop") { _ in
            .streamed([Data("data: {\"n\":1}\n\n".utf8)], contentType: "text/event-stream", then: .drop)
        }
        try await run(server) {
            let stream = try await transport.client().bytes(for: TickStream("drop")).events.values
            var iterator = stream.makeAsyncIterator()
            #expect(try await iterator.next()?.n == 1)
            let error = await #expect(throws: TickStream.TaskError.self) { _ = try await iterator.next() }
            #expect(error?.urlErrorCode == .networkConnectionLost)
        }
    }

    @Test(arguments: TestTransport.all)
    func aStalledStreamTimesOut(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/stall") { _ in
            .streamed([Data("data: {\"n\":1}\n\n".utf8)], contentType: "text/event-stream", then: .stall)
        }
        try await run(server) {
            let stream = try await transport.client().bytes(
                for: TickStream("stall"), middleware: [TimeoutMiddleware(seconds: 8 * TestTiming.scale)]
            ).events.values
            var iterator = stream.makeAsyncIterator()
            #expect(try await iterator.next()?.n == 1)
            let error = await #expect(throws: TickStream.TaskError.self) { _ = try await iterator.next() }
            #expect(error?.urlErrorCode == .timedOut)
        }
    }

    @Test(arguments: TestTransport.all)
    func cancellingTheConsumerCancelsTheTransfer(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/forever") { _ in
            .streamed([Data("data: {\"n\":1}\n\n".utf8)], contentType: "text/event-stream", then: .stall)
        }
        let first = LockedBox(false)
        let reader = OwnThread.task {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                for try await _ in try await transport.client().bytes(for: TickStream("forever")).events.values {
                    first.mutate { $0 = true }
                }
            }
        }
        for _ in 0..<1000 where !first.value { try await Task.sleep(nanoseconds: 5_000_000) }
        try #require(first.value)
        reader.cancel()
        let error = await #expect(throws: TickStream.TaskError.self) { try await reader.value }
        #expect(error?.isCancelled == true)
    }
}

/// A JSON value for ad-hoc route bodies.
enum AnyEncodableValue: Encodable, Sendable, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral {
    case int(Int)
    case string(String)
    init(integerLiteral value: Int) { self = .int(value) }
    init(stringLiteral value: String) { self = .string(value) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .int(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        }
    }
}
