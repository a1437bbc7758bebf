#if canImport(FoundationNetworking)
    import Endpoints
    import EndpointsTestServer
    import Foundation
    import FoundationNetworking
    import Testing

    /// Text messages on the test server's `/ws`, which echoes each one.
    struct StressWebSocket: WebSocketEndpoint {
        struct Server: ServerDefinition {
            typealias Environments = URL
            var baseUrls: [URL: URL] { [:] }
            static var defaultEnvironment: URL { URL(string: "http://127.0.0.1:9")! }
            func baseURL(for environment: URL) -> URL? { environment }
        }
        typealias Response = Void
        typealias Outgoing = String
        typealias Incoming = String
        static let definition: Definition<StressWebSocket> = Definition(path: "ws")
    }

    /// WebSockets opened, used and ended many at a time through one libcurl transport, beside
    /// requests on it: the loop thread's socket set (sockets added and removed while others are
    /// ready, paused or touched, descriptors reused) under the sanitizer passes of CI.
    ///
    /// Each of 32 workers opens a WebSocket ten times in a row, does 20 echo round trips on it and
    /// ends it one of three ways: `close()`, a close right after a send whose echo is never read,
    /// or cancelling the task that reads it (1001). Meanwhile 400 GETs go through the same
    /// transport, 16 at a time. Every echo must come back in order and every request succeed;
    /// the time limit is the sign of a socket that was never serviced again.
    @Suite struct WebSocketStressTests {
        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // .timeLimit
        @Test(.timeLimit(.minutes(10))) func manyWebSocketsOpenedAndEndedBesideRequests() async throws {
            let server = try TestServer()
            defer { server.stop() }
            server.route("/ws") { request in .webSocket(request) { text in [text] } }
            server.route("/plain") { _ in .text("plain") }
            let client = EndpointClient(transport: try CurlTransport(maximumRequestsPerHost: 16))
            let base = server.baseURL
            let plain = Request<Data>.get(RequestTarget(server.url("/plain")))

            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<32 {
                    group.addTask {
                        for round in 0..<10 {
                            try await Self.useOneWebSocket(
                                client, base: base, name: "\(worker).\(round)", ending: (worker + round) % 3)
                        }
                    }
                }
                for lane in 0..<16 {
                    group.addTask {
                        for _ in 0..<25 {
                            let body = try await client.response(for: plain)
                            #expect(body == Data("plain".utf8), "lane \(lane)")
                        }
                    }
                }
                try await group.waitForAll()
            }
        }

        /// Opens a WebSocket, does 20 echo round trips, and ends it the way `ending` says.
        private static func useOneWebSocket(
            _ client: EndpointClient, base: URL, name: String, ending: Int
        ) async throws {
            let connection = try await client.webSocket(StressWebSocket(), environment: base)
            var messages = connection.makeAsyncIterator()
            for index in 0..<20 {
                try await connection.send("\(name) \(index)")
                let echo = try await messages.next()
                #expect(echo == "\(name) \(index)")
            }
            switch ending {
            case 0:
                try connection.close()
                // The server answers the close; the sequence then ends.
                while try await messages.next() != nil {}
            case 1:
                try await connection.send("\(name) unread")
                try connection.close()
            default:
                let reader = Task {
                    var messages = connection.makeAsyncIterator()
                    while try await messages.next() != nil {}
                }
                try await connection.send("\(name) last")
                reader.cancel()
                _ = await reader.result
            }
        }
    }
#endif
