import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// What the libcurl transport measures of each attempt: the connection timings Linux's URLSession
    /// never delivers, and the head apart from the body.
    @Suite struct CurlMetricsTests {
        @Test func eachAttemptCarriesLibcurlsConnectionTimings() async throws {
            let server = try TestServer()
            defer { server.stop() }
            let client = EndpointClient(transport: try CurlTransport())
            try await Loopback.$baseURL.withValue(server.baseURL) {
                let first = try await client.typedResponse(with: EchoEndpoint())
                let connection = try #require(first.metrics.attempts.first?.connection)
                #expect(!connection.reusedConnection)
                #expect(connection.networkProtocol == "http/1.1")
                #expect(connection.remoteAddress == "127.0.0.1:\(server.port)")
                #expect(connection.connect != nil)
                #expect(connection.secureConnection == nil)
                let firstByte = try #require(connection.firstByte)
                let total = try #require(connection.total)
                #expect(firstByte > 0 && firstByte <= total)
                #expect((connection.bytesSent ?? 0) > 0)
                #expect((connection.bytesReceived ?? 0) > 0)

                let second = try await client.typedResponse(with: EchoEndpoint())
                let reused = try #require(second.metrics.attempts.first?.connection)
                #expect(reused.reusedConnection)
                #expect(reused.connect == nil)
            }
        }

        /// Each redirect hop is an attempt with the timings of its own exchange.
        @Test func redirectHopsAreMeasuredEach() async throws {
            let server = try TestServer()
            defer { server.stop() }
            server.route("/hop") { _ in TestServer.Response(status: 302, headers: [("Location", "/echo")], body: Data())
            }
            let client = EndpointClient(transport: try CurlTransport())
            let result = try await Loopback.$baseURL.withValue(server.baseURL) {
                try await client.typedResponse(with: EchoEndpoint("hop"))
            }
            let attempts = result.metrics.attempts
            #expect(attempts.map(\.reason) == [.initial, .redirect])
            #expect(attempts.map(\.statusCode) == [302, 200])
            #expect(attempts.allSatisfy { $0.connection?.firstByte != nil })
        }

        /// The head is timed when it arrives, the body apart, for a buffered call too: a server that
        /// waits between them shows it in `receivingBody`, not in `waitingForHead`.
        @Test func theHeadIsTimedApartFromTheBody() async throws {
            let server = try TestServer()
            defer { server.stop() }
            server.route("/slow-body") { _ in
                .streamed([Data("a".utf8), Data("b".utf8)], pause: .milliseconds(300))
            }
            let client = EndpointClient(transport: try CurlTransport())
            let result = try await Loopback.$baseURL.withValue(server.baseURL) {
                try await client.typedResponse(with: BytesRoute("slow-body"))
            }
            let attempt = try #require(result.metrics.attempts.first)
            let body = try #require(attempt.receivingBody)
            #expect(body >= 0.25)
            #expect(result.value == Data("ab".utf8))
        }
    }

    /// `GET /{route}`, returned raw.
    private struct BytesRoute: Endpoint {
        typealias Server = LoopbackServer
        typealias Response = Data
        static let definition: Definition<BytesRoute> = Definition(path: "\(path: \.route)")
        let pathComponents: Route
        init(_ route: String) { pathComponents = Route(route: route) }
    }
#endif
