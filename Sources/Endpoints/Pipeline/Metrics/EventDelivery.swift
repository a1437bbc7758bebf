import Foundation

/// Hands a client's events to its listener off the requests' path: events are buffered under a
/// lock and handed over, in order and in batches, on a thread of the delivery's own, started with
/// the first event and ending after a second with nothing to deliver. Not a dispatch queue: a
/// listener that blocks would hold a worker thread of the pool that, on Linux, also runs Swift
/// tasks, and so could stall requests; a thread of its own blocks nothing but later events.
/// Each request pays an append, and a wake-up only when the thread sleeps. Work an event needs
/// only for the listener (redacting the URL of `started`) is done there too.
///
/// The buffer is bounded: a listener that blocks must not make memory grow without end. Past
/// ``capacity`` waiting events, new ones are dropped and counted, and the listener receives a
/// ``RequestEvent/Kind/dropped(count:)`` event right after the events that were waiting, where
/// the dropped ones would have been.
final class EventDelivery: @unchecked Sendable {
    // @unchecked Sendable: `buffer`, `dropped`, `running` and `sleeping` are read and written only
    // while holding `condition` (an NSCondition, which is a lock); `listener` and `capacity` are
    // `let`s of Sendable types.
    private let listener: any RequestEventListener
    private let condition = NSCondition()
    private var buffer: [Pending] = []
    /// Events dropped since the buffer was last handed over, because it was full.
    private var dropped = 0
    /// Whether the delivery thread exists.
    private var running = false
    /// Whether it waits on `condition` for events (and needs a signal).
    private var sleeping = false
    /// The most events that wait for the listener.
    let capacity: Int

    /// The most events that wait for a client's listener: 10,000, a few megabytes at most (an event
    /// is about a hundred bytes, a last one with its metrics a few hundred), and far more than a
    /// listener that keeps up ever has waiting (a thousand concurrent requests make about seven
    /// thousand events, delivered in batches as they come).
    static let capacity = 10_000
    /// How long the thread waits for more events before it ends.
    static let idleLifetime: TimeInterval = 1
    /// How long the thread lets a burst gather before it hands it over.
    static let batchingDelay: useconds_t = 200

    /// A delivery to `listener`, holding at most ``capacity`` events for it.
    convenience init(listener: any RequestEventListener) {
        self.init(listener: listener, capacity: Self.capacity)
    }

    /// A delivery to `listener`, holding at most `capacity` events for it (tests use a few).
    init(listener: any RequestEventListener, capacity: Int) {
        self.listener = listener
        self.capacity = max(1, capacity)
    }

    /// An event as buffered: made, or a request's start whose URL is redacted when delivered (the
    /// URL as sent stays inside this buffer and never reaches the listener).
    enum Pending {
        case event(RequestEvent)
        case started(requestID: UInt64, endpointName: String, time: TimeInterval, method: String, url: URL?)

        var event: RequestEvent {
            switch self {
            case .event(let event):
                return event
            case .started(let id, let name, let time, let method, let url):
                let redacted = url.map { Redaction.standard.redactedURL($0) } ?? ""
                return RequestEvent(
                    requestID: id, endpointName: name, time: time, kind: .started(method: method, url: redacted),
                    traceID: nil)
            }
        }
    }
    private var scheduled = false

    /// Queues `event` for the listener.
    func deliver(_ event: RequestEvent) {
        deliver(.event(event))
    }

    /// Queues `pending` for the listener, or counts it as dropped when ``capacity`` events wait.
    func deliver(_ pending: Pending) {
        condition.lock()
        guard buffer.count < capacity else {
            // The thread runs (it holds what fills the buffer) and will report the count.
            dropped += 1
            condition.unlock()
            return
        }
        buffer.append(pending)
        let start = !running
        running = true
        if sleeping { condition.signal() }
        condition.unlock()
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "Endpoints.RequestEvents"
            thread.start()
        }
    }

    /// The delivery thread: hands over what is buffered, in order, until idle for ``idleLifetime``.
    private func run() {
        while true {
            condition.lock()
            if buffer.isEmpty {
                sleeping = true
                _ = condition.wait(until: Date(timeIntervalSinceNow: Self.idleLifetime))
                sleeping = false
                if buffer.isEmpty {
                    running = false
                    condition.unlock()
                    return
                }
            }
            let batch = buffer
            let lost = dropped
            buffer.removeAll(keepingCapacity: true)
            dropped = 0
            condition.unlock()
            for pending in batch { listener.receive(pending.event) }
            if lost > 0 {
                listener.receive(
                    RequestEvent(requestID: 0, endpointName: "", time: 0, kind: .dropped(count: lost), traceID: nil))
            }
            // Lets the rest of a burst gather: the requests append without waking anyone.
            usleep(Self.batchingDelay)
        }
    }
}
