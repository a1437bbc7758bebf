import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Text messages on a path of the loopback test server.
struct LoopbackText: WebSocketEndpoint {
    typealias Server = MiddlewareTestServer
    typealias Response = Void
    typealias Outgoing = String
    typealias Incoming = String
    static let definition: Definition<LoopbackText> = Definition(path: "ws")
}

/// Bytes on the same path.
struct LoopbackBytes: WebSocketEndpoint {
    typealias Server = MiddlewareTestServer
    typealias Response = Void
    typealias Outgoing = Data
    typealias Incoming = Data
    static let definition: Definition<LoopbackBytes> = Definition(path: "ws")
}

/// The test server's WebSocket route (`TestServer.Response.webSocket(_:reply:)`), which the demo's
/// ticker runs on, and what ``URLSessionTransport`` does with a handshake.
@Suite struct WebSocketTestServerTests {
    private static func server() throws -> TestServer {
        let server = try TestServer()
        server.route("/ws") { request in
            .webSocket(request) { text in text == "twice" ? ["one", "two"] : ["echo: \(text)"] }
        }
        return server
    }

    #if canImport(FoundationNetworking)
        @Test func repliesPongsEchoesBytesAndAnswersTheClose() async throws {
            let server = try Self.server()
            defer { server.stop() }
            let client = EndpointClient(transport: try CurlTransport())
            let connection = try await client.webSocket(LoopbackText(), environment: server.baseURL)
            #expect(connection.response.statusCode == 101)
            let reader = Task {
                var received: [String] = []
                for try await text in connection { received.append(text) }
                return received
            }
            try await connection.send("hello")
            try await connection.send("twice")
            // The pong is read by the reader; it comes after the replies above, in order.
            try await connection.ping(timeout: TestTiming.giveUp)
            try connection.close(code: .init(rawValue: 4000))
            #expect(try await reader.value == ["echo: hello", "one", "two"])
            #expect(connection.closure?.code.rawValue == 4000)

            let bytes = try await client.webSocket(LoopbackBytes(), environment: server.baseURL)
            var iterator = bytes.makeAsyncIterator()
            let payload = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0) })
            try await bytes.send(payload)
            #expect(try await iterator.next() == payload)
            try bytes.close()
            #expect(try await iterator.next() == nil)
        }
    #endif

    #if canImport(FoundationNetworking)
        /// Open WebSockets take none of the host's request slots, and nothing else caps them: with
        /// libcurl's per-host connection cap set to the slots, the third WebSocket here (the 17th
        /// with the default 16) waited for ever. The time limit is the failure's only sign.
        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // .timeLimit
        @Test(.timeLimit(.minutes(5))) func moreWebSocketsToOneHostThanItsRequestSlotsOpen() async throws {
            let server = try Self.server()
            defer { server.stop() }
            server.route("/plain") { _ in .text("plain") }
            let client = EndpointClient(transport: try CurlTransport(maximumRequestsPerHost: 2))
            var connections: [WebSocketConnection<LoopbackText>] = []
            for _ in 0..<5 {
                connections.append(try await client.webSocket(LoopbackText(), environment: server.baseURL))
            }
            for (index, connection) in connections.enumerated() {
                var iterator = connection.makeAsyncIterator()
                try await connection.send("\(index)")
                #expect(try await iterator.next() == "echo: \(index)")
            }
            // Requests to the host still get its two slots while the five stay open.
            let plainURL = server.url("/plain").absoluteString
            let plain = try await client.response(for: Request<Data>.get(RequestTarget(plainURL)))
            #expect(plain == Data("plain".utf8))
            for connection in connections { try connection.close() }
        }

        /// A reader that falls behind pauses the socket (its bytes wait in the kernel, the server's
        /// writes stall) and resumes it as it catches up: 8 MiB sent at once, read one message at
        /// a time, arrive whole and in order; meanwhile a request through the same transport is
        /// answered, and a second WebSocket echoes.
        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // .timeLimit
        @Test(.timeLimit(.minutes(5))) func aReaderThatFallsBehindGetsEveryMessageInOrder() async throws {
            let server = try TestServer()
            defer { server.stop() }
            let piece = 32 * 1024
            server.route("/ws") { request in
                .webSocket(request) { text in
                    guard text == "flood" else { return [text] }
                    return (0..<256).map { index in String(index) + String(repeating: "x", count: piece) }
                }
            }
            server.route("/plain") { _ in .text("plain") }
            let client = EndpointClient(transport: try CurlTransport())
            let flood = try await client.webSocket(LoopbackText(), environment: server.baseURL)
            let other = try await client.webSocket(LoopbackText(), environment: server.baseURL)
            var messages = flood.makeAsyncIterator()
            try await flood.send("flood")
            var received = 0
            while received < 256, let text = try await messages.next() {
                #expect(text == String(received) + String(repeating: "x", count: piece))
                received += 1
                if received == 1 {
                    // While the rest waits: another WebSocket and a request go on.
                    var echoes = other.makeAsyncIterator()
                    try await other.send("beside")
                    #expect(try await echoes.next() == "beside")
                    let plain = Request<Data>.get(RequestTarget(server.url("/plain")))
                    #expect(try await client.response(for: plain) == Data("plain".utf8))
                }
                await Task.yield()
            }
            #expect(received == 256)
            try flood.close()
            try other.close()
        }

        /// libcurl counts an open WebSocket's connection among those its connection cache keeps
        /// (`CURLMOPT_MAXCONNECTS`, four per request slot here); beside more WebSockets than that,
        /// each request's connection was closed when it ended, and the next request connected again.
        @Test func requestsBesideManyOpenWebSocketsKeepTheirConnection() async throws {
            let server = try Self.server()
            defer { server.stop() }
            let client = EndpointClient(transport: try CurlTransport(maximumRequestsPerHost: 1))
            var connections: [WebSocketConnection<LoopbackText>] = []
            for _ in 0..<6 {
                connections.append(try await client.webSocket(LoopbackText(), environment: server.baseURL))
            }
            try await Loopback.$baseURL.withValue(server.baseURL) {
                _ = try await client.typedResponse(with: EchoEndpoint())
                let second = try await client.typedResponse(with: EchoEndpoint())
                #expect(second.metrics.attempts.first?.connection?.reusedConnection == true)
            }
            for connection in connections { try connection.close() }
        }
    #endif

    @Test func aRequestThatIsNotAHandshakeGets400() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let (_, response) = try await URLSession.shared.data(from: server.url("/ws"))
        #expect((response as? HTTPURLResponse)?.statusCode == 400)
    }

    #if canImport(FoundationNetworking)
        /// On Linux the URLSession transport sends the handshake with a URLSessionWebSocketTask,
        /// which FoundationNetworking's libcurl (no WebSocket support) fails with -1002: reported
        /// as `upgradeUnsupported`, naming why, before any byte is sent.
        @Test func urlSessionTransportOnLinuxSaysItCannotUpgrade() async throws {
            let server = try Self.server()
            defer { server.stop() }
            let client = EndpointClient(session: .shared)
            await #expect {
                _ = try await client.webSocket(LoopbackText(), environment: server.baseURL)
            } throws: { error in
                guard case LoopbackText.TaskError.streamError(let inner) = error,
                    case WebSocketError.upgradeUnsupported(let transport) = inner
                else { return false }
                return transport.contains("FoundationNetworking's libcurl has no WebSocket support")
            }
            #expect(server.requests.isEmpty)
        }
    #endif
}
