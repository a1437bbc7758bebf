import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Metrics and events of real requests over loopback: what issue 27 must show.
@Suite struct MetricsAndEventsTests {
    @Test(arguments: TestTransport.all)
    func retryAfter503GivesTwoAttemptsWithTheDelayBetweenThem(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let calls = TestLocked(0)
        server.route("/flaky") { _ in
            let call = calls.withLock {
                $0 += 1
                return $0
            }
            return call == 1 ? .json(raw: #"{"code":503,"message":"busy"}"#, status: 503) : echoJSON("/flaky")
        }
        let log = EventLog()
        let client = transport.client(
            session: makeMiddlewareTestSession(),
            // A budget no loaded machine reaches: the default 30 s ran out once before the first answer,
            // with plain swift test beside two builds on two cores.
            middleware: [RetryMiddleware(budget: 3600, initialDelay: 0.05, maximumDelay: 0.05, seed: 7)],
            eventListener: log)
        let result = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await client.typedResponse(with: EchoEndpoint("flaky"))
        }
        let attempts = result.metrics.attempts
        #expect(attempts.map(\.reason) == [.initial, .retry])
        #expect(attempts.map(\.statusCode) == [503, 200])
        let delay = try #require(attempts.last?.retryDelay)
        #expect(attempts[0].retryDelay == nil)
        #expect(attempts[1].start >= attempts[0].start + delay, "the retry starts after its delay")
        #expect(result.metrics.duration >= attempts[1].start)
        await log.waitForEnds(1)
        let retries = log.events.compactMap { event -> (String, TimeInterval)? in
            guard case .retryScheduled(let reason, let delay) = event.kind else { return nil }
            return (reason, delay)
        }
        #expect(retries.map(\.0) == ["status 503"])
        #expect(retries.map(\.1) == [delay])
    }

    @Test(arguments: TestTransport.all)
    func refreshAfter401GivesTwoAttemptsAndOneRefresh(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/secure") { request in
            request.header("Authorization") == "Bearer renewed-secret-token"
                ? echoJSON("/secure") : .json(raw: #"{"code":401,"message":"no"}"#, status: 401)
        }
        let log = EventLog()
        let client = transport.client(session: makeMiddlewareTestSession(), eventListener: log)
        let result = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await client.typedResponse(
                with: BearerEchoEndpoint("secure"), auth: RenewingBearer("stale-secret-token"))
        }
        #expect(result.metrics.attempts.map(\.reason) == [.initial, .reauthenticated])
        #expect(result.metrics.attempts.map(\.statusCode) == [401, 200])
        #expect(result.metrics.refreshes == 1)
        await log.waitForEnds(1)
        let names = log.events.map(\.name)
        #expect(names.filter { $0 == "refreshStarted" }.count == 1)
        #expect(names.filter { $0 == "authenticated" }.count == 2)
        let started = try #require(names.firstIndex(of: "refreshStarted"))
        #expect(names[started + 1] == "refreshEnded")
    }

    @Test(arguments: TestTransport.all)
    func aRedirectGivesAHopRecord(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let other = URL(
            string: server.url("/echo/final").absoluteString.replacingOccurrences(
                of: "127.0.0.1", with: "localhost"))!
        server.route("/start") { _ in TestServer.Response(status: 302, headers: [("Location", other.absoluteString)]) }
        let log = EventLog()
        let client = transport.client(session: makeMiddlewareTestSession(), eventListener: log)
        let result = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await client.typedResponse(with: KeyedEchoEndpoint("start"))
        }
        #expect(result.value.path == "/echo/final")
        #expect(result.metrics.attempts.map(\.reason) == [.initial, .redirect])
        #expect(result.metrics.attempts.map(\.statusCode) == [302, 200])
        #expect(result.metrics.attempts[1].start >= result.metrics.attempts[0].start)
        await log.waitForEnds(1)
        let redirects = log.events.compactMap { event -> Bool? in
            guard case .redirectFollowed(302, let dropped) = event.kind else { return nil }
            return dropped
        }
        #expect(redirects == [true], "the API key is dropped on the way to another host")
    }

    @Test(arguments: TestTransport.all)
    func eventsOf100ConcurrentRequestsEachArriveInOrder(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let log = EventLog()
        let client = transport.client(session: makeMiddlewareTestSession(), eventListener: log)
        try await Loopback.$baseURL.withValue(server.baseURL) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<100 {
                    group.addTask { _ = try await client.response(with: EchoEndpoint("echo")) }
                }
                try await group.waitForAll()
            }
        }
        await log.waitForEnds(100)
        let byRequest = Dictionary(grouping: log.events, by: \.requestID)
        #expect(byRequest.count == 100)
        let rank = [
            "started": 0, "attemptSent": 1, "queued": 2, "admitted": 3, "headReceived": 4, "bodyFinished": 5,
            "decoded": 6, "finished": 7,
        ]
        for (id, events) in byRequest {
            let ranks = events.map { rank[$0.name] ?? -1 }
            #expect(ranks.first == 0 && ranks.last == 7, "request \(id): \(events.map(\.name))")
            #expect(zip(ranks, ranks.dropFirst()).allSatisfy { $0 < $1 }, "request \(id): \(events.map(\.name))")
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time })
        }
    }

    @Test(arguments: TestTransport.all)
    func aCancelledRequestEndsWithACancelledEvent(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        // The `Gate` of the Hostile tests' support.
        let arrived = Gate()
        let release = Gate()
        server.route("/held") { _ in
            await arrived.open()
            await release.wait()
            return echoJSON("/held")
        }
        let log = EventLog()
        let client = transport.client(session: makeMiddlewareTestSession(), eventListener: log)
        let task = Task {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await client.response(with: EchoEndpoint("held"))
            }
        }
        // Cancelled while the server holds the request: sent, no answer yet.
        await arrived.wait()
        task.cancel()
        await #expect(throws: EchoEndpoint.TaskError.self) { try await task.value }
        await release.open()
        await log.waitForEnds(1)
        let events = log.events
        #expect(events.last?.name == "cancelled", "\(events.map(\.name))")
        #expect(!events.contains { $0.name == "finished" || $0.name == "failed" })
        guard case .cancelled(let metrics) = events.last?.kind else { return }
        #expect(metrics.attempts.count == 1)
        #expect(metrics.attempts.first?.statusCode == nil, "no answer came")
    }

    @Test func aListenerThatBlocksDoesNotSlowTheRequest() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let listener = BlockingListener()
        // A watchdog: should delivery ever hold up the request, the listener is let go after 10 s
        // and the test fails instead of hanging.
        let watchdog = Task {
            try await Task.sleep(nanoseconds: 10_000_000_000)
            listener.release(byWatchdog: true)
        }
        let client = EndpointClient(session: makeMiddlewareTestSession(), eventListener: listener)
        let result = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await client.typedResponse(with: EchoEndpoint("echo"))
        }
        #expect(result.value.path == "/echo")
        #expect(listener.releasedByWatchdog == false, "the request waited for the listener")
        watchdog.cancel()
        await listener.waitUntilBlocked()
        #expect(listener.received == 0, "the listener is still blocked in its first event")
        listener.release(byWatchdog: false)
    }

    @Test func secretsNeverAppearInEventsOrMetrics() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/secure") { request in
            request.header("Authorization") == "Bearer renewed-secret-token"
                ? echoJSON("/secure") : .json(raw: #"{"code":401,"message":"no"}"#, status: 401)
        }
        let log = EventLog()
        let client = EndpointClient(session: makeMiddlewareTestSession(), eventListener: log)
        let base = RequestBase(url: server.baseURL, auth: RenewingBearer("stale-secret-token"))
        let result = try await client.typedResponse(
            for: Request<Echo>.get("secure", on: base) { Parameter.queryValue("token", value: "query-secret-value") })
        await log.waitForEnds(1)
        let texts = log.events.map(\.description) + log.events.map { "\($0.kind)" } + ["\(result.metrics)"]
        #expect(
            log.events.contains { if case .started(_, let url) = $0.kind { url.contains("token=") } else { false } })
        for text in texts {
            for secret in ["secret-token", "query-secret-value"] {
                #expect(!text.contains(secret), "\(text)")
            }
        }
    }
}

/// A listener that blocks in its first event until released.
final class BlockingListener: RequestEventListener {
    private let gate = DispatchSemaphore(value: 0)
    private let state = TestLocked(
        (entered: false, received: 0, watchdog: false, waiter: CheckedContinuation<Void, Never>?.none))

    var received: Int { state.withLock { $0.received } }
    var releasedByWatchdog: Bool { state.withLock { $0.watchdog } }

    func receive(_ event: RequestEvent) {
        let (first, waiter) = state.withLock { state in
            defer {
                state.entered = true
                state.waiter = nil
            }
            return (!state.entered, state.waiter)
        }
        waiter?.resume()
        // Blocks the delivery queue's thread (not the cooperative pool) until released.
        if first { gate.wait() }
        state.withLock { $0.received += 1 }
    }

    /// Returns once the listener is blocked in its first event.
    func waitUntilBlocked() async {
        await withCheckedContinuation { continuation in
            let entered = state.withLock { state in
                if !state.entered { state.waiter = continuation }
                return state.entered
            }
            if entered { continuation.resume() }
        }
    }

    func release(byWatchdog: Bool) {
        state.withLock { $0.watchdog = $0.watchdog || byWatchdog }
        gate.signal()
    }
}
