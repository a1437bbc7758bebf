import Foundation

/// Where the time of one request went: one record per attempt (the first send, the resend after
/// renewed credentials, each retry, each redirect hop), the time spent on credentials, and decoding.
///
/// Every response carries it (``TypedResponse/metrics``), so do failures that got an answer
/// (``EndpointTaskError/metrics``), and an installed ``RequestEventListener`` receives it in the
/// request's last event. Printed, it is a timeline:
///
/// ```swift
/// let result = try await client.typedResponse(with: ProfileEndpoint())
/// print(result.metrics)
/// // ProfileEndpoint 212.4 ms, 2 attempts
/// //   #1 initial   +0.0 ms  status 503  head 3.1 ms  body 0.0 ms  0 B sent, 17 B received
/// //   #2 retry     +203.9 ms  after 200.0 ms  status 200  head 2.9 ms  body 0.0 ms  0 B sent, 42 B received
/// //   decoding 0.1 ms
/// ```
///
/// Times are in seconds, measured with the monotonic clock, and attempts' `start` counts from the
/// request's start. What each platform fills is listed in <doc:MetricsAndEvents>: the library's
/// own measurements everywhere, ``Attempt/connection`` only on Apple platforms, where
/// `URLSessionTaskMetrics` is delivered (Linux's URLSession never delivers it).
///
/// A mocked call (`withMock`, `EndpointMocks`) is measured too: its ``endpointName`` and
/// ``duration`` (how long the mock took), with no attempt, since nothing was sent.
public struct RequestMetrics: Sendable, CustomStringConvertible {
    /// One send of the request to the server.
    public struct Attempt: Sendable {
        /// Why the request was sent this time.
        public enum Reason: String, Sendable {
            /// The first send.
            case initial
            /// Sent again with renewed credentials after the server refused the first ones.
            case reauthenticated
            /// Sent again by a retrying middleware (``RetryMiddleware``).
            case retry
            /// A redirect hop followed by the transport.
            case redirect
        }

        /// Why the request was sent this time.
        public internal(set) var reason: Reason
        /// When the attempt began, in seconds since the request started.
        public internal(set) var start: TimeInterval
        /// How long a retry waited before this attempt, as the retrying middleware scheduled it.
        public internal(set) var retryDelay: TimeInterval?
        /// How long the attempt waited for one of the host's connection slots (``URLSessionTransport``'s
        /// per-host limit); 0 when it went out at once.
        public internal(set) var queued: TimeInterval = 0
        /// From sending to the response head: the time to first byte, when the transport reports
        /// the head as it arrives (streams, uploads and downloads everywhere; through
        /// `URLSession`, a buffered request only when its body is timed apart, see
        /// ``receivingBody``). Otherwise, from sending to the end of the body.
        public internal(set) var waitingForHead: TimeInterval?
        /// From the response head to the body's last byte, when the library saw them apart; `nil`
        /// when the head and the body were handed over together, and ``waitingForHead`` then
        /// includes the body. A buffered request through `URLSession` on Linux gets `nil`
        /// (corelibs tells a completion handler's task of the head only with the body), as on Apple
        /// platforms when `URLSessionTaskMetrics` comes too late to split them.
        public internal(set) var receivingBody: TimeInterval?
        /// The request body's size in bytes: its data, or the file an upload sent (0 for none).
        public internal(set) var bytesSent: Int = 0
        /// The response body's size in bytes, once read.
        public internal(set) var bytesReceived: Int?
        /// The response status; `nil` when no response came (a transport failure).
        public internal(set) var statusCode: Int?
        /// Why the attempt failed, when it did: the error the transport threw before the response
        /// came (then ``statusCode`` is `nil`) or while its body was read (a connection lost
        /// mid-body; then it has a status). `nil` for an attempt answered in full, whatever its
        /// status. A `URLError` keeps only its code (its user info, which names the URL, is left
        /// out, so metrics hold no URL); a cancellation is `CancellationError`; another error, a
        /// custom transport's, is kept as it was thrown.
        ///
        /// ```swift
        /// let timeouts = metrics.attempts.filter { ($0.error as? URLError)?.code == .timedOut }.count
        /// ```
        public internal(set) var error: (any Error)?
        /// What the system measured about the connection: on Apple platforms only.
        public internal(set) var connection: ConnectionMetrics?
    }

    /// What `URLSessionTaskMetrics` reports for one attempt: Apple platforms only.
    public struct ConnectionMetrics: Sendable {
        /// Whether the attempt went over a connection already open.
        public let reusedConnection: Bool
        /// Looking the host up (DNS), when it happened.
        public let domainLookup: TimeInterval?
        /// Opening the connection, TLS included, when it happened.
        public let connect: TimeInterval?
        /// The TLS handshake, when it happened.
        public let secureConnection: TimeInterval?
        /// The protocol spoken, such as `h2` or `http/1.1`.
        public let networkProtocol: String?
        /// From the start of the attempt to the response's first byte, as the system measured it.
        public var firstByte: TimeInterval? = nil
        /// From the start of the attempt to the response's last byte.
        public var total: TimeInterval? = nil
        /// The bytes sent: the request's head and body.
        public var bytesSent: Int64? = nil
        /// The bytes received: the response's head and body as they came over the connection
        /// (compressed, when they were).
        public var bytesReceived: Int64? = nil
        /// The server's address and port, such as `127.0.0.1:8080` or `[::1]:443`.
        public var remoteAddress: String? = nil
        /// From the response's first byte to its last, as the system measured it: what splits a
        /// buffered request's time into ``Attempt/waitingForHead`` and ``Attempt/receivingBody``
        /// on Apple platforms.
        var receivingBody: TimeInterval? = nil
    }

    /// Metrics with nothing measured yet, of the endpoint named `endpointName`.
    init(endpointName: String = "") {
        self.endpointName = endpointName
    }

    /// Every send, in order.
    public var attempts: [Attempt] {
        attemptCount == 0 ? [] : [firstAttempt] + laterAttempts
    }
    /// The first send (when ``attemptCount`` is not 0), kept apart so that a request sent once
    /// allocates no array while it is measured.
    var firstAttempt = Attempt(reason: .initial, start: 0)
    /// The sends after the first.
    var laterAttempts: [Attempt] = []
    /// Time spent waiting for credentials (the authentication method applying them, a refresh
    /// it waited for included).
    public internal(set) var authentication: TimeInterval = 0
    /// How many times the credentials were renewed after the server refused them.
    public internal(set) var refreshes = 0
    /// Time spent renewing credentials after the server refused them.
    public internal(set) var refreshing: TimeInterval = 0
    /// Time spent decoding the body; `nil` when nothing was decoded.
    public internal(set) var decoding: TimeInterval?
    /// From the start of the request to its end.
    public internal(set) var duration: TimeInterval = 0
    /// The endpoint's name, e.g. `ProfileEndpoint`.
    public internal(set) var endpointName: String = ""
    /// The request's W3C trace id (32 hex digits), when ``TraceContextMiddleware`` sent one (or
    /// the request carried a `traceparent` of its own); `nil` otherwise. The events after it was
    /// set carry it too (``RequestEvent/traceID``), so a slow request can be found in the
    /// backend's traces.
    ///
    /// ```swift
    /// if metrics.duration > 1, let trace = metrics.traceID { print("slow: trace \(trace)") }
    /// ```
    public internal(set) var traceID: String?
    /// What an ``HTTPCache`` did for the response: `.hit` (with no attempt at all), `.revalidated`,
    /// `.miss` and so on; `nil` when no cache handled it. The same as the response's
    /// `HTTPURLResponse.cacheOutcome`.
    public internal(set) var cache: HTTPCache.Outcome?

    /// How many sends there were.
    package private(set) var attemptCount = 0

    /// Adds an attempt begun `start` seconds into the request. The first is set in place (its
    /// fields are still the defaults): an attempt is copied only for the sends after the first.
    @inline(__always)
    mutating func appendAttempt(
        reason: Attempt.Reason, start: TimeInterval, bytesSent: Int = 0, retryDelay: TimeInterval? = nil
    ) {
        if attemptCount == 0 {
            firstAttempt.reason = reason
            firstAttempt.start = start
            firstAttempt.bytesSent = bytesSent
            firstAttempt.retryDelay = retryDelay
        } else {
            var attempt = Attempt(reason: reason, start: start)
            attempt.bytesSent = bytesSent
            attempt.retryDelay = retryDelay
            laterAttempts.append(attempt)
        }
        attemptCount += 1
    }

    /// Changes the attempt at `index` (0 is the first); nothing when there is none.
    mutating func updateAttempt(at index: Int, _ change: (inout Attempt) -> Void) {
        guard index < attemptCount else { return }
        if index == 0 {
            change(&firstAttempt)
        } else {
            change(&laterAttempts[index - 1])
        }
    }

    /// Changes the last attempt; nothing when there is none.
    mutating func updateLastAttempt(_ change: (inout Attempt) -> Void) {
        updateAttempt(at: attemptCount - 1, change)
    }

    /// A readable timeline, one line per attempt. Holds no URL, header or body.
    public var description: String {
        var lines = [
            "\(endpointName) \(Self.ms(duration)), \(attempts.count) attempt\(attempts.count == 1 ? "" : "s")"
        ]
        if let traceID { lines.append("  trace \(traceID)") }
        if authentication > 0 { lines.append("  authentication \(Self.ms(authentication))") }
        if let cache { lines.append("  cache: \(cache.rawValue)") }
        for (index, attempt) in attempts.enumerated() {
            var line = "  #\(index + 1) \(attempt.reason.rawValue)  +\(Self.ms(attempt.start))"
            if let delay = attempt.retryDelay { line += "  after \(Self.ms(delay))" }
            if attempt.queued > 0 { line += "  queued \(Self.ms(attempt.queued))" }
            line += "  status " + (attempt.statusCode.map(String.init) ?? "none")
            if let head = attempt.waitingForHead { line += "  head \(Self.ms(head))" }
            if let body = attempt.receivingBody { line += "  body \(Self.ms(body))" }
            line += "  \(attempt.bytesSent) B sent"
            if let received = attempt.bytesReceived { line += ", \(received) B received" }
            if let error = attempt.error { line += "  failed: \(Self.summary(error))" }
            if let connection = attempt.connection {
                line += connection.reusedConnection ? "  reused connection" : "  new connection"
            }
            lines.append(line)
        }
        if refreshes > 0 { lines.append("  \(refreshes) refresh\(refreshes == 1 ? "" : "es") \(Self.ms(refreshing))") }
        if let decoding { lines.append("  decoding \(Self.ms(decoding))") }
        return lines.joined(separator: "\n")
    }

    private static func ms(_ seconds: TimeInterval) -> String {
        String(format: "%.1f ms", seconds * 1000)
    }

    /// An attempt's error in a few words that hold no URL: `URLError -1001`, `cancelled`, or the
    /// error's type.
    private static func summary(_ error: any Error) -> String {
        switch error {
        case let error as URLError: "URLError \(error.code.rawValue)"
        case is CancellationError: "cancelled"
        default: "\(type(of: error))"
        }
    }
}
