import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a transport is handed, and what it keeps when a transport of yours wraps it.
@Suite struct TransportContractTests {
    /// Wraps a transport and records the context of each request it sends.
    private struct Recording: HTTPTransport {
        let inner: any HTTPTransport
        let contexts = TestLocked([(path: String, context: RequestContext)]())

        func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
            contexts.withLock { $0.append((request.url?.path ?? "", context)) }
            return try await inner.send(request, context: context)
        }
    }

    /// The per-host limit is `URLSessionTransport`'s own, so it holds through a wrapper.
    @Test func aWrappedURLSessionTransportKeepsItsPerHostLimit() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let concurrency = TestLocked((now: 0, most: 0))
        server.route("/counted") { _ in
            concurrency.withLock { state in
                state.now += 1
                state.most = max(state.most, state.now)
            }
            try? await Task.sleep(nanoseconds: 5_000_000)
            concurrency.withLock { $0.now -= 1 }
            return .json(raw: #"{"method":"GET","path":"/counted","query":null,"headers":{},"body":null}"#)
        }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let client = EndpointClient(
            transport: Recording(inner: URLSessionTransport(session: session, maximumRequestsPerHost: 1)))
        try await Loopback.$baseURL.withValue(server.baseURL) {
            try await withThrowingTaskGroup(of: Echo.self) { group in
                for _ in 0..<8 { group.addTask { try await client.response(with: EchoEndpoint("counted")) } }
                for try await echo in group { #expect(echo.path == "/counted") }
            }
        }
        #expect(server.requestCount == 8)
        #expect(concurrency.withLock { $0.most } == 1, "requests overlapped at the server")
    }

    /// A token refresh's own request says so in its context (and skips the per-host queue).
    @Test func aRefreshSendsItsRequestMarkedAsARefresh() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/protected") { request in
            request.header("Authorization") == "Bearer new"
                ? .json(raw: #"{"method":"GET","path":"/protected","query":null,"headers":{},"body":null}"#)
                : .json(raw: #"{"code": 401, "message": "expired"}"#, status: 401)
        }
        let transport = Recording(inner: URLSessionTransport(session: .shared))
        let client = EndpointClient(transport: transport)
        let auth = JWTAuth(
            initialTokens: .init(accessToken: "old", refreshToken: "r1"),
            refreshHandler: { _ in
                _ = try await client.response(with: EchoEndpoint("echo"))
                return .init(accessToken: "new", refreshToken: "r2")
            }
        )
        let echo = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await client.response(with: JWTEcho(), auth: auth)
        }
        #expect(echo.path == "/protected")
        let sent = transport.contexts.withLock { $0 }.map { "\($0.path) \($0.context.isCredentialRefresh)" }
        #expect(sent == ["/protected false", "/echo true", "/protected false"])
    }
}

extension TransportContractTests {
    /// A transport of one's own that answers by itself: it reads an upload's file and serves a
    /// download, each from what the context says.
    private struct SelfServing: HTTPTransport {
        let seen = TestLocked([(upload: URL?, destination: URL?)]())

        func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
            seen.withLock { $0.append((context.uploadFile, context.downloadDestination)) }
            let body: Data
            if let file = context.uploadFile {
                let uploaded = try Data(contentsOf: file)
                body = Data(
                    #"{"method":"PUT","path":"/echo","query":null,"headers":{},"body":"\#(String(decoding: uploaded, as: UTF8.self))"}"#
                        .utf8)
            } else {
                body = Data("the file's new contents".utf8)
            }
            let response = HTTPURLResponse(
                url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:])!
            return (body, response)
        }
    }

    private func temporaryFile(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(name)-\(UUID().uuidString)")
    }

    @Test func aCustomTransportReceivesAnUploadsFileThroughTheContext() async throws {
        let file = temporaryFile("upload")
        try Data("sent from a file".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let transport = SelfServing()
        let client = EndpointClient(transport: transport)
        let echo = try await Loopback.$baseURL.withValue(URL(string: "http://example.invalid")!) {
            try await client.upload(UploadEndpoint(), fromFile: file)
        }
        #expect(echo.body == "sent from a file")
        let seen = transport.seen.withLock { $0 }
        #expect(seen.map(\.upload) == [file])
        #expect(seen.map(\.destination) == [nil])
    }

    @Test func aCustomTransportReceivesADownloadsDestinationThroughTheContext() async throws {
        let destination = temporaryFile("download")
        try Data("the old contents".utf8).write(to: destination)
        defer { try? FileManager.default.removeItem(at: destination) }
        let transport = SelfServing()
        let client = EndpointClient(transport: transport)
        let reports = TestLocked([TransferProgress]())
        try await Loopback.$baseURL.withValue(URL(string: "http://example.invalid")!) {
            try await client.download(FileEndpoint("file"), to: destination) { progress in
                reports.withLock { $0.append(progress) }
            }
        }
        #expect(try Data(contentsOf: destination) == Data("the file's new contents".utf8))
        let seen = transport.seen.withLock { $0 }
        #expect(seen.map(\.destination) == [destination])
        #expect(seen.map(\.upload) == [nil])
        // The call reports what it wrote of a body the transport streamed back.
        #expect(reports.withLock { $0 }.last?.completedBytes == 23)
    }

    /// Through the URLSession transport, the same context reaches a wrapping transport.
    @Test func aWrappedURLSessionTransportSeesTheUploadAndSendsIt() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let file = temporaryFile("upload")
        try Data("sent from a file".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let transport = Recording(inner: URLSessionTransport(session: .shared))
        let echo = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await EndpointClient(transport: transport).upload(UploadEndpoint(), fromFile: file)
        }
        #expect(echo.body == "sent from a file")
        #expect(transport.contexts.withLock { $0 }.map(\.context.uploadFile) == [file])
    }
}

extension TransportContractTests {
    /// A transport of one's own that streams, as `HTTPTransport.stream`'s documentation shows: the
    /// head at once, the body a `ResponseBody` over an `AsyncThrowingStream` the test feeds.
    private final class FedStream: HTTPTransport, Sendable {
        let feed = TestLocked<AsyncThrowingStream<Data, any Error>.Continuation?>(nil)
        let closed = TestLocked(false)

        func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
            throw URLError(.unsupportedURL)
        }

        func stream(_ request: URLRequest, context: RequestContext) async throws -> (ResponseBody, HTTPURLResponse) {
            let (chunks, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
            continuation.onTermination = { [closed] _ in closed.withLock { $0 = true } }
            feed.withLock { $0 = continuation }
            let head = HTTPURLResponse(
                url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "application/x-ndjson"])!
            return (ResponseBody(chunks), head)
        }

        func deliver(_ text: String) { _ = feed.withLock { $0 }?.yield(Data(text.utf8)) }
    }

    @Test func aCustomTransportStreamsABodyMadeFromAnAsyncSequence() async throws {
        let transport = FedStream()
        let client = EndpointClient(transport: transport)
        try await Loopback.$baseURL.withValue(URL(string: "http://example.invalid")!) {
            var ticks = try await client.bytes(for: TickStream("ticks")).lines.makeAsyncIterator()
            // Each value arrives as its chunk does, while the stream is still open.
            transport.deliver(#"{"n": 1}"# + "\n")
            #expect(try await ticks.next() == Tick(n: 1, text: nil))
            transport.deliver(#"{"n": 2, "#)
            transport.deliver(#""text": "two"}"# + "\n")
            #expect(try await ticks.next() == Tick(n: 2, text: "two"))
            #expect(!transport.closed.withLock { $0 })
            transport.feed.withLock { $0 }?.finish()
            #expect(try await ticks.next() == nil)
        }
    }

    @Test func aCustomTransportsStreamIsClosedWhenTheReaderLeaves() async throws {
        let transport = FedStream()
        let client = EndpointClient(transport: transport)
        try await Loopback.$baseURL.withValue(URL(string: "http://example.invalid")!) {
            let ticks = try await client.bytes(for: TickStream("ticks")).lines
            transport.deliver(#"{"n": 1}"# + "\n")
            for try await tick in ticks where tick.n == 1 { break }
        }
        for _ in 0..<1000 where !transport.closed.withLock({ $0 }) { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(transport.closed.withLock { $0 })
    }
}

/// `GET /protected` with a ``JWTAuth``.
private struct JWTEcho: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Echo
    typealias ErrorResponse = APIError
    static let definition: Definition<JWTEcho> = Definition(method: .get, path: "protected")
    static let auth = JWTAuth(refreshHandler: { _ in throw URLError(.userAuthenticationRequired) })
}
