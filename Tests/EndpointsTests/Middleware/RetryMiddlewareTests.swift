import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct MiddlewareRetryTests {
    /// Serves `responses` in order on `path`, then repeats the last one; returns the call counter.
    static func script(_ server: TestServer, _ path: String, _ responses: [TestServer.Response]) -> TestLocked<Int> {
        let calls = TestLocked(0)
        server.route(path) { _ in
            let index = calls.withLock { count in
                count += 1
                return count - 1
            }
            return responses[min(index, responses.count - 1)]
        }
        return calls
    }

    static func unavailable(retryAfter: String? = nil) -> TestServer.Response {
        var response = TestServer.Response.json(raw: #"{"code":503,"message":"busy"}"#, status: 503)
        if let retryAfter { response.headers.append((name: "Retry-After", value: retryAfter)) }
        return response
    }

    @Test func serviceUnavailableThenOKRecovers() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let calls = Self.script(server, "/flaky", [Self.unavailable(), .json(raw: #"{"ok":true}"#)])
        let clock = TestClock()
        let retry = RetryMiddleware(initialDelay: 1, maximumDelay: 4, clock: clock, seed: 1)
        let data = try await makeMiddlewareTestSession().response(
            with: MiddlewareGet("flaky"),
            environment: server.baseURL,
            middleware: [retry]
        )
        #expect(String(decoding: data, as: UTF8.self) == #"{"ok":true}"#)
        #expect(calls.withLock { $0 } == 2)
        #expect(clock.slept.count == 1)
        #expect(clock.slept.allSatisfy { (0...1).contains($0) })
    }

    @Test(arguments: [
        ("7", 7.0),
        ("Thu, 01 Jan 2026 00:00:09 GMT", 9.0),
        ("Thursday, 01-Jan-26 00:00:11 GMT", 11.0),
        ("Thu Jan  1 00:00:13 2026", 13.0),
        ("Wed, 31 Dec 2025 23:00:00 GMT", 0.0),
        ("99999999999", 60.0),
    ])
    func retryAfterSetsTheWait(header: String, expected: TimeInterval) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let calls = Self.script(server, "/busy", [Self.unavailable(retryAfter: header), .json(raw: "{}")])
        let clock = TestClock(start: Date(timeIntervalSince1970: 1_767_225_600))  // 2026-01-01T00:00:00Z
        let retry = RetryMiddleware(budget: 100, maximumRetryAfter: 60, clock: clock)
        _ = try await makeMiddlewareTestSession().response(
            with: MiddlewareGet("busy"),
            environment: server.baseURL,
            middleware: [retry]
        )
        #expect(calls.withLock { $0 } == 2)
        #expect(clock.slept == [expected])
    }

    @Test func postIsNotRetried() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let calls = Self.script(server, "/orders", [Self.unavailable(retryAfter: "1"), .json(raw: "{}")])
        let clock = TestClock()
        await #expect {
            try await makeMiddlewareTestSession().response(
                with: MiddlewarePost("orders"),
                environment: server.baseURL,
                middleware: [RetryMiddleware(clock: clock)]
            )
        } throws: { error in
            guard let error = error as? MiddlewarePost.TaskError, case .errorResponse(let http, let body) = error else {
                return false
            }
            return http.statusCode == 503 && body.message == "busy"
        }
        #expect(calls.withLock { $0 } == 1)
        #expect(clock.slept.isEmpty)
    }

    @Test func postWithAnIdempotencyKeyOrAnOptInIsRetried() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let session = makeMiddlewareTestSession()
        let keyed = Self.script(server, "/keyed", [Self.unavailable(), .json(raw: "{}")])
        _ = try await session.response(
            with: MiddlewarePost("keyed", idempotencyKey: "order-42"),
            environment: server.baseURL,
            middleware: [RetryMiddleware(clock: TestClock())]
        )
        #expect(keyed.withLock { $0 } == 2)
        let optedIn = Self.script(server, "/opted", [Self.unavailable(), .json(raw: "{}")])
        _ = try await session.response(
            with: MiddlewarePost("opted"),
            environment: server.baseURL,
            middleware: [RetryMiddleware(retriesNonIdempotentRequests: true, clock: TestClock())]
        )
        #expect(optedIn.withLock { $0 } == 2)
    }

    @Test func budgetExhaustedReturnsTheLastResponseWithTheAttemptCount() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let calls = Self.script(server, "/down", [Self.unavailable(retryAfter: "10")])
        let clock = TestClock()
        let gaveUp = TestLocked([RetryExhausted]())
        let retry = RetryMiddleware(maximumAttempts: 10, budget: 25, clock: clock) { exhausted in
            gaveUp.withLock { $0.append(exhausted) }
        }
        // The caller gets the last 503 in its own case, with the decoded body and the raw one.
        await #expect {
            try await makeMiddlewareTestSession().response(
                with: MiddlewareGet("down"),
                environment: server.baseURL,
                middleware: [retry]
            )
        } throws: { error in
            guard let error = error as? MiddlewareGet.TaskError, case .errorResponse(let http, let body) = error
            else { return false }
            return http.statusCode == 503 && body == MiddlewareErrorBody(code: 503, message: "busy")
                && error.responseData == Data(#"{"code":503,"message":"busy"}"#.utf8)
        }
        let exhausted = try #require(gaveUp.withLock { $0 }.first)
        #expect(gaveUp.withLock { $0.count } == 1)
        #expect(exhausted.attempts == 3 && exhausted.reason == .budget)
        let last = try exhausted.lastOutcome.get()
        #expect(last.response.statusCode == 503)
        #expect(last.data == Data(#"{"code":503,"message":"busy"}"#.utf8))
        #expect(
            exhausted.description
                == "Gave up after 3 attempts because the time budget ran out; the last was status 503."
        )
        #expect(calls.withLock { $0 } == 3)
        #expect(clock.slept == [10, 10])
    }

    @Test func connectionFailuresAreRetriedUntilTheLastErrorIsReturned() async throws {
        // A held port that refuses connections: a stopped server's port could be taken by a parallel test.
        let closed = try ClosedPort()
        defer { closed.close() }
        let url = closed.baseURL
        let clock = TestClock()
        let gaveUp = TestLocked([Int]())
        let retry = RetryMiddleware(
            maximumAttempts: 4, initialDelay: 1, delayMultiplier: 2, clock: clock, seed: 9,
            onGiveUp: { exhausted in
                if exhausted.reason == .maximumAttempts, case .failure(is URLError) = exhausted.lastOutcome {
                    gaveUp.withLock { $0.append(exhausted.attempts) }
                }
            })
        // The caller gets the last connection failure as a load error, not wrapped.
        await #expect {
            try await makeMiddlewareTestSession().response(
                with: MiddlewareGet("anything"),
                environment: url,
                middleware: [retry]
            )
        } throws: { error in
            guard let error = error as? MiddlewareGet.TaskError, case .urlLoadError(let last) = error else {
                return false
            }
            return RetryMiddleware.standardErrorCodes.contains(last.code)
        }
        #expect(gaveUp.withLock { $0 } == [4])
        let slept = clock.slept
        #expect(slept.count == 3)
        for (index, wait) in slept.enumerated() {
            #expect((0...ExponentialBackoff(initial: 1, multiplier: 2).ceiling(forRetry: index + 1)).contains(wait))
        }
        // The same seed gives the same jittered waits.
        let again = TestClock()
        let replay = RetryMiddleware(
            maximumAttempts: 4, initialDelay: 1, delayMultiplier: 2, clock: again, seed: 9)
        _ = try? await makeMiddlewareTestSession().response(
            with: MiddlewareGet("anything"),
            environment: url,
            middleware: [replay]
        )
        #expect(again.slept == slept)
    }

    @Test func methodsAndStatusesThatAreRetried() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let session = makeMiddlewareTestSession()
        for method in ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "POST", "PATCH"] {
            for status in [408, 429, 502, 503, 504, 500, 404] {
                let path = "/m/\(method)/\(status)"
                let calls = Self.script(server, path, [.status(status), .status(200)])
                var request = URLRequest(url: server.url(path))
                request.httpMethod = method
                _ = try await sendThrough(RetryMiddleware(clock: TestClock()), request, session: session)
                let retried =
                    ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"].contains(method)
                    && [408, 429, 502, 503, 504].contains(status)
                #expect(calls.withLock { $0 } == (retried ? 2 : 1), "\(method) \(status)")
            }
        }
    }

    @Test(arguments: [URLError.Code.unknown, .cancelled, .secureConnectionFailed, .serverCertificateUntrusted])
    func failuresThatAreNeverRetried(code: URLError.Code) async throws {
        // Even when listed as retryable, these codes are dropped; .timedOut in the same list is retried.
        let retry = RetryMiddleware(retryableErrorCodes: [code, .timedOut], clock: TestClock())
        let request = URLRequest(url: URL(string: "http://127.0.0.1:9/")!)
        let attempts = TestLocked(0)
        await #expect(throws: URLError(code)) {
            try await retry.intercept(request, context: RequestContext(endpointName: "X")) { _ in
                attempts.withLock { $0 += 1 }
                throw URLError(code)
            }
        }
        #expect(attempts.withLock { $0 } == 1)

        let timeouts = TestLocked(0)
        await #expect(throws: URLError(.timedOut)) {
            try await retry.intercept(request, context: RequestContext(endpointName: "X")) { _ in
                timeouts.withLock { $0 += 1 }
                throw URLError(.timedOut)
            }
        }
        #expect(timeouts.withLock { $0 } == 3)
    }

    @Test func cancellationStopsTheWait() async throws {
        let server = try TestServer()
        defer { server.stop() }
        _ = Self.script(server, "/slow-to-recover", [Self.unavailable(retryAfter: "3600")])
        let retry = RetryMiddleware(budget: 7200, maximumRetryAfter: 3600)  // the real clock
        let task = Task {
            try await makeMiddlewareTestSession().response(
                with: MiddlewareGet("slow-to-recover"),
                environment: server.baseURL,
                middleware: [retry]
            )
        }
        try await waitForRequests(1, on: server)
        task.cancel()
        await #expect {
            try await task.value
        } throws: { error in
            guard let error = error as? MiddlewareGet.TaskError, case .cancelled = error else { return false }
            return true
        }
    }

    @Test func backoffCeilingsGrowToTheMaximum() {
        let backoff = ExponentialBackoff(initial: 0.5, multiplier: 2, maximum: 10)
        #expect((1...7).map(backoff.ceiling(forRetry:)) == [0.5, 1, 2, 4, 8, 10, 10])
        #expect(backoff.ceiling(forRetry: 5000) == 10)
        #expect(backoff.delay(forRetry: 3, unit: 0.5) == 1)
    }
}
