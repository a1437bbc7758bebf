import Foundation

/// How a ``ReconnectingWebSocket`` comes back after its connection drops: exponential backoff
/// with jitter, a cap on failed attempts in a row, and the server's close codes that mean "come
/// back later".
///
/// ```swift
/// let policy = WebSocketReconnection(delay: 0.5, maximumDelay: 20, maximumAttempts: 8)
/// let quotes = EndpointClient().reconnectingWebSocket(Quotes(), reconnection: policy) { connection in
///     try await connection.send(.init(subscribe: ["AAPL"]))   // again after every reconnection
/// }
/// ```
public struct WebSocketReconnection: Sendable, Hashable {
    /// The wait before the first attempt after a drop, in seconds; each failed attempt in a row
    /// doubles it, up to ``maximumDelay``.
    public var delay: TimeInterval
    /// The longest wait, in seconds.
    public var maximumDelay: TimeInterval
    /// How many reconnection attempts follow a drop (or a first opening that failed) before the
    /// sequence throws the last failure; 0 never reconnects.
    public var maximumAttempts: Int
    /// How much of each wait is random, from 0 (none) to 1: a wait of `w` becomes a uniform draw
    /// in `w × (1 − jitter)…w`, so clients dropped together do not come back together.
    public var jitter: Double
    /// The server's close codes that reconnect: 1001 (going away), 1011 (server error), 1012
    /// (service restart), 1013 (try again later) and 1014 (bad gateway) by default. Any other
    /// close (1000 included) ends the sequence; a connection lost without a close frame (1006)
    /// always reconnects.
    public var closeCodes: Set<WebSocketCloseCode>

    /// The close codes that reconnect by default.
    public static let defaultCloseCodes: Set<WebSocketCloseCode> = Set(
        [1001, 1011, 1012, 1013, 1014].map { WebSocketCloseCode(rawValue: $0) })

    /// A policy; every value has a default.
    public init(
        delay: TimeInterval = 1,
        maximumDelay: TimeInterval = 30,
        maximumAttempts: Int = 5,
        jitter: Double = 0.5,
        closeCodes: Set<WebSocketCloseCode> = defaultCloseCodes
    ) {
        self.delay = max(0, delay)
        self.maximumDelay = max(0, maximumDelay)
        self.maximumAttempts = max(0, maximumAttempts)
        self.jitter = min(1, max(0, jitter))
        self.closeCodes = closeCodes
    }

    /// The wait before attempt `attempt` (1 for the first after a drop), with `random` in 0..<1.
    func wait(attempt: Int, random: Double) -> TimeInterval {
        let backoff = min(maximumDelay, delay * pow(2, Double(max(0, attempt - 1))))
        return backoff * (1 - jitter * random)
    }
}

/// What a ``ReconnectingWebSocket`` reports, in order with its messages.
public enum WebSocketEvent<Message: Sendable>: Sendable {
    /// A connection opened and the resubscribe hook ran: `reconnection` is 0 for the first,
    /// then 1, 2… for each that follows a drop.
    case connected(reconnection: Int)
    /// A message from the server.
    case message(Message)
    /// The connection ended: the server's close code and reason, or 1006 when it was lost.
    /// A ``reconnecting(attempt:delay:)`` follows unless the code ends the sequence.
    case disconnected(code: WebSocketCloseCode, reason: String)
    /// Reconnection attempt `attempt` (1 for the first after a drop or a failed first opening,
    /// then one more for each that failed) waits `delay` seconds, then opens the endpoint again
    /// through the pipeline.
    case reconnecting(attempt: Int, delay: TimeInterval)
}

extension EndpointSending {
    /// A WebSocket to `endpoint` that opens again when its connection drops, by `reconnection`'s
    /// backoff; its messages and what happens to it come as ``WebSocketEvent``s.
    ///
    /// ```swift
    /// let quotes = EndpointClient().reconnectingWebSocket(Quotes()) { connection in
    ///     try await connection.send(.init(subscribe: ["AAPL", "MSFT"]))
    /// }
    /// for try await event in quotes {
    ///     switch event {
    ///     case .message(let quote): show(quote)
    ///     case .reconnecting(let attempt, let delay): print("retry #\(attempt) in \(delay) s")
    ///     case .connected, .disconnected: break
    ///     }
    /// }
    /// ```
    ///
    /// Nothing is sent until the sequence is iterated. Every connection is opened as
    /// ``webSocket(_:environment:auth:middleware:)`` opens one, through the pipeline with `auth`,
    /// so each reconnection authenticates again (an expired token is renewed, a 401 refreshed).
    /// `onConnect` runs after each opening, before its messages are read: send the subscriptions
    /// there. A connection lost without a close frame, or closed by the server with one of the
    /// policy's ``WebSocketReconnection/closeCodes``, reconnects; a handshake that fails on the
    /// way (unreachable, timed out, offline, a 5xx) counts as a failed attempt. Anything else ends
    /// the sequence: another close code (after its `.disconnected`), a handshake refused with a
    /// 4xx, a protocol violation, `onConnect` throwing, ``ReconnectingWebSocket/close(code:reason:)``
    /// or the reading task's cancellation. A message that cannot be decoded throws
    /// ``WebSocketError/undecodableMessage(_:_:)`` in a `streamError`; the next call goes on.
    public func reconnectingWebSocket<T: WebSocketEndpoint>(
        _ endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = [],
        reconnection: WebSocketReconnection = WebSocketReconnection(),
        onConnect: @escaping @Sendable (WebSocketConnection<T>) async throws -> Void = { _ in }
    ) -> ReconnectingWebSocket<T> {
        let client = endpointClient
        return ReconnectingWebSocket(
            policy: reconnection,
            open: { () async throws(T.TaskError) -> WebSocketConnection<T> in
                try await client.webSocket(endpoint, environment: environment, auth: auth, middleware: middleware)
            },
            onConnect: onConnect)
    }
}
