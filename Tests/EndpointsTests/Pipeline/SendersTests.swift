import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(Combine)
    import Combine
#endif
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What sends: a session itself, or a client made from one.
enum Receiver: String, Sendable, CustomTestStringConvertible {
    case session
    case client

    var testDescription: String { rawValue }

    /// `URLSession.shared`, or an `EndpointClient` on it whose middleware marks each request
    /// `X-Sent-By: client`, so the server can tell that the client's own middleware ran.
    var sender: any EndpointSending {
        switch self {
        case .session: URLSession.shared
        case .client: EndpointClient(session: .shared, middleware: [SentByClient()])
        }
    }

    /// The `X-Sent-By` header the server should see.
    var mark: String? { self == .client ? "client" : nil }
}

/// Marks a request as sent by the client.
private struct SentByClient: Middleware {
    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        var request = request
        request.setValue("client", forHTTPHeaderField: "X-Sent-By")
        return try await next(request)
    }
}

/// Every sender of ``EndpointSending``: how to call it, what it yields (as text both receivers
/// must agree on), and how many requests the server should see.
enum Sender: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case response
    case responseWithContext
    case typedResponse
    case endpointTask
    case bytes
    case events
    case eventValues
    case lines
    case reconnectingEvents
    case uploadChunks
    case uploadBytes
    case uploadFile
    case download
    case pages
    case adHocResponse
    case requestResponse
    case adHocTypedResponse
    case adHocEndpointTask
    case requestEndpointTask
    #if canImport(Combine)
        case endpointPublisher
        case endpointPublisherWithContext
        case adHocPublisher
        case requestPublisher
    #endif

    var testDescription: String { rawValue }

    var expected: String {
        switch self {
        case .response, .endpointTask, .adHocResponse, .requestResponse, .adHocEndpointTask,
            .requestEndpointTask:
            "GET /echo"
        case .responseWithContext: #"POST /echo {"name":"Ada"}"#
        case .typedResponse, .adHocTypedResponse: "200 GET /echo"
        case .bytes: "300 bytes"
        case .events, .reconnectingEvents: #"{"n":1} {"n":2}"#
        case .eventValues, .lines: "1 2"
        case .uploadChunks, .uploadBytes, .uploadFile: "PUT /echo hello, world"
        case .download: "downloaded"
        case .pages: "[[10, 11], [20, 21]]"
        #if canImport(Combine)
            case .endpointPublisher, .adHocPublisher, .requestPublisher: "GET /echo"
            case .endpointPublisherWithContext: #"POST /echo {"name":"Ada"}"#
        #endif
        }
    }

    var requests: Int { self == .pages ? 2 : 1 }

    /// Calls this sender on `sender`, against the loopback server at `Loopback.baseURL`.
    func send(through sender: any EndpointSending) async throws -> String {
        let base = RequestBase(url: Loopback.baseURL)
        switch self {
        case .response:
            return describe(try await sender.response(with: EchoEndpoint()))
        case .responseWithContext:
            return describe(
                try await sender.response(
                    with: PostEndpoint("echo"), environment: .production, auth: NoAuth(), middleware: []))
        case .typedResponse:
            let typed = try await sender.typedResponse(with: EchoEndpoint())
            return "\(typed.httpResponse.statusCode) \(describe(typed.value))"
        case .endpointTask:
            let echo = try await completion { done in
                try sender.endpointTask(with: EchoEndpoint()) { done($0.mapError { $0 as any Error }) }
            }
            return describe(echo)
        case .bytes:
            var count = 0
            for try await chunk in try await sender.bytes(for: BytesEndpoint(count: 300)) { count += chunk.count }
            return "\(count) bytes"
        case .events:
            var data: [String] = []
            for try await event in try await sender.bytes(for: TickStream("sse")).events { data.append(event.data) }
            return data.joined(separator: " ")
        case .eventValues:
            var ticks: [String] = []
            for try await tick in try await sender.bytes(for: TickStream("sse")).events.values {
                ticks.append("\(tick.n)")
            }
            return ticks.joined(separator: " ")
        case .lines:
            var ticks: [String] = []
            for try await tick in try await sender.bytes(for: TickStream("lines")).lines { ticks.append("\(tick.n)") }
            return ticks.joined(separator: " ")
        case .reconnectingEvents:
            var data: [String] = []
            for try await event in try await sender.bytes(for: TickStream("sse")).events.reconnecting(
                reconnectsWhenEnded: false)
            {
                data.append(event.data)
            }
            return data.joined(separator: " ")
        case .uploadChunks:
            let chunks = AsyncStream<Data> { continuation in
                continuation.yield(Data("hello, ".utf8))
                continuation.yield(Data("world".utf8))
                continuation.finish()
            }
            return describe(try await sender.upload(UploadEndpoint(), from: chunks))
        case .uploadBytes:
            let bytes = AsyncStream<UInt8> { continuation in
                for byte in "hello, world".utf8 { continuation.yield(byte) }
                continuation.finish()
            }
            return describe(try await sender.upload(UploadEndpoint(), from: bytes))
        case .uploadFile:
            let file = temporaryFile()
            defer { try? FileManager.default.removeItem(at: file) }
            try Data("hello, world".utf8).write(to: file)
            return describe(try await sender.upload(UploadEndpoint(), fromFile: file))
        case .download:
            let file = temporaryFile()
            defer { try? FileManager.default.removeItem(at: file) }
            try await sender.download(FileEndpoint("file"), to: file)
            return String(decoding: try Data(contentsOf: file), as: UTF8.self)
        case .pages:
            var pages: [[Int]] = []
            for try await page in sender.pages(for: LinkedItems()) { pages.append(page) }
            return "\(pages)"
        case .adHocResponse:
            return describe(try await sender.response(for: AdHocRequest<Echo, APIError>.get("echo", on: base)))
        case .requestResponse:
            return describe(try await sender.response(for: Request<Echo>.get("echo", on: base)))
        case .adHocTypedResponse:
            let typed = try await sender.typedResponse(for: AdHocRequest<Echo, APIError>.get("echo", on: base))
            return "\(typed.httpResponse.statusCode) \(describe(typed.value))"
        case .adHocEndpointTask:
            let echo = try await completion { done in
                try sender.endpointTask(for: AdHocRequest<Echo, APIError>.get("echo", on: base)) {
                    done($0.mapError { $0 as any Error })
                }
            }
            return describe(echo)
        case .requestEndpointTask:
            let echo = try await completion { done in
                try sender.endpointTask(for: Request<Echo>.get("echo", on: base)) {
                    done($0.mapError { $0 as any Error })
                }
            }
            return describe(echo)
        #if canImport(Combine)
            case .endpointPublisher:
                return try await first(sender.endpointPublisher(with: EchoEndpoint()))
            case .endpointPublisherWithContext:
                return try await first(
                    sender.endpointPublisher(
                        with: PostEndpoint("echo"), environment: .production, auth: NoAuth(), middleware: []))
            case .adHocPublisher:
                return try await first(
                    sender.endpointPublisher(for: AdHocRequest<Echo, APIError>.get("echo", on: base)))
            case .requestPublisher:
                return try await first(sender.endpointPublisher(for: Request<Echo>.get("echo", on: base)))
        #endif
        }
    }

    private func describe(_ echo: Echo) -> String {
        [echo.method, echo.path, echo.body ?? ""].filter { !$0.isEmpty }.joined(separator: " ")
    }

    private func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("endpoints-senders-\(UUID().uuidString)")
    }

    /// Creates a data task with `make`, resumes it and waits for its completion handler.
    private func completion(
        _ make: (@escaping @Sendable (Result<Echo, any Error>) -> Void) throws -> URLSessionDataTask
    ) async throws -> Echo {
        try await withCheckedThrowingContinuation { continuation in
            do {
                try make { continuation.resume(with: $0) }.resume()
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    #if canImport(Combine)
        /// The first value `publisher` emits, described.
        private func first<Failure: Error>(_ publisher: AnyPublisher<Echo, Failure>) async throws -> String {
            for try await echo in publisher.values { return describe(echo) }
            throw CancellationError()
        }
    #endif
}

@Suite struct SendersTests {
    /// Routes for the senders that the built-in `/echo` and `/bytes` do not answer.
    private func server() throws -> TestServer {
        let server = try TestServer()
        server.route("/sse") { _ in
            .streamed([Data("data: {\"n\":1}\n\ndata: {\"n\":2}\n\n".utf8)], contentType: "text/event-stream")
        }
        server.route("/lines") { _ in
            .streamed([Data("{\"n\":1}\n{\"n\":2}\n".utf8)], contentType: "application/x-ndjson")
        }
        server.route("/file") { _ in .text("downloaded") }
        server.route("/items") { request in
            let page = Int(request.queryValue("page") ?? "1") ?? 1
            var response = TestServer.Response.json([page * 10, page * 10 + 1])
            if page < 2 { response.headers.append(("Link", #"</items?page=2>; rel="next""#)) }
            return response
        }
        return server
    }

    @Test(arguments: [Receiver.session, .client], Sender.allCases)
    func everySenderReachesTheServerAndDecodesTheSameOnBothReceivers(
        receiver: Receiver, sender: Sender
    ) async throws {
        let server = try server()
        defer { server.stop() }
        let outcome = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await sender.send(through: receiver.sender)
        }
        #expect(outcome == sender.expected)
        #expect(server.requestCount == sender.requests)
        // The client's own middleware ran on every request it sent, and a session adds none.
        #expect(
            server.requests.map { $0.header("X-Sent-By") } == Array(repeating: receiver.mark, count: sender.requests))
    }

    @Test func bothReceiversSendThroughTheClientTheyStandFor() {
        let client = EndpointClient(session: .shared, middleware: [SentByClient()])
        #expect(client.endpointClient.middleware.count == 1)
        #expect((URLSession.shared.endpointClient.transport as? URLSessionTransport) != nil)
        #expect(URLSession.shared.endpointClient.middleware.isEmpty)
    }
}
