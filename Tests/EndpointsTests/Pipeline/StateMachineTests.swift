import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The pipeline's small state machines, driven directly rather than through the network.
@Suite struct HostLimiterTests {
    /// A fresh pool each test, so tests running in parallel never share slots.
    private final class Pool: Sendable {}

    private func limit(_ pool: Pool, _ maximum: Int) -> HostLimiter.Limit {
        HostLimiter.Limit(pool: pool, maximumPerHost: maximum)
    }

    private let remote = URLRequest(url: URL(string: "https://api.example.com/a")!)

    @Test func admitsUpToTheLimitThenQueuesInOrder() async throws {
        let pool = Pool()
        let held = try await (0..<3).asyncMap { _ in
            try await HostLimiter.admit(remote, limit: limit(pool, 3), bypass: false)
        }
        #expect(held.allSatisfy { !$0.waited })
        let order = TestLocked([Int]())
        let queued = AsyncStream<Void>.makeStream()
        let waiters = (0..<2).map { index in
            Task {
                queued.continuation.yield()
                let admission = try await HostLimiter.admit(remote, limit: limit(pool, 3), bypass: false)
                order.withLock { $0.append(index) }
                #expect(admission.waited)
                admission.release(answered: true)
            }
        }
        // Start the second waiter only once the first is queued, so their order is known.
        var iterator = queued.stream.makeAsyncIterator()
        _ = await iterator.next()
        _ = await iterator.next()
        held[0].release(answered: true)
        held[1].release(answered: true)
        for waiter in waiters { try await waiter.value }
        #expect(order.withLock { $0 }.sorted() == [0, 1])
        held[2].release(answered: true)
    }

    @Test func aBypassingRequestIsAdmittedAtOnceWithoutASlot() async throws {
        let pool = Pool()
        let held = try await HostLimiter.admit(remote, limit: limit(pool, 1), bypass: false)
        let refresh = try await HostLimiter.admit(remote, limit: limit(pool, 1), bypass: true)
        #expect(!refresh.waited)
        refresh.release(answered: true)  // frees nothing: it held no slot
        let waiter = Task { try await HostLimiter.admit(remote, limit: limit(pool, 1), bypass: false) }
        held.release(answered: true)
        try await waiter.value.release(answered: true)
    }

    @Test func cancellingAQueuedRequestRemovesItFromTheQueue() async throws {
        let pool = Pool()
        let held = try await HostLimiter.admit(remote, limit: limit(pool, 1), bypass: false)
        let waiter = Task { try await HostLimiter.admit(remote, limit: limit(pool, 1), bypass: false) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        // The cancelled waiter did not take the slot: the next request gets it.
        held.release(answered: true)
        let next = try await HostLimiter.admit(remote, limit: limit(pool, 1), bypass: false)
        #expect(!next.waited)
        next.release(answered: true)
    }

    /// The table is keyed by the pool's address; a pool made where a freed one was starts afresh.
    @Test func aNewPoolAtAFreedPoolsAddressInheritsNothing() async throws {
        var reused = false
        for _ in 0..<1000 where !reused {
            var old: Pool? = Pool()
            let address = ObjectIdentifier(old!)
            // The old pool's only slot is taken, and stays taken as far as the table knows.
            let stale = try await HostLimiter.admit(remote, limit: limit(old!, 1), bypass: false)
            old = nil
            let new = Pool()
            guard ObjectIdentifier(new) == address else {
                stale.release(answered: true)
                continue
            }
            reused = true
            let admission = try await HostLimiter.admit(remote, limit: limit(new, 1), bypass: false)
            #expect(!admission.waited, "the new pool waited for the freed pool's slot")
            admission.release(answered: true)
            withExtendedLifetime(new) {}
        }
        try #require(reused, "no pool was ever made at a freed pool's address")
    }

    @Test func aFastHostIsLimitedToFourAndASlowOneToTheMaximum() {
        typealias Latency = HostLimiter.Latency
        // Unknown, or too few answers yet: four.
        #expect(HostLimiter.effectiveLimit(maximum: 12, latency: nil) == 4)
        #expect(HostLimiter.effectiveLimit(maximum: 12, latency: Latency(shortest: 20_000_000, samples: 7)) == 4)
        // A host that answers in 20 ms gets the maximum; one that answers in 1 ms, four.
        #expect(HostLimiter.effectiveLimit(maximum: 12, latency: Latency(shortest: 20_000_000, samples: 8)) == 12)
        #expect(HostLimiter.effectiveLimit(maximum: 12, latency: Latency(shortest: 1_000_000, samples: 40)) == 4)
        #expect(HostLimiter.effectiveLimit(maximum: 2, latency: nil) == 2)
    }

    @Test func theShortestSendIsRememberedAndCreepsUpSlowly() {
        var latency = HostLimiter.Latency(shortest: 20_000_000, samples: 1)
        latency.record(1_000_000)  // one fast answer: the link is fast
        #expect(latency.shortest == 1_000_000)
        latency.record(50_000_000)  // a slow one (queued behind others) moves it by 1/16 only
        #expect(latency.shortest == 1_062_501)
        #expect(latency.samples == 3)
    }

    @Test func aSlowHostIsAdmittedUpToTheMaximumOnceMeasured() async throws {
        let pool = Pool()
        let limit = limit(pool, 12)
        // Eight sends, each taking over 15 ms, teach the limiter that this host is slow.
        for _ in 0..<8 {
            let admission = try await HostLimiter.admit(remote, limit: limit, bypass: false)
            try await Task.sleep(nanoseconds: 20_000_000)
            admission.release(answered: true)
        }
        let held = try await (0..<12).asyncMap { _ in try await HostLimiter.admit(remote, limit: limit, bypass: false) }
        #expect(held.allSatisfy { !$0.waited })
        held.forEach { $0.release(answered: true) }
    }

    /// Issue 37: a send that got no answer (cancelled, timed out) measured its caller, not the
    /// host, so however long it took, the host is still unknown: four slots.
    @Test func sendsThatGotNoAnswerTeachTheLimiterNothing() async throws {
        let pool = Pool()
        let limit = limit(pool, 12)
        for _ in 0..<8 {
            let admission = try await HostLimiter.admit(remote, limit: limit, bypass: false)
            try await Task.sleep(nanoseconds: 20_000_000)
            admission.release(answered: false)
        }
        let held = try await (0..<4).asyncMap { _ in try await HostLimiter.admit(remote, limit: limit, bypass: false) }
        #expect(held.allSatisfy { !$0.waited })
        // A fifth, already cancelled: it would be admitted at once beside four only if the limit
        // were higher; it has to queue, and so ends cancelled.
        let fifth = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await HostLimiter.admit(remote, limit: limit, bypass: false)
        }
        await #expect(throws: CancellationError.self, "a fifth request went out beside four") {
            try await fifth.value.release(answered: false)
        }
        held.forEach { $0.release(answered: false) }
    }

    @Test func theDefaultIsTwiceTheSessionsConnectionsOnLinux() {
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = 3
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        #if canImport(FoundationNetworking)
            #expect(URLSessionTransport.defaultMaximumRequestsPerHost(for: session) == 6)
        #else
            #expect(URLSessionTransport.defaultMaximumRequestsPerHost(for: session) == nil)
        #endif
    }
}

@Suite struct PipelineDataTaskTests {
    private func task(
        answer: @escaping @Sendable () async throws -> Void = {},
        completion: @escaping @Sendable (Result<Data, EndpointTaskError<EmptyCodable>>) -> Void
    ) -> PipelineDataTask {
        let request = URLRequest(url: URL(string: "https://api.example.com/x")!)
        let call = PipelineCall<Data, EmptyCodable>(
            name: "X",
            build: { request },
            auth: NoAuth(),
            middleware: [],
            acceptableStatusCodes: .successful,
            decodeResponse: { data, _ in data },
            decodeError: { _ in EmptyCodable() },
            mock: nil
        )
        let transport = ClosureTransport { request in
            try await answer()
            return (
                Data("ok".utf8),
                HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil, headerFields: nil)!
            )
        }
        return PipelineDataTask(request: request, call: call, transport: transport, completion: completion)
    }

    @Test func runsOnlyWhenResumedAndCompletesOnce() async throws {
        let results = AsyncStream<Result<Data, EndpointTaskError<EmptyCodable>>>.makeStream()
        let task = task { results.continuation.yield($0) }
        #expect(task.state == .suspended)
        #expect(task.originalRequest?.url?.path == "/x")
        task.resume()
        task.resume()  // a second resume does nothing
        var iterator = results.stream.makeAsyncIterator()
        let result = await iterator.next()
        #expect((try? result?.get()) == Data("ok".utf8))
        task.cancel()  // after completion: nothing more is delivered
        results.continuation.finish()
        #expect(await iterator.next() == nil)
    }

    @Test func cancelWhileRunningDeliversCancelledOnce() async throws {
        let started = AsyncStream<Void>.makeStream()
        let results = AsyncStream<Result<Data, EndpointTaskError<EmptyCodable>>>.makeStream()
        let task = task(answer: {
            started.continuation.yield()
            try await Task.sleep(nanoseconds: 60_000_000_000)
        }) { results.continuation.yield($0) }
        task.resume()
        for await _ in started.stream { break }
        task.cancel()
        #expect(task.state == .canceling)
        var iterator = results.stream.makeAsyncIterator()
        let result = await iterator.next()
        guard case .failure(.cancelled) = result else {
            Issue.record("expected .cancelled, got \(String(describing: result))")
            return
        }
    }
}

/// A transport made of a closure.
struct ClosureTransport: HTTPTransport {
    let body: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
        try await body(request)
    }
}

extension Sequence where Element: Sendable {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}

@Suite struct DataTaskCallTests {
    private typealias Outcome = Result<(Data, HTTPURLResponse), any Error>

    /// Starts a call for `path` on `server` and returns its outcomes (each call delivers one).
    private func run(
        _ path: String,
        on server: EndpointsTestServer.TestServer,
        timeout: TimeInterval = 60,
        _ act: @escaping @Sendable (DataTaskCall) async throws -> Void = { _ in }
    ) async throws -> [Outcome] {
        var request = URLRequest(url: server.url(path))
        request.timeoutInterval = timeout
        let call = DataTaskCall(request: request, context: RequestContext(endpointName: "StateMachineTests"))
        let outcomes = TestLocked([Outcome]())
        let delivered = AsyncStream<Void>.makeStream()
        call.start(on: .shared) { outcome in
            outcomes.withLock { $0.append(outcome) }
            delivered.continuation.yield()
        }
        try await act(call)
        for await _ in delivered.stream { break }
        return outcomes.withLock { $0 }
    }

    @Test func deliversTheResponseOnce() async throws {
        let server = try EndpointsTestServer.TestServer()
        defer { server.stop() }
        let outcomes = try await run("/echo", on: server)
        #expect(outcomes.count == 1)
        #expect((try? outcomes.first?.get().1.statusCode) == 200)
    }

    @Test func cancelDeliversCancellationAtOnceAndNothingAfter() async throws {
        let server = try EndpointsTestServer.TestServer()
        defer { server.stop() }
        let outcomes = try await run("/delay/600000", on: server) { call in
            try await waitForRequests(1, on: server)
            call.cancel()
            call.cancel()
        }
        #expect(outcomes.count == 1)
        #expect(throws: CancellationError.self) { try outcomes.first?.get() }
    }

    @Test func aFractionalTimeoutExpiresAsTimedOut() async throws {
        let server = try EndpointsTestServer.TestServer()
        defer { server.stop() }
        let outcomes = try await run("/delay/600000", on: server, timeout: 0.3)
        #expect(outcomes.count == 1)
        #expect { try outcomes.first?.get() } throws: { ($0 as? URLError)?.code == .timedOut }
    }
}

@Suite struct JWTStateTests {
    private let valid = JWTAuth.TokenPair(
        accessToken: "a1", refreshToken: "r1", expiresAt: Date(timeIntervalSince1970: 2000))
    private let now = Date(timeIntervalSince1970: 1000)

    @Test func aValidTokenIsSentAndAnExpiringOneStartsOneRefresh() {
        var state = JWTState(tokens: valid)
        guard case .send(accessToken: "a1") = state.authenticate(now: now, leeway: 30, mayRefresh: true) else {
            Issue.record("expected to send the valid token")
            return
        }
        let late = Date(timeIntervalSince1970: 1990)
        guard
            case .startRefresh(let id, refreshToken: "r1") = state.authenticate(now: late, leeway: 30, mayRefresh: true)
        else {
            Issue.record("expected a refresh")
            return
        }
        // Everyone after that waits for the same refresh.
        guard case .wait(refreshID: id) = state.authenticate(now: late, leeway: 30, mayRefresh: true) else {
            Issue.record("expected to wait for refresh \(id)")
            return
        }
        guard case .wait(refreshID: id) = state.reauthenticate(rejected: "a1") else {
            Issue.record("a 401 during the refresh waits for it too")
            return
        }
    }

    @Test func aStragglerRetriesWithTheCurrentTokenWithoutRefreshing() {
        var state = JWTState(tokens: valid)
        guard case .retry = state.reauthenticate(rejected: "an-older-token") else {
            Issue.record("expected a retry with the current token")
            return
        }
        #expect(state.refresh == nil)
    }

    @Test func aCommittedRefreshReplacesTheTokensAndASupersededOneIsDiscarded() {
        var state = JWTState(tokens: valid)
        guard case .startRefresh(let id, _) = state.reauthenticate(rejected: "a1") else {
            Issue.record("expected a refresh")
            return
        }
        let renewed = JWTAuth.TokenPair(accessToken: "a2", refreshToken: "r2", expiresAt: nil)
        let committed = state.commitRefresh(id, tokens: renewed)
        #expect(committed)
        let waiters = state.finishRefresh(id)
        #expect(waiters.isEmpty)
        #expect(state.tokens?.accessToken == "a2")
        let again = state.commitRefresh(id, tokens: valid)
        #expect(!again, "a finished refresh cannot commit again")

        guard case .startRefresh(let second, _) = state.reauthenticate(rejected: "a2") else {
            Issue.record("expected a second refresh")
            return
        }
        _ = state.replaceTokens(with: valid)  // setTokens while the refresh runs
        let stale = state.commitRefresh(second, tokens: renewed)
        #expect(!stale, "its tokens are stale")
        #expect(state.tokens?.accessToken == "a1")
    }

    @Test func aRejectedRefreshDropsTheTokensAndATransientOneKeepsThem() {
        var transient = JWTState(tokens: valid)
        guard case .startRefresh(let id, _) = transient.reauthenticate(rejected: "a1") else { return }
        let transientWaiters = transient.failRefresh(id, error: URLError(.timedOut))
        #expect(transientWaiters != nil)
        #expect(transient.tokens?.accessToken == "a1")
        guard case .failure(.refreshFailed) = transient.outcome(ofEnded: id) else {
            Issue.record("a request that comes to wait afterwards learns the refresh failed")
            return
        }

        var rejected = JWTState(tokens: valid)
        guard case .startRefresh(let other, _) = rejected.reauthenticate(rejected: "a1") else { return }
        let rejection = URLError(.userAuthenticationRequired)
        let recorded = rejected.rejectRefresh(other, error: rejection)
        #expect(recorded)
        #expect(rejected.tokens == nil)
        // Until its callback has run, the rejected refresh is still in flight: requests wait.
        guard case .wait(let waiting) = rejected.authenticate(now: now, leeway: 30, mayRefresh: true) else {
            Issue.record("a request coming while onRefreshFailed runs waits for the refresh")
            return
        }
        #expect(waiting == other)
        let rejectedWaiters = rejected.failRefresh(other, error: rejection)
        #expect(rejectedWaiters != nil)
        guard case .fail(.refreshFailed) = rejected.reauthenticate(rejected: "a1") else {
            Issue.record("the rejected token's requests fail with the refresh's error")
            return
        }
        guard case .fail(.notAuthenticated) = rejected.authenticate(now: now, leeway: 30, mayRefresh: true) else {
            Issue.record("new requests fail fast until tokens are set")
            return
        }
    }
}

@Suite struct RedirectPolicyTests {
    private let original: URLRequest = {
        var request = URLRequest(url: URL(string: "https://api.example.com/a")!)
        request.httpMethod = "POST"
        request.httpBody = Data("body".utf8)
        request.allHTTPHeaderFields = [
            "Authorization": "Bearer secret", "X-Client-Key": "key", "Content-Type": "application/json",
            "Accept": "application/json",
        ]
        return request
    }()

    private var policy: RedirectPolicy {
        RedirectPolicy(
            original: original,
            credentialHeaders: RequestContext(endpointName: "X", credentialHeaders: ["X-Client-Key"]).credentialHeaders)
    }

    @Test func aSameOriginRedirectKeepsCredentials() {
        let next = policy.nextRequest(after: original, status: 307, target: URL(string: "https://api.example.com/b"))
        #expect(next.httpMethod == "POST" && next.httpBody == Data("body".utf8))
        #expect(next.value(forHTTPHeaderField: "Authorization") == "Bearer secret")
        #expect(next.value(forHTTPHeaderField: "X-Client-Key") == "key")
    }

    /// A same-origin hop goes through the method's update (which signs it again for its URL, for
    /// ``DigestAuth``); a hop to another origin never does, so nothing puts credentials back.
    @Test func onlySameOriginHopsHaveTheirCredentialsUpdated() {
        let updating = RedirectPolicy(
            original: original, credentialHeaders: policy.credentialHeaders,
            currentCredentials: { request in
                var request = request
                request.setValue("Signed \(request.url?.path ?? "")", forHTTPHeaderField: "Authorization")
                return request
            })
        let within = updating.nextRequest(
            after: original, status: 302, target: URL(string: "https://api.example.com/b"))
        #expect(within.value(forHTTPHeaderField: "Authorization") == "Signed /b")
        let away = updating.nextRequest(
            after: original, status: 302, target: URL(string: "https://other.example.com/b"))
        #expect(away.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test func anotherOriginLosesEveryCredentialHeader() {
        for target in ["https://evil.example.com/b", "http://api.example.com/b", "https://api.example.com:8443/b"] {
            let next = policy.nextRequest(after: original, status: 308, target: URL(string: target))
            #expect(next.value(forHTTPHeaderField: "Authorization") == nil, "\(target)")
            #expect(next.value(forHTTPHeaderField: "X-Client-Key") == nil, "\(target)")
            #expect(next.value(forHTTPHeaderField: "Accept") == "application/json")
        }
    }

    @Test(arguments: [
        (301, "POST", "GET"), (302, "POST", "GET"), (303, "PUT", "GET"), (303, "HEAD", "HEAD"),
        (307, "POST", "POST"), (308, "PATCH", "PATCH"), (301, "PUT", "PUT"),
    ])
    func methodsChangeAsRFC9110Says(status: Int, method: String, expected: String) {
        var request = original
        request.httpMethod = method
        let next = policy.nextRequest(after: request, status: status, target: URL(string: "https://api.example.com/b"))
        #expect(next.httpMethod == expected)
        #expect((next.httpBody == nil) == (expected == "GET" && method != "GET"))
        if expected == "GET" { #expect(next.value(forHTTPHeaderField: "Content-Type") == nil) }
    }
}
