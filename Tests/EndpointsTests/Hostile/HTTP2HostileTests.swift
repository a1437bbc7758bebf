import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// What an HTTP/2 server that breaks RFC 9113 sends the libcurl transport, over TLS with a real
    /// HTTP/2 stack on the other side (scripts/websocket-peers/http2_server.py, the `h2` package):
    /// a typed error for each, the streams a `GOAWAY` refused sent again, and a paused stream that
    /// holds back no other. Linux's URLSession runs on the same libcurl but cannot be told to trust
    /// the peer's throwaway CA, so it is not run here.
    @Suite(.webSocketPeers)
    struct HTTP2HostileTests {
        private let transport: CurlTransport

        init() throws {
            transport = try CurlTransport(tls: TLSTrust(certificateAuthorities: [try #require(WebSocketPeers.caFile)]))
        }

        private func url(_ path: String) throws -> URL {
            try #require(WebSocketPeers.url(WebSocketPeers.http2URL, path))
        }

        /// `GET path` as a ``Request``, for the whole pipeline.
        private func request(_ path: String) throws -> Request<Data> {
            .get(RequestTarget(try url(path).absoluteString))
        }

        /// Sends `GET path` (or `method`) through the transport: its body and response, or its error.
        private func send(
            _ path: String, method: String = "GET", body: Data? = nil, timeout: TimeInterval = 60,
            transport: CurlTransport? = nil
        ) async throws -> Result<(Data, HTTPURLResponse), URLError> {
            var request = URLRequest(url: try url(path), timeoutInterval: timeout)
            request.httpMethod = method
            request.httpBody = body
            do {
                return .success(
                    try await (transport ?? self.transport).send(request, context: RequestContext(endpointName: "H2")))
            } catch let error as URLError {
                return .failure(error)
            }
        }

        private func error(_ path: String, method: String = "GET", timeout: TimeInterval = 60) async throws -> URLError
        {
            let result = try await send(path, method: method, timeout: timeout)
            guard case .failure(let error) = result else {
                Issue.record("\(path) answered \(try result.get().1.statusCode)")
                throw CancellationError()
            }
            return error
        }

        /// How many requests carrying `?id=id` the server saw.
        private func requests(withID id: String) async throws -> Int {
            struct Report: Decodable { let requests: Int }
            return try JSONDecoder().decode(Report.self, from: try await send("report?id=\(id)").get().0).requests
        }

        @Test(arguments: ["ok", "trailers", "early-hints"])
        func aWellFormedAnswerIsReadOverHTTP2(_ path: String) async throws {
            let client = EndpointClient(transport: transport)
            let result = try await client.typedResponse(for: try request(path))
            #expect(result.value == Data(#"{"value":"x"}"#.utf8))
            #expect(result.metrics.attempts.last?.connection?.networkProtocol == "h2")
        }

        /// RFC 9113 §6.8: a stream above a `GOAWAY`'s last stream was never processed. libcurl 7.88
        /// fails it ("Error in the HTTP2 framing layer"); the transport sends an idempotent request
        /// once more, on another connection, as browsers and Apple's URLSession do.
        @Test func aGETAGoawayRefusedIsSentAgainOnAnotherConnection() async throws {
            let client = EndpointClient(transport: transport)
            _ = try await send("ok")  // the connection the GOAWAY will close
            let id = UUID().uuidString
            let result = try await client.typedResponse(for: try request("goaway-first?id=\(id)"))
            #expect(result.value == Data(#"{"value":"x"}"#.utf8))
            #expect(result.metrics.attempts.last?.connection?.reusedConnection == false)
            #expect(try await requests(withID: id) == 2)
        }

        /// A POST is not sent again: the transport cannot tell a `GOAWAY` from a connection that
        /// died while the server worked on it.
        @Test func aPOSTAGoawayRefusedFailsAndIsNotSentAgain() async throws {
            _ = try await send("ok")
            let id = UUID().uuidString
            let error = try await error("goaway-first?id=\(id)", method: "POST")
            #expect(error.code == .networkConnectionLost, "got \(error)")
            #expect(try await requests(withID: id) == 1)
        }

        /// A stream the server resets before its head is its refusal: not sent again, whatever the method.
        @Test(arguments: [2, 8, 11])
        func aStreamResetBeforeItsHeadFailsAndIsNotSentAgain(code: Int) async throws {
            _ = try await send("ok")
            let id = UUID().uuidString
            let error = try await error("reset/\(code)?id=\(id)")
            #expect(error.code == .networkConnectionLost, "got \(error)")
            #expect(try await requests(withID: id) == 1)
        }

        /// A body reset part-way, or longer or shorter than its `Content-Length`, is cut off.
        @Test(arguments: [
            "reset-mid-body/2", "reset-mid-body/2?length=1", "reset-mid-body/0?length=1", "length/short",
            "length/long",
        ])
        func aBodyCutOffFails(_ path: String) async throws {
            let error = try await error(path)
            #expect(error.code == .networkConnectionLost, "got \(error)")
        }

        /// Pinned, to turn around when libcurl does: a body without a `Content-Length` that the
        /// server ends with RST_STREAM(NO_ERROR) instead of END_STREAM reads as complete through
        /// libcurl 7.88 and its nghttp2 (curl/curl#6015), and so through Linux's URLSession; with a
        /// length it fails (``aBodyCutOffFails(_:)``), and so does a compressed one
        /// (``aCompressedBodyResetWithNoErrorIsRefused()``). Transports explains.
        @Test func libcurlReadsABodyResetWithNoErrorAndNoLengthAsComplete() async throws {
            let (data, response) = try await send("reset-mid-body/0").get()
            #expect(response.statusCode == 200)
            #expect(data.count == 1000)
        }

        /// The same reset under a compressed body is refused all the same: the transport sees its
        /// gzip stream end nowhere (a body that ends inside its coding is cut short, whatever its
        /// framing said), as Linux's URLSession does not.
        @Test func aCompressedBodyResetWithNoErrorIsRefused() async throws {
            let error = try #require(try await send("reset-mid-body/0?gzip=1").failure())
            #expect(error.code == .cannotDecodeContentData, "got \(error)")
        }

        /// A head nghttp2 refuses is malformed, as the same head over HTTP/1.1 is, and no field of it
        /// reaches the caller.
        @Test(arguments: [
            "connection-header", "transfer-encoding", "crlf-value", "lf-value", "nul-value", "uppercase-name",
            "no-status", "status-2000", "two-statuses",
        ])
        func aMalformedHeadIsRefused(_ kind: String) async throws {
            let error = try await error("malformed/\(kind)")
            #expect(error.code == .badServerResponse, "got \(error)")
        }

        /// Past the transport's 64 KB, and past the 128 KB libcurl keeps of an HTTP/2 head.
        @Test(arguments: [100, 200])
        func anOversizedHeadIsRefused(kib: Int) async throws {
            let error = try await error("headers/\(kib)")
            #expect(error.code == .badServerResponse, "got \(error)")
        }

        /// The idle timeout holds on an HTTP/2 stream, before its head and inside its body.
        @Test(arguments: ["stall/head", "stall/body"])
        func aStalledStreamTimesOut(_ path: String) async throws {
            let error = try await error(path, timeout: 0.5)
            #expect(error.code == .timedOut, "got \(error)")
        }

        /// RST_STREAM(HTTP_1_1_REQUIRED): libcurl asks again over HTTP/1.1.
        @Test func aStreamThatRequiresHTTP11IsAskedAgainOverIt() async throws {
            let (data, _) = try await send("http11-required").get()
            #expect(data == Data(#"{"value":"h1"}"#.utf8))
        }

        /// A stream paused for its slow reader holds back no other stream of its connection: libcurl
        /// closes the paused stream's flow-control window, not the connection's.
        @Test func aPausedStreamHoldsBackNoOtherOnItsConnection() async throws {
            let (body, response) = try await transport.stream(
                URLRequest(url: try url("big?bytes=\(64 << 20)")), context: RequestContext(endpointName: "H2"))
            #expect(response.statusCode == 200)
            var iterator = body.makeAsyncIterator()
            _ = try await iterator.next()  // then the reader stops: the transfer pauses
            let client = EndpointClient(transport: transport)
            let result = try await client.typedResponse(for: try request("ok"))
            #expect(result.value == Data(#"{"value":"x"}"#.utf8))
            #expect(result.metrics.attempts.last?.connection?.reusedConnection == true)
        }
    }
#endif
