import Endpoints
import EndpointsMocking
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `GET /delay/{milliseconds}` with a half-second timeout declared in the definition.
struct HalfSecondEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Echo
    struct PathComponents: Sendable { let milliseconds: Int }
    static let definition: Definition<HalfSecondEndpoint> = Definition(
        path: "delay/\(path: \.milliseconds)", timeout: 0.5)
    let pathComponents: PathComponents
}

/// `GET /{route}` that accepts `304 Not Modified` as well as 2xx.
struct ConditionalEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Data
    typealias ErrorResponse = APIError
    static let definition: Definition<ConditionalEndpoint> = Definition(
        path: "\(path: \.route)", acceptableStatusCodes: .successful + [304])
    let pathComponents: Route
    init(_ route: String) { pathComponents = Route(route: route) }
}

/// A transport that answers every request itself and records what it was sent.
final class RecordingTransport: HTTPTransport {
    let sent = TestLocked([URLRequest]())
    let answer: @Sendable (URLRequest) throws -> (Data, HTTPURLResponse)

    init(answer: @escaping @Sendable (URLRequest) throws -> (Data, HTTPURLResponse)) { self.answer = answer }

    static func json(_ text: String, status: Int = 200) -> RecordingTransport {
        RecordingTransport { request in
            let response = HTTPURLResponse(url: request.url!, statusCode: status, httpVersion: nil, headerFields: [:])!
            return (Data(text.utf8), response)
        }
    }

    func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
        sent.withLock { $0.append(request) }
        return try answer(request)
    }
}

/// A transport that fails with an `NSError`, as a `URLProtocol` reports one (Linux does not bridge it).
struct NSErrorTransport: HTTPTransport {
    let code: Int
    func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
        throw NSError(domain: NSURLErrorDomain, code: code)
    }
}

/// Sets a header whose value would split the request.
/// `POST /echo` with a body and the `Content-Length` it is given.
private struct DeclaredLengthPost: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Echo
    typealias Body = Data
    static let definition: Definition<DeclaredLengthPost> = Definition(
        method: .post, path: "echo", headers: [Header("Content-Length").value(path: \.length)])
    struct HeaderComponents { let length: String }
    let headerComponents: HeaderComponents
    let body = Data("hello".utf8)
    init(length: String) { headerComponents = HeaderComponents(length: length) }
}

struct InjectingMiddleware: Middleware {
    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        var request = request
        // Assigned as a dictionary: Linux's `setValue` drops such a value silently, Apple's keeps it.
        request.allHTTPHeaderFields = (request.allHTTPHeaderFields ?? [:]).merging(["X-Trace": "a\r\nX-Injected: 1"]) {
            $1
        }
        return try await next(request)
    }
}

private let echoJSON = #"{"method":"GET","path":"/echo","query":null,"headers":{},"body":null}"#

@Suite struct CompletionTaskTests {
    /// Resumes `task`'s twin made by `make` and collects every completion call.
    private func collect<E: Endpoint>(
        _ endpoint: E,
        server: TestServer,
        session: URLSession = .shared,
        _ drive: @escaping @Sendable (URLSessionDataTask) async throws -> Void
    ) async throws -> [Result<E.Response, E.TaskError>] where E.Auth == NoAuth {
        let results = TestLocked([Result<E.Response, E.TaskError>]())
        let first = AsyncStream<Void>.makeStream()
        let task = try Loopback.$baseURL.withValue(server.baseURL) {
            try session.endpointTask(with: endpoint) { result in
                results.withLock { $0.append(result) }
                first.continuation.yield()
            }
        }
        try await drive(task)
        for await _ in first.stream { break }
        // A second completion would come from a late delivery; give it every chance to show.
        try await Task.sleep(nanoseconds: 200_000_000)
        return results.withLock { $0 }
    }

    @Test func cancelBeforeResumeCompletesOnceAsCancelledAndSendsNothing() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let results = try await collect(EchoEndpoint(), server: server) { task in
            task.cancel()
            #expect(task.state == .canceling)
            task.resume()  // too late: a cancelled task never starts
        }
        #expect(results.count == 1)
        #expect(results.first.flatMap { try? $0.get() } == nil)
        #expect(results.first.map { if case .failure(.cancelled) = $0 { true } else { false } } == true)
        #expect(server.requestCount == 0)
    }

    @Test func cancelAfterResumeCompletesOnceAsCancelled() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let results = try await collect(DelayEndpoint(milliseconds: 600_000), server: server) { task in
            task.resume()
            try await waitForRequests(1, on: server)
            task.cancel()
        }
        #expect(results.count == 1)
        #expect(results.first.map { if case .failure(.cancelled) = $0 { true } else { false } } == true)
    }

    @Test func aRequestThatCannotBeBuiltThrowsAtCreation() throws {
        #expect(throws: EchoEndpoint.TaskError.self) {
            _ = try URLSession.shared.endpointTask(with: EchoEndpoint("..")) { _ in
                Issue.record("the completion must not be called")
            }
        }
    }

    @Test func theDeclaredFractionalTimeoutApplies() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let results = try await collect(
            HalfSecondEndpoint(pathComponents: .init(milliseconds: 600_000)), server: server
        ) {
            $0.resume()
        }
        #expect(results.count == 1)
        #expect(results.first.flatMap { try? $0.get() } == nil)
        if case .failure(let error) = results.first {
            #expect(error.urlErrorCode == .timedOut, "got \(error)")
        }
    }

    @Test func completionTasksShareThePerHostLimit() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let concurrency = TestLocked((now: 0, peak: 0))
        server.route("/slow") { _ in
            concurrency.withLock {
                $0.now += 1; $0.peak = max($0.peak, $0.now)
            }
            try? await Task.sleep(nanoseconds: 50_000_000)
            concurrency.withLock { $0.now -= 1 }
            return .json(raw: echoJSON)
        }
        let session = URLSession(configuration: .default)
        defer { session.finishTasksAndInvalidate() }
        let finished = AsyncStream<Void>.makeStream()
        let tasks = try Loopback.$baseURL.withValue(server.baseURL) {
            try (0..<12).map { _ in
                try session.endpointTask(with: EchoEndpoint("slow")) { _ in finished.continuation.yield() }
            }
        }
        tasks.forEach { $0.resume() }
        var count = 0
        for await _ in finished.stream {
            count += 1
            if count == 12 { break }
        }
        #expect(server.requestCount == 12)
        // A host that takes 50 ms: the pipeline lets twice the session's six connections queue in
        // URLSession, which holds its six: never more than six at the server.
        #expect(concurrency.withLock { $0.peak } <= 6)
        #expect(server.connectionCount <= 6)
    }

    @Test func completionTasksHonourACustomTransportAndMiddleware() async throws {
        let transport = RecordingTransport.json(echoJSON)
        let client = EndpointClient(transport: transport, middleware: [UserAgentMiddleware()])
        let result = await withCheckedContinuation { continuation in
            let task = try! client.endpointTask(with: EchoEndpoint()) { continuation.resume(returning: $0) }
            task.resume()
        }
        #expect((try? result.get())?.path == "/echo")
        #expect(transport.sent.withLock { $0.first?.value(forHTTPHeaderField: "User-Agent") } == "Core/1.0")
    }
}

/// Sets a User-Agent.
struct UserAgentMiddleware: Middleware {
    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        var request = request
        request.setValue("Core/1.0", forHTTPHeaderField: "User-Agent")
        return try await next(request)
    }
}

@Suite struct PipelineCoreTests {
    @Test func aClientSendsThroughItsTransportWithItsMiddleware() async throws {
        let transport = RecordingTransport.json(echoJSON)
        let client = EndpointClient(transport: transport, middleware: [UserAgentMiddleware()])
        let echo = try await client.response(with: EchoEndpoint())
        #expect(echo.path == "/echo")
        let typed = try await client.typedResponse(with: EchoEndpoint())
        #expect(typed.httpResponse.statusCode == 200)
        #expect(transport.sent.withLock { $0.count } == 2)
        #expect(transport.sent.withLock { $0.allSatisfy { $0.value(forHTTPHeaderField: "User-Agent") == "Core/1.0" } })
    }

    @Test func mocksAnswerBeforeAClientsTransport() async throws {
        let transport = RecordingTransport.json(echoJSON)
        let client = EndpointClient(transport: transport)
        let mocked = Echo(method: "MOCK", path: "/mocked", query: nil, headers: [:], body: nil)
        let echo = try await withMock(EchoEndpoint.self, action: .return(mocked)) {
            try await client.response(with: EchoEndpoint())
        }
        #expect(echo.method == "MOCK")
        #expect(transport.sent.withLock { $0.isEmpty })
    }

    @Test(arguments: [
        (NSURLErrorNotConnectedToInternet, "offline"), (NSURLErrorTimedOut, "timedOut"),
        (NSURLErrorCancelled, "cancelled"),
    ])
    func anNSErrorInTheURLDomainMapsLikeAURLError(code: Int, expected: String) async throws {
        let client = EndpointClient(transport: NSErrorTransport(code: code))
        await #expect {
            try await client.response(with: EchoEndpoint())
        } throws: { error in
            switch (error as? EchoEndpoint.TaskError, expected) {
            case (.internetConnectionOffline, "offline"), (.cancelled, "cancelled"): true
            case (.urlLoadError(let error), "timedOut"): error.code == .timedOut
            default: false
            }
        }
    }

    @Test func aDeclared304IsAResponseAndAnUndeclaredOneIsAnError() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/cached") { _ in .status(304) }
        let typed = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await URLSession.shared.typedResponse(with: ConditionalEndpoint("cached"))
        }
        #expect(typed.httpResponse.statusCode == 304)
        #expect(typed.value.isEmpty)
        let error = try #require(await send(EchoEndpoint("cached"), to: server).failure())
        #expect(error.statusCode == 304)
    }

    @Test func anErrorResponseKeepsItsRawBodyAndMethod() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/teapot") { _ in .json(raw: #"{"code":418,"message":"short and stout"}"#, status: 418) }
        let error = try #require(await send(EchoEndpoint("teapot"), to: server).failure())
        guard case .errorResponse(_, let body) = error else {
            Issue.record("expected .errorResponse, got \(error)")
            return
        }
        #expect(body.code == 418)
        let raw = try #require(error.responseData)
        #expect(String(decoding: raw, as: UTF8.self).contains("418"))
        #expect(error.httpResponse?.url?.path == "/teapot")
        #expect(error.localizedDescription == error.description)
    }

    @Test func aHeaderAMiddlewareSetIsValidatedBeforeAnythingIsSent() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let error = try #require(await send(EchoEndpoint(), to: server, middleware: [InjectingMiddleware()]).failure())
        #expect(error.description.contains("X-Trace"))
        guard case .endpointError(.invalidHeaderValue(let name)) = error else {
            Issue.record("expected .endpointError(.invalidHeaderValue), got \(error)")
            return
        }
        #expect(name == "X-Trace")
        #expect(server.requestCount == 0)
    }

    /// A `Content-Length` that is not the body's length is refused before anything is sent: a
    /// shorter one cut the body silently ("hel" of "hello") and a longer one hung until the
    /// timeout, through every transport. One that matches goes out.
    @Test(arguments: [-2, 40, 0], TestTransport.all)
    func aContentLengthThatIsNotTheBodysIsRefused(offset: Int, via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let size = try #require(try DeclaredLengthPost(length: "").urlRequest().httpBody?.count)
        let result = await send(DeclaredLengthPost(length: String(size + offset)), to: server, via: transport)
        guard offset != 0 else {
            #expect(try result.get().method == "POST")
            return
        }
        guard case .endpointError(.conflictingFraming(header: "Content-Length")) = result.failure() else {
            Issue.record("expected .conflictingFraming, got \(result)")
            return
        }
        #expect(server.requestCount == 0)
    }

    @Test func aHeaderTheServersRequestProcessorSetIsValidatedToo() async throws {
        let transport = RecordingTransport.json(echoJSON)
        let error = await #expect(throws: ProcessedEndpoint.TaskError.self) {
            try await EndpointClient(transport: transport).response(with: ProcessedEndpoint())
        }
        guard case .endpointError(.invalidHeaderValue(name: "X-Signature")) = error else {
            Issue.record("expected .invalidHeaderValue for X-Signature, got \(String(describing: error))")
            return
        }
        #expect(transport.sent.withLock { $0.isEmpty })
    }
}

/// A server whose request processor signs requests with a value that would split them.
struct SigningServer: ServerDefinition {
    var baseUrls: [TypicalEnvironments: URL] { [.production: URL(string: "https://api.example.com")!] }
    var requestProcessor: @Sendable (URLRequest) -> URLRequest {
        { request in
            var request = request
            request.allHTTPHeaderFields = (request.allHTTPHeaderFields ?? [:]).merging(["X-Signature": "sig\nX-Evil: 1"]
            ) {
                $1
            }
            return request
        }
    }
}

struct ProcessedEndpoint: Endpoint {
    typealias Server = SigningServer
    typealias Response = Echo
    static let definition: Definition<ProcessedEndpoint> = Definition(path: "echo")
}
