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
        HostLimiter.Limit(pool: ObjectIdentifier(pool), maximumPerHost: maximum)
    }

    private let remote = URLRequest(url: URL(string: "https://api.example.com/a")!)
    private let local = URLRequest(url: URL(string: "http://127.0.0.1:8080/a")!)

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
                admission.release()
            }
        }
        // Start the second waiter only once the first is queued, so their order is known.
        var iterator = queued.stream.makeAsyncIterator()
        _ = await iterator.next()
        _ = await iterator.next()
        held[0].release()
        held[1].release()
        for waiter in waiters { try await waiter.value }
        #expect(order.withLock { $0 }.sorted() == [0, 1])
        held[2].release()
    }

    @Test func aBypassingRequestIsAdmittedAtOnceWithoutASlot() async throws {
        let pool = Pool()
        let held = try await HostLimiter.admit(remote, limit: limit(pool, 1), bypass: false)
        let refresh = try await HostLimiter.admit(remote, limit: limit(pool, 1), bypass: true)
        #expect(!refresh.waited)
        refresh.release()  // frees nothing: it held no slot
        let waiter = Task { try await HostLimiter.admit(remote, limit: limit(pool, 1), bypass: false) }
        held.release()
        try await waiter.value.release()
    }

    @Test func cancellingAQueuedRequestRemovesItFromTheQueue() async throws {
        let pool = Pool()
        let held = try await HostLimiter.admit(remote, limit: limit(pool, 1), bypass: false)
        let waiter = Task { try await HostLimiter.admit(remote, limit: limit(pool, 1), bypass: false) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        // The cancelled waiter did not take the slot: the next request gets it.
        held.release()
        let next = try await HostLimiter.admit(remote, limit: limit(pool, 1), bypass: false)
        #expect(!next.waited)
        next.release()
    }

    @Test func loopbackIsLimitedToFourAndOtherHostsToTheMaximum() {
        #expect(HostLimiter.effectiveLimit(maximum: 12, origin: RedirectPolicy.Origin(local.url!)!) == 4)
        #expect(HostLimiter.effectiveLimit(maximum: 12, origin: RedirectPolicy.Origin(remote.url!)!) == 12)
        #expect(HostLimiter.effectiveLimit(maximum: 2, origin: RedirectPolicy.Origin(local.url!)!) == 2)
        #expect(HostLimiter.isLoopback("localhost") && HostLimiter.isLoopback("::1"))
        #expect(!HostLimiter.isLoopback("128.0.0.1"))
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
