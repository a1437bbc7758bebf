import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(FoundationNetworking)
    /// `POST /upload`, its answer as received.
    private struct RawPostEndpoint: Endpoint {
        typealias Server = LoopbackServer
        typealias Response = Data
        typealias ErrorResponse = Data

        static let definition: Definition<RawPostEndpoint> = Definition(method: .post, path: "upload")
    }

    /// Sets the request's body: in memory, or as a stream, which cannot be read twice.
    private struct BodyMiddleware: Middleware {
        let body: Data
        var asStream = false

        func intercept(
            _ request: URLRequest, context: RequestContext,
            next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
        ) async throws -> (Data, HTTPURLResponse) {
            var request = request
            if asStream {
                request.httpBodyStream = InputStream(data: body)
                request.setValue("\(body.count)", forHTTPHeaderField: "Content-Length")
            } else {
                request.httpBody = body
            }
            return try await next(request)
        }
    }

    /// A kept-alive connection that the server closes as the next request arrives on it (a server
    /// restarting, or timing the idle connection out at that moment): libcurl sends the request again
    /// on a new connection, reading its body from the start.
    @Suite struct DroppedKeepAliveTests {
        private static let ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

        /// A `GET`, a `POST` with its body in memory and an upload (from a sequence, spooled to a
        /// file) arrive: libcurl sends each again on a new connection, reading the body from its
        /// start. Through Linux's URLSession the `POST` waits for its timeout instead: corelibs'
        /// rewind of a body in memory resets nothing, so the new connection gets the head and no
        /// body (raw `dataTask` does the same), a defect pinned here to be turned around once
        /// corelibs is fixed. Its uploads go on a session of their own, on a new connection.
        @Test(arguments: TestTransport.all)
        func aRequestIsSentAgainOnANewConnection(transport: TestTransport) async throws {
            let session = URLSession(configuration: .ephemeral)
            let timeout = TimeoutMiddleware(seconds: 2)
            for kind in ["GET", "POST", "upload"] {
                let server = try RawServer(keepAliveReplies: [Self.ok])
                defer { server.stop() }
                let own = Self.transport(transport, session: session)
                let client = EndpointClient(transport: own)
                // The first request leaves the connection kept alive, in the transport's pool.
                _ = try await send(RawRouteEndpoint("first"), at: server.url, through: client).get()
                let result: Result<Data, RawPostEndpoint.TaskError>
                switch kind {
                case "GET":
                    result = await send(
                        RawRouteEndpoint("upload"), at: server.url, through: client, middleware: [timeout])
                case "POST":
                    result = await send(
                        RawPostEndpoint(), at: server.url, through: client,
                        middleware: [timeout, BodyMiddleware(body: Data("hello".utf8))])
                default:
                    let chunks = AsyncStream<Data> { continuation in
                        continuation.yield(Data("hello".utf8))
                        continuation.finish()
                    }
                    let uploader = EndpointClient(transport: own, middleware: [timeout])
                    result = await Loopback.$baseURL.withValue(server.url) {
                        do throws(RawPostEndpoint.TaskError) {
                            return .success(try await uploader.upload(RawPostEndpoint(), from: chunks))
                        } catch {
                            return .failure(error)
                        }
                    }
                }
                if kind == "POST", transport.pinsLinuxURLSessionFailure(result, code: .timedOut) { continue }
                #expect(try result.get() == Data("ok".utf8), "\(kind)")
                if transport != .urlSession {
                    // The kept-alive connection read the request's head and closed; a new one answered it.
                    #expect(server.heads.value.filter { $0.contains(" /upload ") }.count == 2, "\(kind)")
                }
            }
        }

        /// A body stream (`httpBodyStream`, say from a middleware) cannot be read twice: the request
        /// fails with `.requestBodyStreamExhausted`, as on Apple platforms, not `.unknown`.
        @Test func aBodyStreamThatCannotBeReadAgainSaysSo() async throws {
            let server = try RawServer(keepAliveReplies: [Self.ok])
            defer { server.stop() }
            let client = EndpointClient(transport: Self.transport(.curl, session: .shared))
            _ = try await send(RawRouteEndpoint("first"), at: server.url, through: client).get()
            let result = await send(
                RawPostEndpoint(), at: server.url, through: client,
                middleware: [BodyMiddleware(body: Data("stream".utf8), asStream: true)])
            #expect(result.failure()?.urlErrorCode == .requestBodyStreamExhausted)
        }

        /// A transport of the test's own. In the libcurl transport the tests share, connections
        /// that other suites hand back to its cache can close the kept-alive one first (the cache
        /// keeps the most recently used), and the request then went out on a new connection with
        /// nothing to send again: both tests failed that way in full runs beside two busy loops.
        private static func transport(_ transport: TestTransport, session: URLSession) -> any HTTPTransport {
            transport.transport(session: session, maximumRequestsPerHost: CurlTransport.defaultMaximumRequestsPerHost)
        }
    }
#endif
