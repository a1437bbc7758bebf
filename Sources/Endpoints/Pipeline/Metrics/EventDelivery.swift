import Foundation

/// Hands a client's events to its listener off the requests' path: events are buffered under a
/// lock, and the buffer is drained on a serial queue shortly after the first event of a burst,
/// so each request pays an append and the listener gets them in order, batched. A listener that
/// blocks holds up the queue (later events wait in the buffer), never a request. Work an event
/// needs only for the listener (redacting the URL of `started`) is done there too.
final class EventDelivery: @unchecked Sendable {
    // @unchecked Sendable: `buffer` and `scheduled` are read and written only under `lock`
    // (an NSLock); `listener` and `queue` are `let`s of Sendable types.
    private let listener: any RequestEventListener
    private let queue = DispatchQueue(label: "Endpoints.RequestEvents")
    private let lock = NSLock()
    private var buffer: [Pending] = []

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

    /// How long the first event of a burst waits for others before the buffer is drained.
    static let batchingDelay = DispatchTimeInterval.microseconds(200)

    init(listener: any RequestEventListener) {
        self.listener = listener
    }

    /// Queues `event` for the listener.
    func deliver(_ event: RequestEvent) {
        deliver(.event(event))
    }

    /// Queues `pending` for the listener.
    func deliver(_ event: Pending) {
        lock.lock()
        buffer.append(event)
        let schedule = !scheduled
        scheduled = true
        lock.unlock()
        if schedule {
            queue.asyncAfter(deadline: .now() + Self.batchingDelay) { [self] in drain() }
        }
    }

    /// Hands everything buffered to the listener, in order. Runs on `queue` only, so batches never
    /// overlap: a batch taken later runs after this one.
    private func drain() {
        lock.lock()
        let batch = buffer
        buffer.removeAll(keepingCapacity: true)
        scheduled = false
        lock.unlock()
        for pending in batch { listener.receive(pending.event) }
    }
}
