import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Measures one request and reports its events: made by the pipeline for each request and handed
/// down in its ``RequestContext``, so that the transport, the per-host queue, a retrying
/// middleware, the redirect guard and the authentication step report what they see. Copies share
/// one recording.
///
/// Without a listener it only measures: one allocation (the recording and its lock, a ``Locked``),
/// a clock read at the start, and a clock read and a locked update for each report: two for a
/// buffered request (sent, answered), a third when it is finished, which a successful
/// `response(with:)` skips (see `PipelineCall.run`). With one, each report becomes
/// a ``RequestEvent`` for the client's ``EventDelivery``. Nothing is reported after the request
/// finished. ``HTTPCache`` reports its outcome here.
package struct RequestRecorder: Sendable {
    /// What the lock guards: the measurements, and what the request's events name.
    private struct State {
        var recording: MetricsRecording
        /// The request's W3C trace id, made when ``TraceContextMiddleware`` first asks.
        var trace: String?
        /// The request's id in its events; 0 when nobody listens.
        let id: UInt64

        /// Seconds since the request started, at `now`.
        func time(at now: UInt64) -> TimeInterval { TimeInterval(now &- recording.start) / 1e9 }

        /// The event `kind` of this request at `now`.
        func event(_ kind: RequestEvent.Kind, at now: UInt64) -> RequestEvent {
            RequestEvent(
                requestID: id, endpointName: recording.metrics.endpointName, time: time(at: now), kind: kind,
                traceID: trace)
        }
    }

    private let state: Locked<State>
    private let delivery: EventDelivery?

    private static let ids = Locked<UInt64>(0)

    init(endpointName: String, delivery: EventDelivery?) {
        self.delivery = delivery
        let id: UInt64 =
            delivery == nil
            ? 0
            : Self.ids.withLock {
                $0 += 1
                return $0
            }
        state = Locked(State(recording: MetricsRecording(endpointName: endpointName, start: Self.now()), id: id))
    }

    /// A recorder nobody listens to, as the pipeline makes for each request of a client without a
    /// listener (for `endpoints-bench`, which times its work alone).
    package init(endpointName: String) {
        self.init(endpointName: endpointName, delivery: nil)
    }

    /// The monotonic clock, in nanoseconds. On Linux read directly: `DispatchTime.now()` adds a
    /// call into libdispatch to the same `clock_gettime`, and a request reads the clock four times.
    @inline(__always)
    static func now() -> UInt64 {
        #if canImport(Glibc) || canImport(Musl)
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
        #else
            return DispatchTime.now().uptimeNanoseconds
        #endif
    }

    /// Whether someone listens to the request's events.
    var isListened: Bool { delivery != nil }

    /// The request's id in its events; 0 when nobody listens.
    var id: UInt64 { state.withLock { $0.id } }

    /// The request's trace id, the same for every attempt (see ``TraceContextMiddleware``): the
    /// one it has, else `parent` (a trace the request joins), else a new one. It goes into the
    /// metrics and the events that follow.
    func traceID(joining parent: String?) -> String {
        state.withLock { state in
            if let trace = state.trace { return trace }
            let trace = parent ?? TraceContext.newTraceID()
            state.trace = trace
            state.recording.traced(trace)
            return trace
        }
    }

    /// The metrics so far.
    var metrics: RequestMetrics { state.withLock { $0.recording.metrics } }

    /// Applies `change` at the clock's present; its event, if any, goes to the listener.
    @inline(__always)
    private func record(_ change: (inout MetricsRecording, UInt64) -> RequestEvent.Kind?) {
        let now = Self.now()
        guard let delivery else {
            state.withLock { _ = change(&$0.recording, now) }
            return
        }
        let event = state.withLock { state in change(&state.recording, now).map { state.event($0, at: now) } }
        if let event { delivery.deliver(event) }
    }

    // MARK: Reports

    /// The request was built: an event only, made when someone listens (its URL is redacted on
    /// the delivery queue, off the request's path). `atStart`: dated at the request's start
    /// rather than now (a mocked call reports it once its mock answered).
    func started(_ request: URLRequest, atStart: Bool = false) {
        guard let delivery else { return }
        let now = Self.now()
        let (id, name, time) = state.withLock {
            ($0.id, $0.recording.metrics.endpointName, atStart ? 0 : $0.time(at: now))
        }
        let method = request.httpMethod ?? "GET"
        delivery.deliver(.started(requestID: id, endpointName: name, time: time, method: method, url: request.url))
    }

    func authenticated(since began: UInt64) {
        record { state, now in state.authenticated(waited: now &- began) }
    }

    func refreshStarted() { record { state, now in state.refreshStarted(at: now) } }
    func refreshEnded() { record { state, now in state.refreshEnded(at: now) } }

    package func attemptSent(_ request: URLRequest, context: RequestContext) {
        let bytes = request.httpBody?.count ?? context.transfer.upload.map { Int(clamping: $0.size) } ?? 0
        let round = context.authenticationAttempt
        record { state, now in state.attemptSent(at: now, authenticationAttempt: round, bytes: bytes) }
    }

    /// The attempt failed with `error`, thrown by the transport (the pipeline reports it).
    func attemptFailed(_ error: any Error) {
        state.withLock { $0.recording.attemptFailed(error) }
    }

    func queued() { record { state, now in state.queued(at: now) } }
    func admitted() { record { state, now in state.admitted(at: now) } }

    func redirected(status: Int, droppedCredentials: Bool) {
        record { state, now in state.redirected(status: status, droppedCredentials: droppedCredentials, at: now) }
    }

    /// For a transport: the response head (its final one, after any redirect hops, each of which
    /// is reported with ``redirected(status:droppedCredentials:)``) has arrived, before its body.
    /// A transport that learns of the head as it arrives (a delegate's `didReceive response`,
    /// libcurl's header callback) calls it then, once an attempt, so that the head's time is the
    /// time to first byte and the body is timed apart (``RequestMetrics/Attempt/receivingBody``);
    /// one that does not need not: the pipeline reports the head when the transport returns it.
    package func headArrived(status: Int) {
        record { state, now in state.headReceived(status: status, at: now) }
    }

    /// The pipeline's report when the transport returned: the head, unless the transport reported
    /// it already (``headArrived(status:)``); `bufferedBytes` when the body came with it (one
    /// clock read and one lock for both).
    package func headReceived(status: Int, bufferedBytes: Int?) {
        let now = Self.now()
        let withBody = bufferedBytes != nil
        guard let delivery else {
            state.withLock { state in
                _ = state.recording.headReceived(status: status, at: now, withBody: withBody)
                if let bufferedBytes { _ = state.recording.bodyFinished(bytes: bufferedBytes, at: now) }
            }
            return
        }
        let events = state.withLock { state in
            let head = state.recording.headReceived(status: status, at: now, withBody: withBody)
            let body = bufferedBytes.flatMap { state.recording.bodyFinished(bytes: $0, at: now) }
            return [head, body].compactMap { $0.map { state.event($0, at: now) } }
        }
        for event in events { delivery.deliver(event) }
    }

    func bodyFinished(bytes: Int) { record { state, now in state.bodyFinished(bytes: bytes, at: now) } }

    /// The transport wrote `bytes` of a download's body to a file instead of handing them over.
    func bodySpooled(bytes: Int) { state.withLock { $0.recording.bodySpooled(bytes: bytes) } }

    func retryScheduled(reason: String, delay: TimeInterval) {
        record { state, _ in state.retryScheduled(reason: reason, delay: delay) }
    }

    /// What ``HTTPCache`` did; not an event of its own: the closing event's metrics carry it.
    func cacheAnswered(_ outcome: HTTPCache.Outcome) {
        let now = Self.now()
        state.withLock { $0.recording.cacheAnswered(outcome, at: now) }
    }

    func connections(_ connections: [RequestMetrics.ConnectionMetrics]) {
        state.withLock { $0.recording.connections(connections) }
    }

    /// Ends the request and returns its metrics; its last events go to the listener. `error`:
    /// what it failed with, kept as the last attempt's error when its body was being read.
    @discardableResult
    func finish(_ outcome: MetricsRecording.Outcome, error: (any Error)? = nil) -> RequestMetrics {
        if let error { state.withLock { $0.recording.endingWith(error) } }
        end(outcome)
        return metrics
    }

    /// Ends the request; its last events go to the listener. The metrics are copied out only for
    /// them: a decoded response reads them from the recorder when asked (``TypedResponse/metrics``).
    private func end(_ outcome: MetricsRecording.Outcome) {
        let now = Self.now()
        guard let delivery else {
            state.withLock { _ = $0.recording.finish(outcome, at: now) }
            return
        }
        let events = state.withLock { state -> [RequestEvent] in
            guard state.recording.finish(outcome, at: now) else { return [] }
            let metrics = state.recording.metrics
            switch outcome {
            case .decoded:
                return [state.event(.decoded, at: now), state.event(.finished(metrics), at: now)]
            case .failed(let stage, _):
                return [state.event(.failed(stage: stage), at: now), state.event(.finished(metrics), at: now)]
            case .cancelled:
                return [state.event(.cancelled(metrics), at: now)]
            }
        }
        for event in events { delivery.deliver(event) }
    }
}

extension RequestRecorder {
    /// Ends a request that was decoded, as the pipeline does: its metrics stay in the recorder.
    package func finishDecoded() {
        end(.decoded)
    }

    /// The stage a failure of the pipeline ends at, and whether it is a cancellation.
    /// `decoding`: whether the failure came while validating or decoding the body.
    @discardableResult
    func finish<ErrorResponse>(failure: EndpointTaskError<ErrorResponse>, decoding: Bool = false) -> RequestMetrics {
        switch failure {
        case .cancelled: return finish(.cancelled, error: CancellationError())
        case .urlLoadError(let error): return finish(.failed(.transport, decoding: decoding), error: error)
        case .internetConnectionOffline:
            return finish(.failed(.transport, decoding: decoding), error: URLError(.notConnectedToInternet))
        case .streamError(let error): return finish(.failed(.stream, decoding: decoding), error: error)
        default: return finish(.failed(failure.stage, decoding: decoding))
        }
    }
}

/// A streamed request's recorder, held with its body: the reader finishes the request when the
/// body ends or fails; when the last holder lets go first (a loop left early, a stream dropped),
/// the request ends as cancelled. Nothing changes for a request that finished before.
final class RecordingEnd: Sendable {
    let recorder: RequestRecorder

    init(_ recorder: RequestRecorder) { self.recorder = recorder }

    deinit { recorder.finish(.cancelled) }
}
