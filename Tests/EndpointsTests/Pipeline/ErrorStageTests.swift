import Endpoints
import EndpointsMocking
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An authentication method whose credentials are never there.
private struct MissingCredentials: AuthenticationMethod {
    func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest {
        throw .notAuthenticated
    }
}

/// `GET /echo` behind ``MissingCredentials``.
private struct LockedEcho: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Echo
    typealias ErrorResponse = APIError

    static let auth = MissingCredentials()
    static let definition: Definition<LockedEcho> = Definition(path: "echo")
}

private struct MiddlewareRefused: Error {}

/// A middleware that refuses every request.
private struct RefusingMiddleware: Middleware {
    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        throw MiddlewareRefused()
    }
}

private struct BodyBroke: Error {}

/// A transport whose response bodies send one chunk, then fail with an error of their own.
private struct BreakingBodyTransport: HTTPTransport {
    func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
        throw BodyBroke()
    }

    func stream(_ request: URLRequest, context: RequestContext) async throws -> (ResponseBody, HTTPURLResponse) {
        let body = ResponseBody(
            AsyncThrowingStream { continuation in
                continuation.yield(Data("first".utf8))
                continuation.finish(throwing: BodyBroke())
            })
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:])!
        return (body, response)
    }
}

/// `GET /ticks` as raw bytes, whose mocks must be `Data`: a `Tick` mock is the wrong kind.
private struct TickBytes: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Tick
    typealias ErrorResponse = APIError

    static let definition: Definition<TickBytes> = Definition(path: "ticks")
}

/// Each stage of the pipeline, made to fail for real, says so in ``EndpointTaskError/stage``,
/// with the case and the sentence that were there before.
@Suite struct ErrorStageTests {
    @Test func aPathValueThatCannotBeBuiltIsBuilding() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let error = try #require(await send(EchoEndpoint(".."), to: server).failure())
        guard case .endpointError(.invalidPathValue) = error else {
            Issue.record("expected .endpointError(.invalidPathValue), got \(error)")
            return
        }
        #expect(error.stage == .building)
        #expect(error.description.hasPrefix("The request could not be built"))
        #expect(server.requestCount == 0)
    }

    @Test func anAuthenticationMethodThatThrowsIsAuthentication() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let error = try #require(await send(LockedEcho(), to: server).failure())
        guard case .authenticationError(.notAuthenticated) = error else {
            Issue.record("expected .authenticationError(.notAuthenticated), got \(error)")
            return
        }
        #expect(error.stage == .authentication)
        #expect(error.description.hasPrefix("Authentication failed"))
        #expect(server.requestCount == 0)
    }

    @Test func aMiddlewareThatThrowsIsMiddleware() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let error = try #require(
            await send(EchoEndpoint(), to: server, middleware: [RefusingMiddleware()]).failure())
        guard case .middlewareError(let underlying) = error else {
            Issue.record("expected .middlewareError, got \(error)")
            return
        }
        #expect(underlying is MiddlewareRefused)
        #expect(error.stage == .middleware)
        #expect(error.description.hasPrefix("A middleware failed"))
    }

    @Test func aClosedPortIsTransport() async throws {
        let closed = try ClosedPort()
        defer { closed.close() }
        let error = try #require(await send(EchoEndpoint(), at: closed.baseURL).failure())
        #expect(error.urlErrorCode == .cannotConnectToHost)
        #expect(error.stage == .transport)
        #expect(EchoEndpoint.TaskError.internetConnectionOffline.stage == .transport)
    }

    @Test func aRefusalWithADecodableBodyIsValidation() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/missing") { _ in .json(raw: #"{"code": 404, "message": "no such user"}"#, status: 404) }
        server.route("/broken") { _ in .text("<html>bad gateway</html>", status: 502) }
        let error = try #require(await send(EchoEndpoint("missing"), to: server).failure())
        guard case .errorResponse(_, let body) = error else {
            Issue.record("expected .errorResponse, got \(error)")
            return
        }
        #expect(body == APIError(code: 404, message: "no such user"))
        #expect(error.stage == .validation)
        let undecodable = try #require(await send(EchoEndpoint("broken"), to: server).failure())
        #expect(undecodable.stage == .validation)
    }

    @Test func aSuccessThatDoesNotDecodeIsDecoding() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let error = try #require(await send(EchoEndpoint("malformed-json"), to: server).failure())
        guard case .responseParseError = error else {
            Issue.record("expected .responseParseError, got \(error)")
            return
        }
        #expect(error.stage == .decoding)
        #expect(error.description.contains("body did not decode"))
    }

    @Test func aStreamedValueThatDoesNotDecodeIsStream() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/bad") { _ in .streamed([Data("{\"n\":1}\n{\"n\":\"x\"}\n".utf8)]) }
        try await Loopback.$baseURL.withValue(server.baseURL) {
            var iterator = try await URLSession.shared.bytes(for: TickStream("bad")).lines.makeAsyncIterator()
            #expect(try await iterator.next()?.n == 1)
            let error = await #expect(throws: TickStream.TaskError.self) { _ = try await iterator.next() }
            // Still the case code matched on before, with the value's bytes.
            guard case .responseParseError(_, let data, _) = error else {
                Issue.record("expected .responseParseError, got \(String(describing: error))")
                return
            }
            #expect(data == Data(#"{"n":"x"}"#.utf8))
            #expect(error?.stage == .stream)
            #expect(error?.description.contains("value of the stream did not decode") == true)
        }
    }

    @Test func aBodyThatFailsMidwayIsStream() async throws {
        let client = EndpointClient(transport: BreakingBodyTransport())
        let stream = try await client.bytes(for: BytesEndpoint(count: 10))
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == Data("first".utf8))
        let error = await #expect(throws: BytesEndpoint.TaskError.self) { _ = try await iterator.next() }
        guard case .streamError(let underlying) = error else {
            Issue.record("expected .streamError, got \(String(describing: error))")
            return
        }
        #expect(underlying is BodyBroke)
        #expect(error?.stage == .stream)
        #expect(error?.description.hasPrefix("The stream failed") == true)
    }

    @Test func aConnectionLostMidStreamIsTransport() async throws {
        let server = try TestServer()
        defer { server.stop() }
        try await Loopback.$baseURL.withValue(server.baseURL) {
            let stream = try await URLSession.shared.bytes(for: EchoEndpoint("close-mid-body"))
            let error = await #expect(throws: EchoEndpoint.TaskError.self) {
                for try await _ in stream {}
            }
            #expect(error?.urlErrorCode == .networkConnectionLost, "got \(String(describing: error))")
            #expect(error?.stage == .transport)
        }
    }

    @Test func aMockOfTheWrongKindForAByteStreamIsStream() async throws {
        // The stream's adapters decide what a mock stands for (`.lines` takes the value itself), so
        // the raw bytes refuse a mock that is not `Data` when read.
        let error = await withMock(TickBytes.self, action: .return(Tick(n: 1, text: nil))) {
            do throws(TickBytes.TaskError) {
                for try await _ in try await URLSession.shared.bytes(for: TickBytes()) {}
                Issue.record("expected the mock to be refused")
                return TickBytes.TaskError?.none
            } catch {
                return error
            }
        }
        guard case .streamError = error else {
            Issue.record("expected .streamError, got \(String(describing: error))")
            return
        }
        #expect(error?.stage == .stream)
    }

    @Test func aPageLinkToAnotherOriginIsPageLink() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/items") { _ in
            var response = TestServer.Response.json([1])
            response.headers.append(("Link", #"<https://elsewhere.example/items?page=2&key=secret>; rel="next""#))
            return response
        }
        try await Loopback.$baseURL.withValue(server.baseURL) { () async throws in
            var iterator = URLSession.shared.pages(for: LinkedItems()).makeAsyncIterator()
            #expect(try await iterator.next() == [1])
            let error = await #expect(throws: LinkedItems.TaskError.self) { _ = try await iterator.next() }
            #expect(error?.stage == .pageLink)
            #expect(error?.description.hasPrefix("The next page was not fetched") == true)
            #expect(error?.description.contains("secret") == false)
        }
    }

    @Test func cancellingIsCancellation() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let task = Task { await send(DelayEndpoint(milliseconds: 60_000), to: server) }
        try await waitForRequests(1, on: server)
        task.cancel()
        let error = try #require(await task.value.failure())
        #expect(error.isCancelled)
        #expect(error.stage == .cancellation)
    }

    @Test func errorsOfUnknownKindStillMapAsBefore() {
        struct Unknown: Error {}
        // `init(_:)` keeps its mapping: what it cannot place is a middleware's or a transport's own.
        #expect(EchoEndpoint.TaskError(Unknown()).stage == .middleware)
        #expect(EchoEndpoint.TaskError(URLError(.timedOut)).stage == .transport)
        #expect(EchoEndpoint.TaskError(CancellationError()).stage == .cancellation)
        #expect(EchoEndpoint.TaskError(EndpointError.conflictingBody).stage == .building)
    }

    /// A stage prints as its name without a description of its own: a metrics label reads
    /// `"\(error.stage)"`.
    @Test func aStagePrintsAsItsName() {
        #expect("\(RequestStage.pageLink)" == "pageLink")
        #expect(String(describing: RequestStage.transport) == "transport")
        for stage in RequestStage.allCases {
            #expect("\(stage)" == stage.rawValue)
        }
        let error = EchoEndpoint.TaskError(URLError(.timedOut))
        #expect("request.failed.\(error.stage)" == "request.failed.transport")
    }
}
