import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `endpointTask(with:environment:completion:)` hands back a task that does nothing until resumed,
/// then completes once with what the async API would have returned or thrown.
@Suite struct PipelineCompletionTests {
    /// Creates the task for `endpoint` against `server`, resumes it and waits for its completion.
    ///
    /// The continuation traps if the completion handler is called twice.
    private func complete<E: Endpoint>(
        _ endpoint: E,
        on server: TestServer,
        check: (URLSessionDataTask) -> Void = { _ in }
    ) async -> Result<E.Response, E.TaskError> where E.Auth == NoAuth {
        await complete(endpoint, at: server.baseURL, check: check)
    }

    private func complete<E: Endpoint>(
        _ endpoint: E,
        at baseURL: URL,
        check: (URLSessionDataTask) -> Void = { _ in }
    ) async -> Result<E.Response, E.TaskError> where E.Auth == NoAuth {
        await withCheckedContinuation { continuation in
            let task = Loopback.$baseURL.withValue(baseURL) {
                try! URLSession.shared.endpointTask(with: endpoint) { result in continuation.resume(returning: result) }
            }
            check(task)
            task.resume()
        }
    }

    @Test func taskIsNotResumedUntilAsked() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let task = Loopback.$baseURL.withValue(server.baseURL) {
            try! URLSession.shared.endpointTask(with: EchoEndpoint()) { _ in }
        }
        #expect(task.state == .suspended)
        // A later request that is resumed makes the round trip; the suspended one must not have gone out.
        _ = try await complete(DelayEndpoint(milliseconds: 1), on: server).get()
        #expect(server.requests.map(\.rawPath) == ["/delay/1"])
        #expect(task.state == .suspended)
        task.cancel()
    }

    @Test func decodesLikeTheAsyncAPI() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let echo = try await complete(EchoEndpoint(), on: server) { #expect($0.state == .suspended) }.get()
        #expect(echo.method == "GET")
        #expect(echo.path == "/echo")
        #expect(server.requestCount == 1)
    }

    @Test func voidAndDataResponses() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/things") { _ in .status(204) }
        try await complete(DeleteEndpoint("things"), on: server).get()
        let data = try await complete(BytesEndpoint(count: 300), on: server).get()
        #expect(data == Data((0..<300).map { UInt8($0 % 256) }))
    }

    @Test func errorResponseMatchesTheAsyncAPI() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let viaCompletion = try #require(await complete(EchoEndpoint("status"), on: server).failure())
        let viaAsync = try #require(await send(EchoEndpoint("status"), to: server).failure())
        #expect(viaCompletion.statusCode == 404)
        #expect(viaCompletion.description == viaAsync.description)
        guard case .errorResponse(_, let body) = viaCompletion else {
            Issue.record("expected .errorResponse, got \(viaCompletion)")
            return
        }
        #expect(body == APIError(code: 404, message: "not found"))
    }

    @Test func parseErrorsMatchTheAsyncAPI() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let error = try #require(await complete(EchoEndpoint("malformed-json"), on: server).failure())
        guard case .responseParseError(_, let data, _) = error else {
            Issue.record("expected .responseParseError, got \(error)")
            return
        }
        #expect(String(decoding: data, as: UTF8.self) == #"{"broken": "#)
    }

    @Test func refusedConnectionIsALoadError() async throws {
        let closed = try ClosedPort()
        defer { closed.close() }
        let error = try #require(await complete(EchoEndpoint(), at: closed.baseURL).failure())
        #expect(error.urlErrorCode == .cannotConnectToHost, "got \(error)")
    }

    @Test func cancellingTheTaskCompletesAsCancelled() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let result = await withCheckedContinuation { continuation in
            let task = Loopback.$baseURL.withValue(server.baseURL) {
                try! URLSession.shared.endpointTask(with: DelayEndpoint(milliseconds: 600_000)) {
                    continuation.resume(returning: $0)
                }
            }
            task.resume()
            Task {
                try await waitForRequests(1, on: server)
                task.cancel()
            }
        }
        let error = try #require(result.failure())
        #expect(error.isCancelled, "got \(error)")
    }

    @Test func redirectsFollowThePolicy() async throws {
        let origin = try TestServer()
        let other = try TestServer()
        defer {
            origin.stop()
            other.stop()
        }
        let target = other.url("/echo/final")
        origin.route("/start") { _ in TestServer.Response(status: 307, headers: [("Location", target.absoluteString)]) }
        let echo = try await complete(PostEndpoint("start"), on: origin).get()
        #expect(echo.method == "POST")
        #expect(echo.body == #"{"name":"Ada"}"#)
        #expect(other.requests.last?.method == "POST")
    }

    @Test func unauthorizedWithAChallengeIsTheResponse() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/protected") { _ in
            TestServer.Response(status: 401, headers: [("WWW-Authenticate", #"Basic realm="test""#)])
        }
        let error = try #require(await complete(EchoEndpoint("protected"), on: server).failure())
        #expect(server.requestCount == 1)
        #expect(error.statusCode == 401, "got \(error)")
    }

    @Test func tooManyRedirectsIsALoadError() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/loop") { _ in TestServer.Response(status: 302, headers: [("Location", "/loop")]) }
        let error = try #require(await complete(EchoEndpoint("loop"), on: server).failure())
        #expect(error.urlErrorCode == .httpTooManyRedirects, "got \(error)")
    }
}
