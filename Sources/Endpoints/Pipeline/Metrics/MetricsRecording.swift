import Foundation

/// The state of one request's measurements, changed only through its actions, each of which
/// returns the event it makes (if any); ``finish(_:at:)`` says whether the request ended then, and
/// the recorder makes its closing events. Times are monotonic nanoseconds; nothing changes once
/// the request finished. ``RequestRecorder`` holds it under its lock; tests drive it alone.
struct MetricsRecording {
    typealias Kind = RequestEvent.Kind

    /// How a request ended.
    enum Outcome {
        /// Decoded: decoding took from the end of the body to the end.
        case decoded
        /// Failed at `stage`; `decoding` when it failed decoding (or validating) the body.
        case failed(RequestStage, decoding: Bool)
        case cancelled
    }

    private(set) var metrics: RequestMetrics
    let start: UInt64
    private(set) var isFinished = false
    /// When the open attempt went out (after any wait for a slot), and when its head and body came.
    private var sentAt: UInt64 = 0
    private var headAt: UInt64 = 0
    private var bodyAt: UInt64 = 0
    /// Whether the open attempt's head was recorded, and whether at its own time (as it arrived,
    /// before the body) rather than with the body.
    private var headRecorded = false
    private var headApart = false
    private var queuedAt: UInt64?
    private var refreshStartedAt: UInt64?
    /// Body bytes the transport wrote to a file for a download rather than handing them over.
    private var spooledBytes = 0
    /// The wait a retrying middleware scheduled before the next send.
    private var pendingRetryDelay: TimeInterval?
    /// The pipeline's authentication round (``RequestContext/authenticationAttempt``) of the last send.
    private var authenticationRound = 1
    /// The index of the attempt the transport's current task began with (a task's redirect hops follow it).
    private(set) var taskFirstAttempt = 0

    init(endpointName: String, start: UInt64) {
        self.start = start
        metrics = RequestMetrics(endpointName: endpointName)
    }

    private func seconds(_ nanoseconds: UInt64) -> TimeInterval { TimeInterval(nanoseconds) / 1e9 }
    private func since(_ earlier: UInt64, _ now: UInt64) -> TimeInterval { seconds(now &- earlier) }

    mutating func authenticated(waited nanoseconds: UInt64) -> Kind? {
        guard !isFinished else { return nil }
        metrics.authentication += seconds(nanoseconds)
        return .authenticated(waited: seconds(nanoseconds))
    }

    mutating func refreshStarted(at now: UInt64) -> Kind? {
        guard !isFinished else { return nil }
        metrics.refreshes += 1
        refreshStartedAt = now
        return .refreshStarted
    }

    mutating func refreshEnded(at now: UInt64) -> Kind? {
        guard !isFinished, let started = refreshStartedAt else { return nil }
        refreshStartedAt = nil
        metrics.refreshing += since(started, now)
        return .refreshEnded
    }

    /// A send reached the last step before the transport.
    /// Inlined into the recorder's report, so that the event it returns, dropped when nobody
    /// listens, is not destroyed through a generic witness.
    @inline(__always)
    mutating func attemptSent(at now: UInt64, authenticationAttempt: Int, bytes: Int) -> Kind? {
        guard !isFinished else { return nil }
        let reason: RequestMetrics.Attempt.Reason
        if metrics.attemptCount == 0 {
            reason = .initial
        } else if authenticationAttempt != authenticationRound {
            reason = .reauthenticated
        } else {
            reason = .retry
        }
        authenticationRound = authenticationAttempt
        let delay = reason == .retry ? pendingRetryDelay : nil
        pendingRetryDelay = nil
        taskFirstAttempt = metrics.attemptCount
        metrics.appendAttempt(reason: reason, start: since(start, now), bytesSent: bytes, retryDelay: delay)
        sentAt = now
        headRecorded = false
        return .attemptSent(reason: reason)
    }

    /// The open attempt failed with `error` (the transport threw it, or the body's read did);
    /// the first error of an attempt is kept.
    mutating func attemptFailed(_ error: any Error) {
        guard !isFinished, metrics.attemptCount > 0 else { return }
        metrics.updateLastAttempt { attempt in
            if attempt.error == nil { attempt.error = Self.withoutURL(error) }
        }
    }

    /// `error` as an attempt keeps it: a `URLError` (or an `NSError` of its domain, which Linux
    /// does not bridge) by its code alone, since its user info names the URL; a cancellation as
    /// `CancellationError`; anything else as it is.
    static func withoutURL(_ error: any Error) -> any Error {
        switch EndpointTaskError<EmptyCodable>(error) {
        case .urlLoadError(let error): URLError(error.code)
        case .internetConnectionOffline: URLError(.notConnectedToInternet)
        case .cancelled: CancellationError()
        default: error
        }
    }

    mutating func queued(at now: UInt64) -> Kind? {
        guard !isFinished else { return nil }
        queuedAt = now
        return .queued
    }

    mutating func admitted(at now: UInt64) -> Kind? {
        guard !isFinished, let queuedAt, metrics.attemptCount > 0 else { return nil }
        self.queuedAt = nil
        let waited = since(queuedAt, now)
        metrics.updateLastAttempt { $0.queued += waited }
        sentAt = now
        return .admitted(waited: waited)
    }

    /// The transport followed a redirect: the open attempt ended with `status`, a hop begins.
    mutating func redirected(status: Int, droppedCredentials: Bool, at now: UInt64) -> Kind? {
        guard !isFinished, metrics.attemptCount > 0 else { return nil }
        let waited = since(sentAt, now)
        metrics.updateLastAttempt { attempt in
            attempt.statusCode = status
            attempt.waitingForHead = waited
        }
        metrics.appendAttempt(reason: .redirect, start: since(start, now))
        sentAt = now
        headRecorded = false
        return .redirectFollowed(status: status, droppedCredentials: droppedCredentials)
    }

    /// The open attempt's response head, with `status`, at `now`: the first report of it counts
    /// (a transport that sees the head before the body reports it as it arrives, and the
    /// pipeline's report after the exchange then changes nothing). `withBody`: the body came in
    /// the same report, so the two cannot be timed apart.
    /// Inlined into the recorder's report, so that the event it returns, dropped when nobody
    /// listens, is not destroyed through a generic witness.
    @inline(__always)
    mutating func headReceived(status: Int, at now: UInt64, withBody: Bool = false) -> Kind? {
        guard !isFinished, metrics.attemptCount > 0, !headRecorded else { return nil }
        let waited = since(sentAt, now)
        metrics.updateLastAttempt { attempt in
            attempt.statusCode = status
            attempt.waitingForHead = waited
        }
        headRecorded = true
        headApart = !withBody
        headAt = now
        bodyAt = now
        return .headReceived(status: status)
    }

    /// The body ended after `bytes` were read (and any the transport spooled to a file). Its time
    /// is counted from the head when the head was recorded apart; otherwise it is inside
    /// `waitingForHead`, and `receivingBody` comes from the system's measurement if it has one
    /// (Apple platforms) or stays `nil`.
    /// Inlined into the recorder's report, so that the event it returns, dropped when nobody
    /// listens, is not destroyed through a generic witness.
    @inline(__always)
    mutating func bodyFinished(bytes: Int, at now: UInt64) -> Kind? {
        guard !isFinished, metrics.attemptCount > 0 else { return nil }
        let receiving: TimeInterval? = headApart ? since(headAt, now) : nil
        let bytes = bytes + spooledBytes
        spooledBytes = 0
        metrics.updateLastAttempt { attempt in
            attempt.bytesReceived = bytes
            attempt.receivingBody = receiving
            if receiving == nil, attempt.connection != nil { Self.splitBody(of: &attempt) }
        }
        bodyAt = now
        return .bodyFinished(bytes: bytes)
    }

    /// Splits an attempt whose head and body came together with the body's time the system
    /// measured (``RequestMetrics/ConnectionMetrics/receivingBody``), once both are known.
    private static func splitBody(of attempt: inout RequestMetrics.Attempt) {
        guard attempt.receivingBody == nil, attempt.bytesReceived != nil, let total = attempt.waitingForHead,
            let body = attempt.connection?.receivingBody, body >= 0, body <= total
        else { return }
        attempt.receivingBody = body
        attempt.waitingForHead = total - body
    }

    /// The transport wrote `bytes` of the body to a file for a download (Linux): counted when the
    /// body ends, which then has no chunks for them.
    mutating func bodySpooled(bytes: Int) {
        guard !isFinished else { return }
        spooledBytes += bytes
    }

    /// The request's trace id, as ``TraceContextMiddleware`` sent it.
    mutating func traced(_ traceID: String) {
        guard !isFinished else { return }
        metrics.traceID = traceID
    }

    mutating func retryScheduled(reason: String, delay: TimeInterval) -> Kind? {
        guard !isFinished else { return nil }
        pendingRetryDelay = delay
        return .retryScheduled(reason: reason, delay: delay)
    }

    /// What the system measured for the current task's attempts, its redirect hops in order.
    mutating func connections(_ connections: [RequestMetrics.ConnectionMetrics]) {
        guard !isFinished else { return }
        for (offset, connection) in connections.enumerated() {
            metrics.updateAttempt(at: taskFirstAttempt + offset) { attempt in
                attempt.connection = connection
                Self.splitBody(of: &attempt)
            }
        }
    }

    /// An ``HTTPCache`` answered with `outcome`. An answer from the store (no send, or none
    /// after the last) is the body's end that decoding is timed from.
    mutating func cacheAnswered(_ outcome: HTTPCache.Outcome, at now: UInt64) {
        guard !isFinished else { return }
        metrics.cache = outcome
        switch outcome {
        case .hit, .stale, .offline:
            headAt = now
            bodyAt = now
        case .revalidated, .miss, .bypass:
            break
        }
    }

    /// The request is ending with `error`: when its last attempt got a head and its body was
    /// still being read (a connection lost mid-body), that is the attempt's error.
    mutating func endingWith(_ error: any Error) {
        guard !isFinished, metrics.attemptCount > 0, headRecorded else { return }
        metrics.updateLastAttempt { attempt in
            if attempt.error == nil, attempt.bytesReceived == nil { attempt.error = Self.withoutURL(error) }
        }
    }

    /// Ends the request; `false` when it had ended already (nothing changes then). Decoding is
    /// timed only when a body was seen: a middleware's own answer has none to time from.
    mutating func finish(_ outcome: Outcome, at now: UInt64) -> Bool {
        guard !isFinished else { return false }
        isFinished = true
        metrics.duration = since(start, now)
        switch outcome {
        case .decoded, .failed(_, decoding: true):
            if bodyAt != 0 { metrics.decoding = since(bodyAt, now) }
        case .failed, .cancelled:
            break
        }
        return true
    }
}
