import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Counts the requests in flight per session and host, and queues those over the limit.
///
/// This mirrors the session's connection pool, which is itself shared by everything that uses the
/// session, so the counts live in one table keyed by session and origin. The table holds no
/// configuration (the limit comes with each request) and forgets a host as soon as nothing is in
/// flight to it, so nothing outlives the requests that created it.
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
    }

    /// A first-in, first-out queue whose pop is O(1): a burst of a thousand requests queues a
    /// thousand waiters, and `Array.removeFirst()` would move all of them for every release.
    private struct WaitQueue {
        private var items: [Waiter] = []
        private var head = 0

        mutating func append(_ waiter: Waiter) { items.append(waiter) }

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
        var nextWaiter: UInt64 = 0
    }

    private static let table = Locked(Table())

    /// A claim on one in-flight slot; release it exactly once.
    final class Permit: Sendable {
        let key: Key
        init(key: Key) { self.key = key }
        func release() { HostLimiter.release(key) }
    }

    static func acquire(for request: URLRequest, session: URLSession, limit: Int?) async throws -> Permit? {
        guard let limit, limit > 0, let url = request.url, let origin = RedirectPolicy.Origin(url) else { return nil }
        // A token refresh goes first: every queued request of a refreshing method waits for it.
        guard RefreshScope.active.isEmpty else { return nil }
        let key = Key(session: ObjectIdentifier(session), origin: origin)
        let admitted = table.withLock { table -> Bool in
            if table.slots[key, default: Slot()].inFlight < limit {
                table.slots[key, default: Slot()].inFlight += 1
                return true
            }
            return false
        }
        if admitted { return Permit(key: key) }

        let id = table.withLock { table -> UInt64 in
            table.nextWaiter += 1
            return table.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Decided under the lock, so that exactly one party resumes the continuation: here
                // (admitted, or already cancelled), or `release` / `onCancel` once it is queued.
                let admission = table.withLock { table -> Admission in
                    if Task.isCancelled { return .cancelled }
                    if table.slots[key, default: Slot()].inFlight < limit {
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
        return Permit(key: key)
    }

    private enum Admission {
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

    private static func release(_ key: Key) {
        // Mutated in place through the dictionary, so the queue is never copied.
        let next = table.withLock { table -> CheckedContinuation<Void, any Error>? in
            if let waiter = table.slots[key]?.waiters.popFirst() { return waiter.continuation }
            guard let inFlight = table.slots[key]?.inFlight else { return nil }
            if inFlight <= 1 {
                table.slots[key] = nil
            } else {
                table.slots[key]?.inFlight -= 1
            }
            return nil
        }
        next?.resume()
    }
}
