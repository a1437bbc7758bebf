#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking

    /// Linux only: the session that sends a ``URLSessionTransport``'s buffered requests, one per
    /// session the transport was given, made with that session's configuration and an
    /// ``ImmediateQueue`` as its delegate queue.
    ///
    /// corelibs hands every completion handler to the session's delegate queue, one thread hop
    /// after the transfer ends (only its own `data(for:)` completes on the transfer's queue, and
    /// that one deadlocks under cancellation, see ``DataTaskCall``). That hop was the transport's
    /// whole cost over raw `data(for:)`: 3–9% of the CPU of a loopback request. On this session
    /// a ``DataTaskCall``'s completion runs where corelibs' `data(for:)` runs its own, on the
    /// session's work queue, so nothing that runs there may wait for that queue: the call cancels
    /// its task and sends a 307/308 resend from another thread, and ``RedirectGuard`` answers
    /// challenges from another thread.
    ///
    /// It shares the given session's cookie store, cache, credential storage and protocol classes
    /// (the configuration holds them by reference) and has a connection pool of its own, so
    /// buffered requests and streams (which run on the given session) mixed to one host may hold
    /// up to twice `httpMaximumConnectionsPerHost` connections. Invalidating the given session does
    /// not cancel buffered requests already running; the delivery session is taken down once the
    /// given session is gone.
    enum DeliverySession {
        /// The delivery session of `session`, made on first use.
        static func of(_ session: URLSession) -> URLSession { Registry.shared.session(for: session) }

        /// A session with `session`'s configuration whose delegate queue runs everything at once.
        static func make(like session: URLSession) -> URLSession {
            URLSession(configuration: session.configuration, delegate: nil, delegateQueue: ImmediateQueue())
        }

        /// One delivery session per live session: one per session is what lets its connections be
        /// reused, so `shared` is a registry of sessions, like corelibs' own `URLSession.shared`.
        final class Registry: Sendable {
            static let shared = Registry()

            private struct Entry {
                weak var owner: URLSession?
                let session: URLSession
            }

            private let table = Locked<[ObjectIdentifier: Entry]>([:])

            /// How many delivery sessions the registry holds.
            var count: Int { table.withLock { $0.count } }

            /// The delivery session of `session`, made on first use; those of sessions that ended
            /// are invalidated then.
            func session(for session: URLSession) -> URLSession {
                let key = ObjectIdentifier(session)
                let (delivery, ended) = table.withLock { table -> (URLSession, [URLSession]) in
                    if let entry = table[key], entry.owner === session { return (entry.session, []) }
                    var ended: [URLSession] = []
                    for (key, entry) in table where entry.owner == nil {
                        ended.append(entry.session)
                        table[key] = nil
                    }
                    let delivery = DeliverySession.make(like: session)
                    table[key] = Entry(owner: session, session: delivery)
                    return (delivery, ended)
                }
                for stale in ended { stale.finishTasksAndInvalidate() }
                return delivery
            }
        }
    }

    /// A delegate queue that runs each block at once, on the thread that adds it: for a
    /// ``DeliverySession``, corelibs' work queue, where its own `data(for:)` completes.
    final class ImmediateQueue: OperationQueue, @unchecked Sendable {
        // @unchecked Sendable, restated from OperationQueue: this subclass has no state of its
        // own, and what it inherits is guarded by OperationQueue's own lock.
        override func addOperation(_ block: @escaping @Sendable () -> Void) { block() }
    }

    extension DispatchQueue {
        /// Runs `work` on another thread, for work that waits for a session's work queue (task
        /// creation, `resume()`, `cancel()` are each a `workQueue.sync` in corelibs) and may be
        /// reached from that queue or from a Swift cancellation handler.
        static func offWorkQueue(_ work: @escaping @Sendable () -> Void) {
            DispatchQueue.global().async(execute: work)
        }
    }
#endif
