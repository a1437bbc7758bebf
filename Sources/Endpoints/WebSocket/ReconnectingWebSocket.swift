import Foundation

/// A WebSocket that opens again when its connection drops (see
/// ``EndpointSending/reconnectingWebSocket(_:environment:auth:middleware:reconnection:onConnect:)``):
/// an `AsyncSequence` of ``WebSocketEvent``s — the messages, and each connection, drop and wait
/// in order — with ``send(_:)`` and ``close(code:reason:)`` on the connection open at the time.
///
/// ```swift
/// for try await event in quotes {
///     if case .message(let quote) = event { show(quote) }
/// }
/// ```
///
/// It has one reader, as a ``WebSocketConnection`` does; the connections are opened as it reads.
public final class ReconnectingWebSocket<Endpoint: WebSocketEndpoint>: AsyncSequence, Sendable {
    /// A message, or what happened to the connection.
    public typealias Element = WebSocketEvent<Endpoint.Incoming>
    /// What reading throws: a handshake's failure (as opening throws it), or a connection's
    /// ``WebSocketError`` in a `streamError`.
    public typealias Failure = Endpoint.TaskError

    typealias Open = @Sendable () async throws(Endpoint.TaskError) -> WebSocketConnection<Endpoint>

    let policy: WebSocketReconnection
    let open: Open
    let onConnect: @Sendable (WebSocketConnection<Endpoint>) async throws -> Void
    private let shared = Locked(Shared())

    private struct Shared {
        var current: WebSocketConnection<Endpoint>?
        /// The user closed: no connection opens any more.
        var closed = false
    }

    init(
        policy: WebSocketReconnection, open: @escaping Open,
        onConnect: @escaping @Sendable (WebSocketConnection<Endpoint>) async throws -> Void
    ) {
        self.policy = policy
        self.open = open
        self.onConnect = onConnect
    }

    /// The connection open now; `nil` between connections and before the first.
    public var connection: WebSocketConnection<Endpoint>? { shared.withLock { $0.current } }

    /// Sends `message` on the connection open now.
    ///
    /// - Throws: ``WebSocketError/closed`` between connections (send what must survive a
    ///   reconnection from `onConnect`), and what ``WebSocketConnection/send(_:)`` throws.
    public func send(_ message: Endpoint.Outgoing) async throws(WebSocketError) {
        guard let connection else { throw .closed }
        try await connection.send(message)
    }

    /// Closes the connection open now with `code` and `reason`, and opens no other: the sequence
    /// ends once the server answers.
    ///
    /// - Throws: ``WebSocketError/unsendable(_:)`` for a code or reason that may not be sent.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") throws(WebSocketError) {
        let connection = shared.withLock { shared in
            shared.closed = true
            return shared.current
        }
        try connection?.close(code: code, reason: reason)
    }

    fileprivate var isClosed: Bool { shared.withLock { $0.closed } }

    /// Makes `connection` the current one, unless the user closed meanwhile (then it is closed).
    fileprivate func adopt(_ connection: WebSocketConnection<Endpoint>?) -> Bool {
        let closed = shared.withLock { shared in
            shared.current = shared.closed ? nil : connection
            return shared.closed
        }
        if closed { connection?.closeFromClient(code: .normalClosure) }
        return !closed
    }

    /// Reads the events.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let socket: ReconnectingWebSocket
        private var reader: WebSocketConnection<Endpoint>.AsyncIterator?
        /// Connections opened so far.
        private var connections = 0
        /// The reconnection attempt that comes next: 1 after a drop or a failed first opening,
        /// one more for each attempt that failed since; 0 while connected.
        private var retry = 0
        /// The next step announces a wait (after a drop or a failure)…
        private var waitsFirst = false
        /// …and the attempt after it waits this long first.
        private var pendingDelay: TimeInterval?
        private var finished = false

        init(socket: ReconnectingWebSocket) {
            self.socket = socket
        }

        /// The next event; `nil` once the sequence ended.
        public mutating func next() async throws(Endpoint.TaskError) -> WebSocketEvent<Endpoint.Incoming>? {
            while !finished {
                if reader != nil { return try await read() }
                if socket.isClosed || Task.isCancelled {
                    finished = true
                    return nil
                }
                if waitsFirst {
                    waitsFirst = false
                    let delay = socket.policy.wait(attempt: retry, random: Double.random(in: 0..<1))
                    pendingDelay = delay
                    return .reconnecting(attempt: retry, delay: delay)
                }
                if let event = try await attempt() { return event }
            }
            return nil
        }

        /// Opens a connection and runs the hook; `nil` when the attempt failed and another follows.
        private mutating func attempt() async throws(Endpoint.TaskError) -> WebSocketEvent<Endpoint.Incoming>? {
            if let delay = pendingDelay {
                pendingDelay = nil
                do {
                    try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                } catch {
                    finished = true
                    throw .cancelled
                }
                // Closed while waiting: open nothing.
                if socket.isClosed {
                    finished = true
                    return nil
                }
            }
            let connection: WebSocketConnection<Endpoint>
            do {
                connection = try await socket.open()
            } catch {
                guard Self.retries(error), retry < socket.policy.maximumAttempts, !Task.isCancelled else {
                    finished = true
                    throw error
                }
                retry += 1
                waitsFirst = true
                return nil
            }
            do {
                try await socket.onConnect(connection)
            } catch {
                finished = true
                connection.closeFromClient(code: .goingAway)
                throw Endpoint.TaskError(error)
            }
            guard socket.adopt(connection) else {
                finished = true
                return nil
            }
            reader = connection.makeAsyncIterator()
            retry = 0
            connections += 1
            return .connected(reconnection: connections - 1)
        }

        /// Reads the current connection's next message, or how it ended.
        private mutating func read() async throws(Endpoint.TaskError) -> WebSocketEvent<Endpoint.Incoming>? {
            guard var current = reader else { return nil }
            do {
                let message = try await current.next()
                reader = current
                if let message { return .message(message) }
            } catch {
                switch error {
                case .undecodableMessage:
                    reader = current
                    throw .streamError(error)
                case .connectionLost:
                    break
                default:
                    finished = true
                    reader = nil
                    _ = socket.adopt(nil)
                    throw .streamError(error)
                }
            }
            // The connection ended: by the server's close, or lost (1006).
            reader = nil
            let closure = current.connection.closure ?? (code: .abnormalClosure, reason: "")
            _ = socket.adopt(nil)
            let reconnects =
                closure.code == .abnormalClosure || socket.policy.closeCodes.contains(closure.code)
            if socket.isClosed || Task.isCancelled || !reconnects || socket.policy.maximumAttempts == 0 {
                finished = true
            } else {
                retry = 1
                waitsFirst = true
            }
            return .disconnected(code: closure.code, reason: closure.reason)
        }

        /// Whether a failed opening is worth another attempt: the server could not be reached
        /// or answered with a 5xx.
        private static func retries(_ error: Endpoint.TaskError) -> Bool {
            switch error {
            case .urlLoadError, .internetConnectionOffline: true
            case .errorResponse(let response, _), .errorResponseParseError(let response, _, _):
                (500...599).contains(response.statusCode)
            default: false
            }
        }
    }

    /// The iterator: one reader.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(socket: self)
    }
}
