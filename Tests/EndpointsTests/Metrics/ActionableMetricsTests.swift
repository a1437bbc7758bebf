import Endpoints
import EndpointsMocking
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Metrics users can act on (issue 37), over loopback: what a failed attempt says, the head apart
/// from the body, the trace id, and mocked calls.
@Suite struct ActionableMetricsTests {
    /// A body that starts 300 ms after its head: the time between them is the body's.
    private static let slowBodyBytes = Data(#"{"method":"GET","path":"/slow","headers":{}}"#.utf8)
    private static let slowBody = TestServer.Response.streamed(
        [slowBodyBytes], pause: .milliseconds(300), contentType: "application/json")

    /// A buffered call whose transport sees the head before the body (through URLSession on
    /// Linux, a request with a fractional timeout goes through the streaming task) times them apart.
    @Test(arguments: TestTransport.all)
    func aBufferedCallTimesTheHeadApartFromTheBody(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/slow") { _ in Self.slowBody }
        let log = EventLog()
        let client = transport.client(session: makeMiddlewareTestSession(), eventListener: log)
        let result = try await client.typedResponse(
            for: Request<Echo>.get(server.url("/slow").absoluteString).timeout(30.5))
        let attempt = try #require(result.metrics.attempts.first)
        let head = try #require(attempt.waitingForHead)
        let body = try #require(attempt.receivingBody, "the body is timed apart: \(result.metrics)")
        // The body is read after the head was reported, so its time is never 0; the two together
        // span the server's 300 ms pause between the head and the body, whatever the load.
        #expect(body > 0, "\(result.metrics)")
        #expect(head + body >= 0.3, "\(result.metrics)")
        await log.waitForEnds(1)
        let times = Dictionary(log.events.map { ($0.name, $0.time) }, uniquingKeysWith: { first, _ in first })
        let headEvent = try #require(times["headReceived"])
        let bodyEvent = try #require(times["bodyFinished"])
        #expect(headEvent < bodyEvent, "headReceived is reported when the head arrives")
        #expect(abs(bodyEvent - headEvent - body) < 1e-6)
    }

    #if canImport(FoundationNetworking)
        /// A buffered call through URLSession on Linux: corelibs tells a completion handler's task
        /// of the head only with the body, so the head's time includes the body, and the body has
        /// no time of its own (`nil`, not 0).
        @Test func aBufferedCallThroughCorelibsCountsTheBodyInTheHead() async throws {
            let server = try TestServer()
            defer { server.stop() }
            server.route("/slow") { _ in Self.slowBody }
            let client = EndpointClient(session: makeMiddlewareTestSession())
            let result = try await client.typedResponse(for: Request<Echo>.get(server.url("/slow").absoluteString))
            let attempt = try #require(result.metrics.attempts.first)
            #expect(attempt.receivingBody == nil)
            #expect(try #require(attempt.waitingForHead) >= 0.3, "it ends with the body, 300 ms after the head")
            #expect(attempt.bytesReceived == Self.slowBodyBytes.count)
        }
    #endif

    /// Each attempt that failed says why, without the URL; the request's error carries them.
    @Test(arguments: TestTransport.all)
    func aFailedAttemptRecordsItsError(via transport: TestTransport) async throws {
        let closed = try ClosedPort()
        defer { closed.close() }
        let log = EventLog()
        let retry = RetryMiddleware(maximumAttempts: 2, initialDelay: 0, maximumDelay: 0, clock: TestClock())
        let client = transport.client(session: makeMiddlewareTestSession(), middleware: [retry], eventListener: log)
        let url = closed.url("/nothing?token=query-secret-value").absoluteString
        do {
            _ = try await client.response(for: Request<Echo>.get(url))
            Issue.record("a closed port answered")
        } catch {
            let metrics = try #require(error.metrics)
            #expect(metrics.attempts.map(\.reason) == [.initial, .retry])
            #expect(metrics.attempts.map(\.statusCode) == [nil, nil])
            let codes = metrics.attempts.map { ($0.error as? URLError)?.code }
            #expect(codes == [.cannotConnectToHost, .cannotConnectToHost])
            #expect(metrics.attempts.allSatisfy { ($0.error as? URLError)?.userInfo.isEmpty == true }, "no URL")
            #expect(metrics.description.contains("failed: URLError -1004"), "\(metrics)")
        }
        await log.waitForEnds(1)
        guard case .finished(let metrics) = log.events.last?.kind else {
            Issue.record("the last event is \(log.events.last?.name ?? "none")")
            return
        }
        #expect(metrics.attempts.compactMap(\.error).count == 2)
        #expect(!"\(metrics.attempts.map { $0.error as Any })".contains("query-secret-value"))
    }

    /// A connection lost after the head: the attempt has its status and the error that cut its body.
    @Test(arguments: TestTransport.all)
    func anAttemptCutMidBodyHasItsStatusAndItsError(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let chunks = [Data(repeating: 65, count: 100)]
        server.route("/cut") { _ in .streamed(chunks, then: .drop) }
        let log = EventLog()
        let client = transport.client(session: makeMiddlewareTestSession(), eventListener: log)
        await #expect(throws: FileEndpoint.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                for try await _ in try await client.bytes(for: FileEndpoint("cut")) {}
            }
        }
        await log.waitForEnds(1)
        guard case .finished(let metrics) = log.events.last?.kind else {
            Issue.record("the last event is \(log.events.last?.name ?? "none")")
            return
        }
        let attempt = try #require(metrics.attempts.first)
        #expect(attempt.statusCode == 200)
        #expect(attempt.error is URLError, "\(String(describing: attempt.error))")
    }

    /// The trace id `TraceContextMiddleware` sent is in the metrics and in the events from the
    /// first send on.
    @Test(arguments: [nil, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"])
    func theTraceIDIsInTheMetricsAndTheEvents(parent: String?) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let log = EventLog()
        let client = EndpointClient(
            session: makeMiddlewareTestSession(), middleware: [TraceContextMiddleware(parent: parent)],
            eventListener: log)
        let result = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await client.typedResponse(with: EchoEndpoint("echo"))
        }
        let sent = try #require(server.requests.first?.header("traceparent"))
        let traceID = sent.split(separator: "-")[1]
        if parent != nil { #expect(traceID == "4bf92f3577b34da6a3ce929d0e0e4736") }
        #expect(result.metrics.traceID == String(traceID))
        #expect(result.metrics.description.contains("trace \(traceID)"))
        await log.waitForEnds(1)
        let events = log.events
        #expect(events.first?.traceID == nil, "started comes before the middleware")
        let sentAt = try #require(events.firstIndex { $0.name == "attemptSent" })
        #expect(events[sentAt...].allSatisfy { $0.traceID == String(traceID) }, "\(events.map(\.traceID))")
        guard case .finished(let metrics) = events.last?.kind else { return }
        #expect(metrics.traceID == String(traceID))
    }

    /// Without the middleware, a request has no trace id.
    @Test func aRequestWithoutTheMiddlewareHasNoTraceID() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let result = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await EndpointClient(session: makeMiddlewareTestSession()).typedResponse(with: EchoEndpoint("echo"))
        }
        #expect(result.metrics.traceID == nil)
    }

    /// A mocked call reports its endpoint's name and how long the mock took.
    @Test func aMockedCallReportsItsNameAndDuration() async throws {
        let log = EventLog()
        let client = EndpointClient(session: makeMiddlewareTestSession(), eventListener: log)
        let mocked = Echo(method: "GET", path: "/mocked", query: nil, headers: [:], body: nil)
        let result = try await withMock(EchoEndpoint.self, action: .delayed(seconds: 0.05, .return(mocked))) {
            try await client.typedResponse(with: EchoEndpoint("mocked"))
        }
        #expect(result.value.path == "/mocked")
        #expect(result.metrics.endpointName == "EchoEndpoint")
        #expect(result.metrics.duration >= 0.05)
        #expect(result.metrics.attempts.isEmpty, "nothing was sent")
        await log.waitForEnds(1)
        guard case .finished(let metrics) = log.events.last?.kind else {
            Issue.record("the last event is \(log.events.last?.name ?? "none")")
            return
        }
        #expect(log.events.allSatisfy { $0.endpointName == "EchoEndpoint" })
        #expect(metrics.duration >= 0.05)
    }

    /// A mocked failure ends with `failed(stage:)` and `finished`, as a sent one does.
    @Test func aMockedFailureIsReportedAsAFailure() async throws {
        let log = EventLog()
        let client = EndpointClient(session: makeMiddlewareTestSession(), eventListener: log)
        await #expect(throws: EchoEndpoint.TaskError.self) {
            try await withMock(EchoEndpoint.self, action: .throw(.urlLoadError(URLError(.timedOut)))) {
                try await client.response(with: EchoEndpoint("mocked"))
            }
        }
        await log.waitForEnds(1)
        #expect(log.events.map(\.name).suffix(2) == ["failed", "finished"])
        #expect(log.events.allSatisfy { $0.endpointName == "EchoEndpoint" })
    }

    /// A transport failure carries the request's metrics, as an answered failure does.
    @Test func aTransportFailureCarriesTheMetrics() async throws {
        let closed = try ClosedPort()
        defer { closed.close() }
        do {
            _ = try await EndpointClient(session: makeMiddlewareTestSession()).response(
                for: Request<Echo>.get(closed.url("/nothing").absoluteString))
            Issue.record("a closed port answered")
        } catch {
            guard case .urlLoadError = error else {
                Issue.record("unexpected \(error)")
                return
            }
            let metrics = try #require(error.metrics, "a transport failure carries its metrics")
            #expect(metrics.attempts.count == 1)
            #expect(metrics.attempts.first?.statusCode == nil)
            if case .urlLoadError(let urlError) = error { #expect(urlError.code == .cannotConnectToHost) }
        }
    }
}
