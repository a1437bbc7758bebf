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
/// configuration (the limit comes with each request); for each host it keeps the count, the queue
/// and how fast the host answers (see ``effectiveLimit(maximum:latency:)``), and with 256 hosts
/// known it forgets those that have nothing in flight. Admitting a request and releasing it each
/// look the host up once.
enum HostLimiter {
    struct Key: Hashable {
        let session: ObjectIdentifier
        let origin: RedirectPolicy.Origin
    }

    private struct Waiter {
        let id: UInt64
        let continuation: UnsafeContinuation<Void, any Error>
    }

    /// One host of one pool: its requests in flight, those waiting, and how fast it answers.
    private struct Host {
        /// The pool, weakly: a pool freed and another made at its address finds this entry's
        /// owner gone and starts afresh, without the old one's count or latency.
        weak var owner: AnyObject?
        /// Whether the limit follows how fast the host answers (a `URLSession`'s pool; see
        /// ``effectiveLimit(maximum:latency:)``), or is the maximum (``CurlTransport``'s).
        var adaptsToLatency = true
        var inFlight = 0
        var waiters = WaitQueue()
        var latency: Latency?

        func limit(maximum: Int) -> Int {
            adaptsToLatency ? HostLimiter.effectiveLimit(maximum: maximum, latency: latency) : maximum
        }

        /// Takes a slot when one is free.
        mutating func admit(owner: AnyObject, maximum: Int, adaptsToLatency: Bool) -> Bool {
            // The entry of a pool that is gone, at the same address: nothing of it is in flight
            // (a pool lives while its requests do), and its latency is not this pool's.
            if self.owner !== owner { self = Host(owner: owner, adaptsToLatency: adaptsToLatency) }
            guard inFlight < limit(maximum: maximum) else { return false }
            inFlight += 1
            return true
        }

        /// Frees a send's slot, records how long the host took to answer it (`answeredAfter`,
        /// `nil` for a send that got no answer) and admits waiters while fewer than the limit are
        /// in flight.
        ///
        /// Only an answer says how fast the host is. A send cancelled or timed out measures its
        /// caller: one held until cancelled reads as slow, one admitted and cancelled before it
        /// went out as instant. Recorded, such times moved the limit while a queue drained: after
        /// a history that left the estimate near ``HostLimiter/fastLink``, the cancels of a burst
        /// of queued requests took a fast host from four slots to twelve, and one release handed
        /// eight slots at once to waiters the same sweep was about to cancel, which went out
        /// first (issue 37).
        mutating func release(maximum: Int, answeredAfter elapsed: UInt64?) -> [UnsafeContinuation<Void, any Error>] {
            if let elapsed {
                if latency == nil {
                    latency = Latency(shortest: elapsed, samples: 1)
                } else {
                    latency?.record(elapsed)
                }
            }
            inFlight -= 1
            let limit = limit(maximum: maximum)
            var admitted: [UnsafeContinuation<Void, any Error>] = []
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
    /// How fast a host answers is the shortest of its recent answers (a minimum that creeps up by
    /// 1/16 per answer), which measures the link and the server rather than how many requests
    /// queued with it; a send that got no answer (cancelled, timed out, failed) is not counted.
    /// Until a host has answered ``samplesNeeded`` times it counts as fast.
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
        var hosts: [Key: Host] = [:]
        var nextWaiter: UInt64 = 0

        /// Takes a slot for `key` when one is free. One lookup: this runs for every request.
        mutating func admit(_ key: Key, owner: AnyObject, maximum: Int, adaptsToLatency: Bool) -> Bool {
            // Bounded: a process that talks to many hosts forgets the idle ones now and then, and
            // the entries of pools that are gone.
            if hosts.count >= 256, hosts[key] == nil {
                hosts = hosts.filter { !$0.value.isIdle && $0.value.owner != nil }
            }
            return hosts[key, default: Host(owner: owner, adaptsToLatency: adaptsToLatency)].admit(
                owner: owner, maximum: maximum, adaptsToLatency: adaptsToLatency)
        }
    }

    private static let table = Locked(Table())

    /// A transport's connection pool and how many requests to one host it carries at once.
    struct Limit: Sendable {
        /// The pool the requests share (a `URLSession`, a ``CurlTransport``'s loop).
        let pool: any AnyObject & Sendable
        let maximumPerHost: Int
        /// Whether fewer than the maximum go out to a host that answers fast (a `URLSession`'s
        /// pool on Linux, which churns connections beyond four there), or always the maximum.
        var adaptsToLatency = true
    }

    /// A request's claim on one in-flight slot, or on none when it was not limited.
    struct Admission: Sendable {
        fileprivate let key: Key?
        /// Whether the request waited in the queue (its credentials may have changed meanwhile).
        let waited: Bool
        fileprivate var maximum = 0
        fileprivate var start: UInt64 = 0

        /// Frees the slot; call it exactly once, when the send is over. `answered`: whether the
        /// host answered it (a response head arrived), so that its time tells how fast the host
        /// is; a send cancelled, timed out or failed before a head teaches the limiter nothing.
        func release(answered: Bool) {
            guard let key else { return }
            let elapsed = answered ? DispatchTime.now().uptimeNanoseconds &- start : nil
            HostLimiter.release(key, maximum: maximum, answeredAfter: elapsed)
        }
    }

    /// Waits until `request` may go out under `limit`; `bypass` admits it at once without a slot.
    /// Inlined, so that a request admitted at once makes no async call: only one that queues awaits.
    @inline(__always)
    static func admit(
        _ request: URLRequest, limit: Limit?, bypass: Bool, recorder: RequestRecorder? = nil
    ) async throws -> Admission {
        switch admitNow(request, limit: limit, bypass: bypass) {
        case .admitted(let admission):
            return admission
        case .wait(let key, let owner, let maximum, let adaptsToLatency):
            // The request's metrics count the wait, and its listener hears of it.
            recorder?.queued()
            let admission = try await wait(key, owner: owner, maximum: maximum, adaptsToLatency: adaptsToLatency)
            recorder?.admitted()
            return admission
        }
    }

    /// Waits for one of the host's slots under `limit` (a credential refresh takes none), then
    /// gives the request to send, with its credentials brought up to date when it waited and they
    /// changed meanwhile, and the admission to release once the response head is in (or the send
    /// failed), saying whether the host answered. What every transport with a per-host limit calls
    /// before it sends.
    ///
    /// Inlined, so that a request admitted at once makes no async call: only one that queues awaits.
    @inline(__always)
    static func admit(
        _ request: URLRequest, limit: Limit?, context: RequestContext
    ) async throws -> (URLRequest, Admission) {
        let admission = try await admit(
            request, limit: limit, bypass: context.isCredentialRefresh, recorder: context.recorder)
        guard admission.waited else { return (request, admission) }
        // A slot freed as the task was cancelled is handed on at once: a cancelled request is never sent.
        if Task.isCancelled {
            admission.release(answered: false)
            throw CancellationError()
        }
        guard let updated = context.currentCredentials?(request) else { return (request, admission) }
        do {
            try HeaderValidation.validate(updated)
        } catch {
            admission.release(answered: false)
            throw error
        }
        return (updated, admission)
    }

    /// What ``admitNow(_:limit:bypass:)`` decided.
    private enum Decision {
        case admitted(Admission)
        /// No slot is free: ``wait(_:owner:maximum:adaptsToLatency:)`` for one.
        case wait(Key, owner: any AnyObject & Sendable, maximum: Int, adaptsToLatency: Bool)
    }

    /// Admits `request` at once when a slot is free (or it is not limited), without suspending:
    /// the pipeline awaits only when it has to queue.
    private static func admitNow(_ request: URLRequest, limit: Limit?, bypass: Bool) -> Decision {
        guard let limit, limit.maximumPerHost > 0, !bypass, let url = request.url,
            let origin = RedirectPolicy.Origin(url)
        else { return .admitted(Admission(key: nil, waited: false)) }
        let key = Key(session: ObjectIdentifier(limit.pool), origin: origin)
        let maximum = limit.maximumPerHost
        let pool = limit.pool
        let adapts = limit.adaptsToLatency
        guard table.withLock({ $0.admit(key, owner: pool, maximum: maximum, adaptsToLatency: adapts) }) else {
            return .wait(key, owner: pool, maximum: maximum, adaptsToLatency: adapts)
        }
        return .admitted(
            Admission(key: key, waited: false, maximum: maximum, start: DispatchTime.now().uptimeNanoseconds))
    }

    /// Queues for a slot of `key` (in order, cancellable while waiting).
    private static func wait(
        _ key: Key, owner: any AnyObject & Sendable, maximum: Int, adaptsToLatency: Bool
    ) async throws -> Admission {
        let id = table.withLock { table -> UInt64 in
            table.nextWaiter += 1
            return table.nextWaiter
        }
        try await withTaskCancellationHandler {
            // Unsafe rather than checked (which allocates a guard per waiter, at 16 in flight on
            // loopback most requests wait): what follows resumes it exactly once.
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                // Decided under the lock, so that exactly one party resumes the continuation: here
                // (admitted, or already cancelled), or `release` / `onCancel` once it is queued.
                let admission = table.withLock { table -> Queueing in
                    if Task.isCancelled { return .cancelled }
                    if table.admit(key, owner: owner, maximum: maximum, adaptsToLatency: adaptsToLatency) {
                        return .admitted
                    }
                    table.hosts[key, default: Host(owner: owner, adaptsToLatency: adaptsToLatency)].waiters.append(
                        Waiter(id: id, continuation: continuation))
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
        let removed = table.withLock { table -> UnsafeContinuation<Void, any Error>? in
            table.hosts[key]?.waiters.remove(id: id)?.continuation
        }
        removed?.resume(throwing: CancellationError())
    }

    private static func release(_ key: Key, maximum: Int, answeredAfter elapsed: UInt64?) {
        // Mutated in place through the dictionary, so the queue is never copied.
        let admitted = table.withLock { $0.hosts[key]?.release(maximum: maximum, answeredAfter: elapsed) ?? [] }
        for continuation in admitted { continuation.resume() }
    }
}
