import Foundation

/// Something that happened to a request, as a ``RequestEventListener`` receives it.
///
/// Events of one request arrive in the order they happened; the last one is
/// ``Kind/finished(_:)`` or ``Kind/cancelled(_:)``, with the request's ``RequestMetrics``, and
/// nothing of that request follows it. Events hold no header value, body or credential, and the
/// URL in ``Kind/started(method:url:)`` has its user info and sensitive query values redacted.
///
/// ```swift
/// struct Timeline: RequestEventListener {
///     func receive(_ event: RequestEvent) {
///         print(event)   // "#7 ProfileEndpoint +3.2 ms head received: 200"
///     }
/// }
/// ```
public struct RequestEvent: Sendable, CustomStringConvertible {
    /// What happened.
    public enum Kind: Sendable {
        /// The request was built; `url` has secrets redacted.
        case started(method: String, url: String)
        /// The authentication method applied its credentials after `waited` seconds.
        case authenticated(waited: TimeInterval)
        /// The attempt is waiting for one of the host's connection slots.
        case queued
        /// The attempt got a slot after waiting `waited` seconds.
        case admitted(waited: TimeInterval)
        /// An attempt went to the transport.
        case attemptSent(reason: RequestMetrics.Attempt.Reason)
        /// The transport followed a redirect with `status`; `droppedCredentials` tells whether the
        /// credentials were removed because the new URL has another origin.
        case redirectFollowed(status: Int, droppedCredentials: Bool)
        /// The response head arrived.
        case headReceived(status: Int)
        /// The response body was read whole.
        case bodyFinished(bytes: Int)
        /// A retrying middleware will send again after `delay` seconds, for `reason`
        /// (`"status 503"`, `"URLError -1001"`).
        case retryScheduled(reason: String, delay: TimeInterval)
        /// The server refused the credentials and the authentication method renews them.
        case refreshStarted
        /// The credentials were renewed (or renewing them failed).
        case refreshEnded
        /// The response body was decoded.
        case decoded
        /// The request failed at `stage`; ``finished(_:)`` follows.
        case failed(stage: RequestStage)
        /// The request was cancelled: its last event.
        indirect case cancelled(RequestMetrics)
        /// The request ended, answered or failed: its last event.
        indirect case finished(RequestMetrics)
        /// The listener fell behind: `count` events (of any requests) that came after the previous
        /// one were dropped, because 10,000 events were already waiting for it.
        /// Not an event of a request: its ``RequestEvent/requestID`` is 0, its endpoint name empty.
        case dropped(count: Int)
    }

    /// Identifies the request among those of the process: every event of one request has the same.
    public let requestID: UInt64
    /// The endpoint's name, e.g. `ProfileEndpoint`.
    public let endpointName: String
    /// When it happened, in seconds since the request started.
    public let time: TimeInterval
    /// What happened.
    public let kind: Kind
    /// The request's W3C trace id, from the moment ``TraceContextMiddleware`` set it (the
    /// `attemptSent` of its first send on); `nil` before, and for a request without one. The
    /// same as its metrics' ``RequestMetrics/traceID``.
    ///
    /// ```swift
    /// if case .retryScheduled = event.kind, let trace = event.traceID { print("retrying trace \(trace)") }
    /// ```
    public let traceID: String?

    /// The event on one line: request, endpoint, time and what happened.
    public var description: String {
        let what: String =
            switch kind {
            case .started(let method, let url): "started: \(method) \(url)"
            case .authenticated(let waited): "authenticated after \(Self.ms(waited))"
            case .queued: "queued for a connection"
            case .admitted(let waited): "admitted after \(Self.ms(waited))"
            case .attemptSent(let reason): "attempt sent (\(reason.rawValue))"
            case .redirectFollowed(let status, let dropped):
                "redirect \(status) followed" + (dropped ? ", credentials dropped" : "")
            case .headReceived(let status): "head received: \(status)"
            case .bodyFinished(let bytes): "body finished: \(bytes) B"
            case .retryScheduled(let reason, let delay): "retry in \(Self.ms(delay)) after \(reason)"
            case .refreshStarted: "credential refresh started"
            case .refreshEnded: "credential refresh ended"
            case .decoded: "decoded"
            case .failed(let stage): "failed at \(stage)"
            case .cancelled: "cancelled"
            case .finished: "finished"
            case .dropped(let count): "\(count) event\(count == 1 ? "" : "s") dropped: the listener fell behind"
            }
        if case .dropped = kind { return what }
        return "#\(requestID) \(endpointName) +\(Self.ms(time)) \(what)"
    }

    private static func ms(_ seconds: TimeInterval) -> String {
        String(format: "%.1f ms", seconds * 1000)
    }
}

/// Receives the events of every request a client sends: install one with
/// ``EndpointClient/init(transport:middleware:eventListener:)``.
///
/// ```swift
/// struct SlowRequests: RequestEventListener {
///     func receive(_ event: RequestEvent) {
///         if case .finished(let metrics) = event.kind, metrics.duration > 1 { print(metrics) }
///     }
/// }
/// let client = EndpointClient(session: .shared, eventListener: SlowRequests())
/// ```
///
/// Events are handed over on a thread of the client's own, off the request's path, in order for
/// each request: a listener that takes its time (or blocks) delays later events, never a request.
/// At most 10,000 events wait for it (a few megabytes at most); the
/// events that come while that many wait are dropped, and the listener is told how many with a
/// ``RequestEvent/Kind/dropped(count:)`` event once it catches up. Without a listener no event is
/// made at all; the metrics are still measured.
public protocol RequestEventListener: Sendable {
    /// Called for each event, one at a time, in order.
    func receive(_ event: RequestEvent)
}
