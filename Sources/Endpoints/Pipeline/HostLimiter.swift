import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Counts the requests in flight per connection pool and host, and queues those over the limit.
///
/// The pipeline admits each send here right before the transport, after authentication and
/// middleware, so no request holds a slot while it waits for credentials or a retry's backoff.
///
/// This mirrors the session's connection pool, which is itself shared by everything that uses the
/// session, so the counts live in one table keyed by session and origin. The table holds no
/// configuration (the limit comes with each request) and forgets a host's queue as soon as nothing
/// is in flight to it; what it keeps is how fast each host answers (see
/// ``effectiveLimit(maximum:latency:)``), for at most 256 hosts.
enum HostLimiter {
    struct Key: Hashable {
        let session: ObjectIdentifier
        let origin: RedirectPolicy.Origin
    }

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Slot {
        var inFlight = 0
        var waiters = WaitQueue()

        /// Frees one slot and admits waiters while fewer than `limit` are in flight.
        mutating func release(limit: Int) -> [CheckedContinuation<Void, any Error>] {
            inFlight -= 1
            var admitted: [CheckedContinuation<Void, any Error>] = []
            while inFlight < limit, let waiter = waiters.popFirst() {
                inFlight += 1
                admitted.append(waiter.continuation)
            }
            return admitted
        }

        var isIdle: Bool { inFlight == 0 && waiters.isEmpty }
    }

    /// How many requests to a host are in flight at once, out of the configured maximum.
    ///
    /// Against a host with real latency the limit is the maximum: twice the session's
    /// `httpMaximumConnectionsPerHost`, so that URLSession, which keeps its own queue per host,
    /// always has the next request ready for a connection the moment it frees up (with exactly
    /// the configured number in flight, connections sit idle between requests and Linux's
    /// URLSession closes and reopens them). Against a host that answers within ``fastLink``
    /// (loopback, a local network) requests finish so close together that Linux's URLSession
    /// closes and reopens connections beyond about four in flight whatever it has queued, while
    /// four connections already carry everything the client can send; so there the limit is four.
    ///
    /// How fast a host answers is the shortest of its recent sends (a minimum that creeps up by
    /// 1/16 per send), which measures the link and the server rather than how many requests
    /// queued with it. Until a host has answered ``samplesNeeded`` times it counts as fast.
    static func effectiveLimit(maximum: Int, latency: Latency?) -> Int {
        guard let latency, latency.samples >= samplesNeeded, latency.shortest >= fastLink else {
            return min(maximum, fastLinkLimit)
        }
        return maximum
    }

    /// 15 ms: loopback and a local network answer faster, even from a busy machine; a backend
    /// across the internet answers slower.
    static let fastLink: UInt64 = 15_000_000
    static let fastLinkLimit = 4
    static let samplesNeeded = 8

    /// What the limiter knows of how fast a host answers.
    struct Latency: Sendable {
        var shortest: UInt64
        var samples: Int

        mutating func record(_ elapsed: UInt64) {
            shortest = min(elapsed, shortest + shortest / 16 + 1)
            samples += 1
        }
    }

    /// A first-in, first-out queue whose pop is O(1): a burst of a thousand requests queues a
    /// thousand waiters, and `Array.removeFirst()` would move all of them for every release.
    private struct WaitQueue {
        private var items: [Waiter] = []
        private var head = 0

        mutating func append(_ waiter: Waiter) { items.append(waiter) }

        var isEmpty: Bool { head == items.count }

        mutating func popFirst() -> Waiter? {
            guard head < items.count else { return nil }
            let waiter = items[head]
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024, head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            return waiter
        }

        mutating func remove(id: UInt64) -> Waiter? {
            guard let index = items[head...].firstIndex(where: { $0.id == id }) else { return nil }
            return items.remove(at: index)
        }
    }

    private struct Table {
        var slots: [Key: Slot] = [:]
        var latencies: [Key: Latency] = [:]
        var nextWaiter: UInt64 = 0

        func limit(_ key: Key, maximum: Int) -> Int {
            HostLimiter.effectiveLimit(maximum: maximum, latency: latencies[key])
        }

        mutating func record(_ elapsed: UInt64, for key: Key) {
            if latencies[key] == nil {
                // Bounded: a process that makes many sessions measures afresh now and then.
                if latencies.count >= 256 { latencies.removeAll(keepingCapacity: true) }
                latencies[key] = Latency(shortest: elapsed, samples: 1)
            } else {
                latencies[key]?.record(elapsed)
            }
        }
    }

    private static let table = Locked(Table())

    /// A transport's connection pool and how many requests to one host it carries at once.
    struct Limit: Sendable {
        /// Identifies the pool the requests share (a `URLSession`).
        let pool: ObjectIdentifier
        let maximumPerHost: Int
    }

    /// A request's claim on one in-flight slot, or on none when it was not limited.
    struct Admission: Sendable {
        fileprivate let key: Key?
        /// Whether the request waited in the queue (its credentials may have changed meanwhile).
        let waited: Bool
        fileprivate var maximum = 0
        fileprivate var start: UInt64 = 0

        /// Frees the slot; call it exactly once, when the send is over.
        func release() {
            guard let key else { return }
            HostLimiter.release(key, maximum: maximum, elapsed: DispatchTime.now().uptimeNanoseconds &- start)
        }
    }

    /// Waits until `request` may go out under `limit`; `bypass` admits it at once without a slot.
    static func admit(_ request: URLRequest, limit: Limit?, bypass: Bool) async throws -> Admission {
        guard let limit, limit.maximumPerHost > 0, !bypass, let url = request.url,
            let origin = RedirectPolicy.Origin(url)
        else { return Admission(key: nil, waited: false) }
        let key = Key(session: limit.pool, origin: origin)
        let maximum = limit.maximumPerHost
        let admitted = table.withLock { table -> Bool in
            if table.slots[key, default: Slot()].inFlight < table.limit(key, maximum: maximum) {
                table.slots[key, default: Slot()].inFlight += 1
                return true
            }
            return false
        }
        if admitted {
            return Admission(key: key, waited: false, maximum: maximum, start: DispatchTime.now().uptimeNanoseconds)
        }

        let id = table.withLock { table -> UInt64 in
            table.nextWaiter += 1
            return table.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Decided under the lock, so that exactly one party resumes the continuation: here
                // (admitted, or already cancelled), or `release` / `onCancel` once it is queued.
                let admission = table.withLock { table -> Queueing in
                    if Task.isCancelled { return .cancelled }
                    if table.slots[key, default: Slot()].inFlight < table.limit(key, maximum: maximum) {
                        table.slots[key, default: Slot()].inFlight += 1
                        return .admitted
                    }
                    table.slots[key, default: Slot()].waiters.append(Waiter(id: id, continuation: continuation))
                    return .queued
                }
                switch admission {
                case .admitted: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .queued: break
                }
            }
        } onCancel: {
            cancelWaiter(id, key: key)
        }
        return Admission(key: key, waited: true, maximum: maximum, start: DispatchTime.now().uptimeNanoseconds)
    }

    private enum Queueing {
        case admitted, queued, cancelled
    }

    /// Removes a queued waiter and fails it; does nothing when it was admitted meanwhile or never
    /// queued (the task was cancelled first, and the waiter failed itself).
    private static func cancelWaiter(_ id: UInt64, key: Key) {
        let removed = table.withLock { table -> CheckedContinuation<Void, any Error>? in
            table.slots[key]?.waiters.remove(id: id)?.continuation
        }
        removed?.resume(throwing: CancellationError())
    }

    private static func release(_ key: Key, maximum: Int, elapsed: UInt64) {
        let admitted = table.withLock { table -> [CheckedContinuation<Void, any Error>] in
            table.record(elapsed, for: key)
            let limit = table.limit(key, maximum: maximum)
            // Mutated in place through the dictionary, so the queue is never copied.
            let admitted = table.slots[key]?.release(limit: limit) ?? []
            if table.slots[key]?.isIdle == true { table.slots[key] = nil }
            return admitted
        }
        for continuation in admitted { continuation.resume() }
    }
}
