import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct HTTPCacheCoalescingTests {
    /// A route that holds every request until `release` is called.
    final class Gate: Sendable {
        let arrived = TestLocked(0)
        let waiters = TestLocked<[CheckedContinuation<Void, Never>]>([])
        let opened = TestLocked(false)

        func wait() async {
            arrived.withLock { $0 += 1 }
            await withCheckedContinuation { continuation in
                let open = opened.withLock { $0 }
                if open { continuation.resume() } else { waiters.withLock { $0.append(continuation) } }
            }
        }

        func release() {
            opened.withLock { $0 = true }
            for waiter in waiters.withLock({ $0 }) { waiter.resume() }
        }
    }

    @Test(arguments: TestTransport.all)
    func identicalConcurrentGetsShareOneTransportCall(via transport: TestTransport) async throws {
        let fixture = try CacheFixture(coalescing: true, via: transport)
        let gate = Gate()
        fixture.server.route("/shared") { _ in
            await gate.wait()
            return .text("one", [("Cache-Control", "no-store")])
        }
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<100 { group.addTask { try await fixture.get("/shared").0 } }
            // Every caller waits on the one call before the answer comes.
            while gate.arrived.withLock({ $0 }) == 0 || fixture.cache.coalescer?.waiting != 100 { await Task.yield() }
            gate.release()
            var bodies: [String] = []
            for try await body in group { bodies.append(body) }
            #expect(bodies.count == 100)
            #expect(bodies.allSatisfy { $0 == "one" })
        }
        #expect(fixture.server.requestCount == 1)
    }

    @Test func differentCredentialsAreNotCoalesced() async throws {
        let fixture = try CacheFixture(coalescing: true)
        let gate = Gate()
        fixture.server.route("/who") { request in
            await gate.wait()
            return .text(request.header("Authorization") ?? "-", [("Cache-Control", "no-store")])
        }
        async let alice = fixture.get("/who", auth: HTTPCacheStorageTests.bearer("a"))
        async let bob = fixture.get("/who", auth: HTTPCacheStorageTests.bearer("b"))
        while gate.arrived.withLock({ $0 }) < 2 { await Task.yield() }
        gate.release()
        #expect(try await alice.0 == "Bearer a")
        #expect(try await bob.0 == "Bearer b")
    }

    @Test(arguments: TestTransport.all)
    func cancellingSomeCallersLeavesTheOthersTheirResult(via transport: TestTransport) async throws {
        let fixture = try CacheFixture(coalescing: true, via: transport)
        let gate = Gate()
        fixture.server.route("/slow") { _ in
            await gate.wait()
            return .text("done", [("Cache-Control", "no-store")])
        }
        let tasks = (0..<10).map { _ in Task { try await fixture.get("/slow").0 } }
        while gate.arrived.withLock({ $0 }) == 0 || fixture.cache.coalescer?.waiting != 10 { await Task.yield() }
        for task in tasks.prefix(5) { task.cancel() }
        for task in tasks.prefix(5) {
            await #expect(throws: (any Error).self) { try await task.value }
        }
        gate.release()
        for task in tasks.suffix(5) { #expect(try await task.value == "done") }
        #expect(fixture.server.requestCount == 1)
    }
}
