import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The cache's two state machines alone: the store's index and a coalesced call's waiters.
@Suite struct CacheStateTests {
    static func slot(_ key: String, cost: Int) -> CacheStore.Slot {
        CacheStore.Slot(
            response: CachedResponse(
                key: key, credential: "", url: "http://x/", status: 200, headers: [:], varied: [:], requestTime: 0,
                responseTime: 0, body: Data()),
            cost: cost, lastUse: 0)
    }

    @Test func theIndexDropsTheLeastRecentlyUsedPastItsLimit() {
        var state = CacheStore.State()
        #expect(state.insert(Self.slot("a", cost: 40), id: "a", limit: 100).isEmpty)
        #expect(state.insert(Self.slot("b", cost: 40), id: "b", limit: 100).isEmpty)
        state.touch("a")
        #expect(state.insert(Self.slot("c", cost: 40), id: "c", limit: 100) == ["b"])
        #expect(state.total == 80)
        #expect(state.variants["b"] == nil)
        // Replacing an entry counts its cost once and drops nothing.
        #expect(state.insert(Self.slot("c", cost: 50), id: "c", limit: 100).isEmpty)
        #expect(state.total == 90)
        #expect(state.variants["c"] == ["c"])
        #expect(state.remove("a") == ["a"])
        #expect(state.remove("a").isEmpty)
        #expect(state.total == 50)
    }

    @Test func aFlightResumesItsWaitersOnceAndLetsCancelledOnesGo() async throws {
        let response = HTTPURLResponse(
            url: URL(string: "http://x/")!, statusCode: 200, httpVersion: nil, headerFields: [:])!
        let flight = RequestCoalescer.Flight()
        // A waiter cancelled before it registered is turned away when it does.
        #expect({ if case .none = flight.state.withLock({ $0.cancel(1) }) { true } else { false } }())
        let turnedAway: Bool = await withCheckedContinuation { outer in
            Task {
                do {
                    _ = try await withCheckedThrowingContinuation { continuation in
                        if case .cancel(let waiter?, nil) = flight.state.withLock({ $0.register(1, continuation) }) {
                            waiter.resume(throwing: CancellationError())
                        }
                    }
                    outer.resume(returning: false)
                } catch {
                    outer.resume(returning: error is CancellationError)
                }
            }
        }
        #expect(turnedAway)
        // Two waiters: the result goes to both, once.
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for id: UInt64 in [2, 3] {
                group.addTask {
                    let (data, _) = try await withCheckedThrowingContinuation { continuation in
                        _ = flight.state.withLock { $0.register(id, continuation) }
                    }
                    return data.count
                }
            }
            while flight.state.withLock({ $0.waiters.count }) < 2 { await Task.yield() }
            if case .resume(let waiters, let result) = flight.state.withLock({
                $0.finish(.success((Data("ok".utf8), response)))
            }) {
                for waiter in waiters { waiter.resume(with: result) }
            }
            var counts: [Int] = []
            for try await count in group { counts.append(count) }
            return counts
        }
        #expect(results == [2, 2])
        // After the result, a cancel changes nothing.
        #expect({ if case .none = flight.state.withLock({ $0.cancel(2) }) { true } else { false } }())
    }
}
