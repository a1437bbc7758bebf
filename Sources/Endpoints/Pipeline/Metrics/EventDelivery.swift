import Foundation

/// Hands a client's events to its listener off the requests' path: events are buffered under a
/// lock and handed over, in order and in batches, on a thread of the delivery's own, started with
/// the first event and ending after a second with nothing to deliver. Not a dispatch queue: a
/// listener that blocks would hold a worker thread of the pool that, on Linux, also runs Swift
/// tasks, and so could stall requests; a thread of its own blocks nothing but later events.
/// Each request pays an append, and a wake-up only when the thread sleeps. Work an event needs
/// only for the listener (redacting the URL of `started`) is done there too.
final class EventDelivery: @unchecked Sendable {
    // @unchecked Sendable: `buffer`, `running` and `sleeping` are read and written only while
    // holding `condition` (an NSCondition, which is a lock); `listener` is a `let` of a Sendable type.
    private let listener: any RequestEventListener
    private let condition = NSCondition()
    private var buffer: [Pending] = []
    /// Whether the delivery thread exists.
    private var running = false
    /// Whether it waits on `condition` for events (and needs a signal).
    private var sleeping = false

    /// How long the thread waits for more events before it ends.
    static let idleLifetime: TimeInterval = 1
    /// How long the thread lets a burst gather before it hands it over.
    static let batchingDelay: useconds_t = 200

    init(listener: any RequestEventListener) {
        self.listener = listener
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
                    requestID: id, endpointName: name, time: time, kind: .started(method: method, url: redacted))
            }
        }
    }
    private var scheduled = false

    /// Queues `event` for the listener.
    func deliver(_ event: RequestEvent) {
        deliver(.event(event))
    }

    /// Queues `pending` for the listener.
    func deliver(_ pending: Pending) {
        condition.lock()
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
            buffer.removeAll(keepingCapacity: true)
            condition.unlock()
            for pending in batch { listener.receive(pending.event) }
            // Lets the rest of a burst gather: the requests append without waking anyone.
            usleep(Self.batchingDelay)
        }
    }
}
