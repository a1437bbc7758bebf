import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `URLSessionTransport.stream`: the head first, then the body as it arrives, over loopback.
@Suite(.timingBound) struct StreamingTransportTests {
    private let transport = URLSessionTransport(session: .shared)
    private let context = RequestContext(endpointName: "Stream")

    private func request(_ server: TestServer, _ path: String, timeout: TimeInterval = 60) -> URLRequest {
        var request = URLRequest(url: server.url(path))
        request.timeoutInterval = timeout
        return request
    }

    @Test func theHeadArrivesBeforeTheBodyEnds() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/slow") { _ in .streamed([Data("first".utf8)], contentType: "text/plain", then: .stall) }
        let (body, response) = try await transport.stream(request(server, "/slow"), context: context)
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/plain")
        var iterator = body.makeAsyncIterator()
        #expect(try await iterator.next() == Data("first".utf8))
        body.cancel()
    }

    @Test func everyChunkArrivesInOrder() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let chunks = (0..<50).map { Data("chunk \($0);".utf8) }
        server.route("/chunks") { _ in .streamed(chunks, pause: .milliseconds(1)) }
        let (body, _) = try await transport.stream(request(server, "/chunks"), context: context)
        #expect(try await body.collect() == chunks.reduce(Data(), +))
    }

    @Test func aLargeBodyStreamsThroughTheBoundedBuffer() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let count = 8 << 20
        server.route("/big") { _ in .generated(count: count) }
        let (body, response) = try await transport.stream(request(server, "/big"), context: context)
        #expect(response.expectedContentLength == Int64(count))
        var received = 0
        var mismatch = false
        for try await chunk in body {
            for (offset, byte) in chunk.enumerated() where byte != UInt8(truncatingIfNeeded: received + offset) {
                mismatch = true
            }
            received += chunk.count
            // A slow reader, so the buffer fills and the task is suspended and resumed.
            if received % (1 << 20) < chunk.count { try await Task.sleep(nanoseconds: 20_000_000) }
        }
        #expect(received == count)
        #expect(!mismatch)
    }

    @Test func cancellingTheReaderStopsTheTransferAtOnce() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/forever") { _ in .streamed([Data("x".utf8)], then: .stall) }
        let (body, _) = try await transport.stream(request(server, "/forever"), context: context)
        let reader = OwnThread.task {
            var count = 0
            for try await chunk in body { count += chunk.count }
            return count
        }
        try await Task.sleep(nanoseconds: 50_000_000)
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
    }

    @Test func cancellingBeforeTheHeadStopsTheRequest() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let task = OwnThread.task { [transport, context] in
            try await transport.stream(URLRequest(url: server.url("/delay/600000")), context: context)
        }
        try await waitForRequests(1, on: server)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func aServerThatStallsMidStreamHitsTheIdleTimeout() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/stall") { _ in .streamed([Data("data: 1\n\n".utf8)], then: .stall) }
        let (body, _) = try await transport.stream(
            request(server, "/stall", timeout: 8 * TestTiming.scale), context: context)
        var iterator = body.makeAsyncIterator()
        #expect(try await iterator.next() == Data("data: 1\n\n".utf8))
        let error = await #expect(throws: URLError.self) { _ = try await iterator.next() }
        #expect(error?.code == .timedOut)
    }

    @Test func slowButSteadyDataKeepsTheStreamAlive() async throws {
        let server = try TestServer()
        defer { server.stop() }
        // 20 chunks 500 ms apart: 10 s in all, longer than the 8 s idle timeout (generous, so a
        // loaded machine's late first byte is not taken for a stall).
        let chunks = (0..<20).map { Data("\($0 % 10)".utf8) }
        server.route("/steady") { _ in .streamed(chunks, pause: .milliseconds(500)) }
        let (body, _) = try await transport.stream(
            request(server, "/steady", timeout: 8 * TestTiming.scale), context: context)
        #expect(try await body.collect() == Data("01234567890123456789".utf8))
    }

    @Test func aConnectionDroppedMidStreamEndsWithAnError() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/drop") { _ in .streamed([Data("data: 1\n\n".utf8)], then: .drop) }
        let (body, _) = try await transport.stream(request(server, "/drop"), context: context)
        let error = await #expect(throws: URLError.self) { _ = try await body.collect() }
        #expect(error?.code == .networkConnectionLost)
    }

    @Test func aBodyShorterThanItsContentLengthEndsWithAnError() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let (body, _) = try await transport.stream(request(server, "/close-mid-body"), context: context)
        let error = await #expect(throws: URLError.self) { _ = try await body.collect() }
        #expect(error?.code == .networkConnectionLost)
    }

    @Test func anErrorStatusComesWithItsBody() async throws {
        let server = try TestServer()
        defer { server.stop() }
        for status in [401, 404, 503] {
            let (body, response) = try await transport.stream(request(server, "/status/\(status)"), context: context)
            #expect(response.statusCode == status)
            let error = try JSONDecoder().decode(APIError.self, from: try await body.collect())
            #expect(error.code == status)
        }
    }

    @Test func redirectsAreFollowed() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let (body, response) = try await transport.stream(request(server, "/redirect-chain/3"), context: context)
        #expect(response.statusCode == 200)
        #expect(try JSONDecoder().decode(Echo.self, from: try await body.collect()).path == "/redirect-chain/0")
    }

    @Test func aBodyKeptOnARedirectThatKeepsItsMethod() async throws {
        let server = try TestServer()
        defer { server.stop() }
        var request = request(server, "/redirect?to=/echo&status=307")
        request.httpMethod = "POST"
        request.httpBody = Data("payload".utf8)
        let (body, response) = try await transport.stream(request, context: context)
        #expect(response.statusCode == 200)
        let echo = try JSONDecoder().decode(Echo.self, from: try await body.collect())
        #expect(echo.method == "POST")
        #expect(echo.body == "payload")
    }

    @Test func aRefusedConnectionFailsBeforeTheHead() async throws {
        let server = try TestServer()
        let url = server.url("/echo")
        server.stop()
        await #expect(throws: URLError.self) {
            _ = try await transport.stream(URLRequest(url: url), context: context)
        }
    }

    @Test func theDefaultImplementationHandsOverTheBufferedBody() async throws {
        struct Buffered: HTTPTransport {
            func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
                (
                    Data("whole".utf8),
                    HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil, headerFields: nil)!
                )
            }
        }
        let (body, response) = try await Buffered().stream(
            URLRequest(url: URL(string: "https://x.test")!), context: context)
        #expect(response.statusCode == 200)
        #expect(try await body.collect() == Data("whole".utf8))
    }
}
