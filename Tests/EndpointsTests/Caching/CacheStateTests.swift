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

    /// The files a disk store finds are older than what it already knows, oldest first out.
    @Test func countingTheFilesOnDiskPutsThemBeforeWhatTheIndexKnows() {
        var state = CacheStore.State()
        #expect(state.insert(CacheStore.Slot(response: nil, cost: 10, lastUse: 0), id: "known", limit: 100).isEmpty)
        #expect(state.count([("old", 50), ("newer", 30), ("known", 10)], limit: 100).isEmpty)
        #expect(state.total == 90)
        #expect(state.insert(CacheStore.Slot(response: nil, cost: 20, lastUse: 0), id: "new", limit: 100) == ["old"])
        // Found again by a read: counted once; another instance's entry, found by a read, is
        // counted as just used.
        #expect(state.learn("newer", cost: 30, limit: 100).isEmpty)
        #expect(state.total == 60)
        #expect(state.learn("theirs", cost: 45, limit: 100) == ["newer"])
        #expect(state.total == 75)
    }

    /// RFC 4231's test cases 2 and 6 (a key longer than a block).
    @Test func theKeysHMACIsRFC2104s() {
        let short = HMACSHA256.authenticationCode(
            for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
        #expect(Hex.lowercase(short) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let long = HMACSHA256.authenticationCode(
            for: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            key: [UInt8](repeating: 0xaa, count: 131))
        #expect(Hex.lowercase(long) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
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
