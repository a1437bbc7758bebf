import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Measures one request and reports its events: made by the pipeline for each request and handed
/// down in its ``RequestContext``, so that the transport, the per-host queue, a retrying
/// middleware, the redirect guard and the authentication step report what they see.
///
/// Without a listener it only measures (a few clock reads and locked updates); with one, each
/// report becomes a ``RequestEvent`` for the client's ``EventDelivery``. Nothing is reported
/// after the request finished. ``HTTPCache`` reports its outcome here.
package final class RequestRecorder: @unchecked Sendable {
    // @unchecked Sendable: `state` is read and written only under `lock` (an NSLock); the other
    // stored properties are `let`s of Sendable types.
    /// The request's id in its events; 0 when nobody listens.
    let id: UInt64
    private let delivery: EventDelivery?
    private let endpointName: String
    private let start: UInt64
    private let lock = NSLock()
    private var state: MetricsRecording
    /// The request's W3C trace id, made when ``TraceContextMiddleware`` first asks (under `lock`).
    private var trace: String?

    private static let ids = Locked<UInt64>(0)

    init(endpointName: String, delivery: EventDelivery?) {
        self.delivery = delivery
        self.id =
            delivery == nil
            ? 0
            : Self.ids.withLock {
                $0 += 1
                return $0
            }
        self.endpointName = endpointName
        start = Self.now()
        state = MetricsRecording(endpointName: endpointName, start: start)
    }

    /// A recorder nobody listens to, as the pipeline makes for each request of a client without a
    /// listener (for `endpoints-bench`, which times its work alone).
    package convenience init(endpointName: String) {
        self.init(endpointName: endpointName, delivery: nil)
    }

    /// The monotonic clock, in nanoseconds.
    @inline(__always)
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// The request's trace id: the same for every attempt (see ``TraceContextMiddleware``).
    var traceID: String {
        lock.lock()
        defer { lock.unlock() }
        if let trace { return trace }
        let made = TraceContext.newTraceID()
        trace = made
        return made
    }

    /// Whether events are made at all (someone listens).
    var isListened: Bool { delivery != nil }

    /// The metrics so far.
    var metrics: RequestMetrics {
        lock.lock()
        defer { lock.unlock() }
        return state.metrics
    }

    @inline(__always)
    private func record(_ change: (inout MetricsRecording, UInt64) -> RequestEvent.Kind?) {
        let now = Self.now()
        lock.lock()
        let kind = change(&state, now)
        lock.unlock()
        if let kind, let delivery { emit(kind, at: now, to: delivery) }
    }

    private func emit(_ kind: RequestEvent.Kind, at now: UInt64, to delivery: EventDelivery) {
        let time = TimeInterval(now &- start) / 1e9
        delivery.deliver(RequestEvent(requestID: id, endpointName: endpointName, time: time, kind: kind))
    }

    // MARK: Reports

    /// The request was built: an event only, made when someone listens (its URL is redacted on
    /// the delivery queue, off the request's path).
    func started(_ request: URLRequest) {
        guard let delivery else { return }
        let time = TimeInterval(Self.now() &- start) / 1e9
        delivery.deliver(
            .started(
                requestID: id, endpointName: endpointName, time: time, method: request.httpMethod ?? "GET",
                url: request.url))
    }

    func authenticated(since began: UInt64) {
        record { state, now in state.authenticated(waited: now &- began) }
    }

    func refreshStarted() { record { state, now in state.refreshStarted(at: now) } }
    func refreshEnded() { record { state, now in state.refreshEnded(at: now) } }

    package func attemptSent(_ request: URLRequest, context: RequestContext) {
        let bytes = request.httpBody?.count ?? 0
        let round = context.authenticationAttempt
        record { state, now in state.attemptSent(at: now, authenticationAttempt: round, bytes: bytes) }
    }

    func queued() { record { state, now in state.queued(at: now) } }
    func admitted() { record { state, now in state.admitted(at: now) } }

    func redirected(status: Int, droppedCredentials: Bool) {
        record { state, now in state.redirected(status: status, droppedCredentials: droppedCredentials, at: now) }
    }

    /// The head came back; `bufferedBytes` when the body came with it (one clock read and one
    /// lock for both).
    package func headReceived(status: Int, bufferedBytes: Int?) {
        let now = Self.now()
        lock.lock()
        let head = state.headReceived(status: status, at: now)
        let body = bufferedBytes.flatMap { state.bodyFinished(bytes: $0, at: now) }
        lock.unlock()
        guard let delivery else { return }
        if let head { emit(head, at: now, to: delivery) }
        if let body { emit(body, at: now, to: delivery) }
    }

    func bodyFinished(bytes: Int) { record { state, now in state.bodyFinished(bytes: bytes, at: now) } }

    func retryScheduled(reason: String, delay: TimeInterval) {
        record { state, _ in state.retryScheduled(reason: reason, delay: delay) }
    }

    /// What ``HTTPCache`` did; not an event of its own: the closing event's metrics carry it.
    func cacheAnswered(_ outcome: HTTPCache.Outcome) {
        let now = Self.now()
        lock.lock()
        state.cacheAnswered(outcome, at: now)
        lock.unlock()
    }

    func connections(_ connections: [RequestMetrics.ConnectionMetrics]) {
        lock.lock()
        state.connections(connections)
        lock.unlock()
    }

    /// Ends the request and returns its metrics; its last events go to the listener.
    @discardableResult
    func finish(_ outcome: MetricsRecording.Outcome) -> RequestMetrics {
        end(outcome)
        return metrics
    }

    /// Ends the request; its last events go to the listener. The metrics are copied out only for
    /// them: a decoded response reads them from the recorder when asked (``TypedResponse/metrics``).
    private func end(_ outcome: MetricsRecording.Outcome) {
        let now = Self.now()
        lock.lock()
        let ended = state.finish(outcome, at: now)
        lock.unlock()
        guard ended, let delivery else { return }
        let metrics = self.metrics
        switch outcome {
        case .decoded:
            emit(.decoded, at: now, to: delivery)
            emit(.finished(metrics), at: now, to: delivery)
        case .failed(let stage, _):
            emit(.failed(stage: stage), at: now, to: delivery)
            emit(.finished(metrics), at: now, to: delivery)
        case .cancelled:
            emit(.cancelled(metrics), at: now, to: delivery)
        }
    }
}

extension RequestRecorder {
    /// Ends a request that was decoded, as the pipeline does: its metrics stay in the recorder.
    package func finishDecoded() {
        end(.decoded)
    }

    /// The stage a failure of the pipeline ends at, and whether it is a cancellation.
    /// `decoding`: whether the failure came while validating or decoding the body.
    func finish<ErrorResponse>(failure: EndpointTaskError<ErrorResponse>, decoding: Bool = false) -> RequestMetrics {
        if case .cancelled = failure { return finish(.cancelled) }
        return finish(.failed(failure.stage, decoding: decoding))
    }
}
