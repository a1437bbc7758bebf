import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An open WebSocket: the messages the server sends, as an `AsyncSequence` of the endpoint's
/// `Incoming` type, and ``send(_:)``, ``ping(timeout:)`` and ``close(code:reason:)``.
///
/// ```swift
/// let connection = try await client.webSocket(Chat(room: "general"))
/// try await connection.send(.init(text: "hello"))
/// for try await message in connection {
///     print(message.author, message.text)
/// }
/// print(connection.closure?.code as Any)   // how it ended: 1000, 1001…
/// ```
///
/// - **One reader.** The messages are read as the sequence is iterated; reading is also what
///   answers the server's pings (automatically) and receives the pongs a ``ping(timeout:)``
///   waits for. A reader that is behind stops the socket from being read: the server's sends
///   stall and memory stays bounded.
/// - **Ending.** The sequence ends when the server closes (its code and reason in ``closure``),
///   or after ``close(code:reason:)``. Cancelling the reading task closes with 1001 (going away).
///   A frame that breaks RFC 6455 closes the connection with the code the RFC asks for and
///   throws ``WebSocketError/protocolViolation(_:closeCode:)``; a socket that ends without a
///   close frame throws ``WebSocketError/connectionLost(_:)``.
/// - **A message that cannot be decoded** throws ``WebSocketError/undecodableMessage(_:_:)``
///   naming it; the connection stays open and the next call reads the next message.
public final class WebSocketConnection<Endpoint: WebSocketEndpoint>: AsyncSequence, Sendable {
    /// A message from the server.
    public typealias Element = Endpoint.Incoming
    /// What reading throws.
    public typealias Failure = WebSocketError

    /// The subprotocol the server chose among the endpoint's ``WebSocketEndpoint/subprotocols``;
    /// `nil` when it chose none.
    public let subprotocol: String?
    /// The server's 101 response to the handshake.
    public let response: HTTPURLResponse

    let link: UpgradedLink
    private let shared = Locked(Shared())

    private struct Shared {
        var state = WebSocketConnectionState()
        /// Pings waiting for their pong, by payload.
        var pings: [Data: CheckedContinuation<Result<Void, WebSocketError>, Never>] = [:]
        var iterated = false
    }

    init(link: UpgradedLink, response: HTTPURLResponse, subprotocol: String?) {
        self.link = link
        self.response = response
        self.subprotocol = subprotocol
    }

    deinit {
        // Nobody holds the connection any more: go away politely.
        closeFromClient(code: .goingAway)
    }

    /// How the connection ended, once it has: the close code (1005 when the server's close frame
    /// had none, 1006 when the socket ended without one) and the reason.
    public var closure: (code: WebSocketCloseCode, reason: String)? {
        shared.withLock { $0.state.closure }.map { ($0.code, $0.reason) }
    }

    // MARK: Sending

    /// Sends `message`, encoded with the endpoint's ``WebSocketEndpoint/messageCoding``; returns
    /// once the transport took it.
    ///
    /// - Throws: ``WebSocketError/unsendable(_:)`` when it cannot be encoded,
    ///   ``WebSocketError/closed`` once the connection is closing or closed.
    public func send(_ message: Endpoint.Outgoing) async throws(WebSocketError) {
        let encoded: WebSocketMessage
        do {
            encoded = try Endpoint.messageCoding.encode(message)
        } catch {
            throw .unsendable(String(describing: error))
        }
        guard shared.withLock({ $0.state.isOpen }) else { throw .closed }
        do {
            switch link {
            case .frames(let channel):
                var random = SystemRandom()
                try await channel.send(WebSocketFrameEncoder.message(encoded, using: &random))
            case .messages(let channel):
                try await channel.send(encoded)
            }
        } catch {
            throw .closed
        }
    }

    /// Sends a ping and waits for its pong, for `timeout` seconds at most. The pong is received
    /// by the reader: iterate the connection meanwhile.
    ///
    /// - Throws: ``WebSocketError/pingTimedOut`` when none came in time (the connection is then
    ///   closed with 1001), ``WebSocketError/closed`` when the connection closed first.
    public func ping(timeout: TimeInterval = 10) async throws(WebSocketError) {
        var random = SystemRandom()
        let payload = withUnsafeBytes(of: random.next()) { Data($0) }
        let outcome = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Void, WebSocketError>, Never>) in
            let open = shared.withLock { shared -> Bool in
                guard shared.state.isOpen else { return false }
                shared.pings[payload] = continuation
                return true
            }
            guard open else { return continuation.resume(returning: .failure(.closed)) }
            Task {
                switch self.link {
                case .frames(let channel):
                    var random = SystemRandom()
                    // A payload of 8 bytes is within a control frame's 125.
                    let frame = try? WebSocketFrameEncoder.control(.ping, payload: payload, using: &random)
                    do {
                        try await channel.send(frame ?? [])
                    } catch {
                        self.resolvePing(payload, with: .failure(.closed))
                        return
                    }
                case .messages(let channel):
                    // The transport matches the pong to its ping.
                    Task {
                        let outcome: Result<Void, WebSocketError>
                        do {
                            try await channel.ping()
                            outcome = .success(())
                        } catch {
                            outcome = .failure(.closed)
                        }
                        self.resolvePing(payload, with: outcome)
                    }
                }
                try? await Task.sleep(nanoseconds: UInt64(Swift.max(0, timeout) * 1e9))
                if self.resolvePing(payload, with: .failure(.pingTimedOut)) { self.closeFromClient(code: .goingAway) }
            }
        }
        try outcome.get()
    }

    /// Resolves the ping waiting with `payload`; whether one was.
    @discardableResult
    private func resolvePing(_ payload: Data, with outcome: Result<Void, WebSocketError>) -> Bool {
        guard let waiting = shared.withLock({ $0.pings.removeValue(forKey: payload) }) else { return false }
        waiting.resume(returning: outcome)
        return true
    }

    /// Closes the connection: sends a close frame with `code` and `reason`, then closes the
    /// socket once it is sent; the sequence ends. Nothing when it is closing or closed already.
    ///
    /// - Throws: ``WebSocketError/unsendable(_:)`` for a code that may not be sent (1005, 1006,
    ///   1015…) or a reason over 123 bytes of UTF-8.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") throws(WebSocketError) {
        var random = SystemRandom()
        let frame: [UInt8]
        do {
            frame = try WebSocketFrameEncoder.close(code: code, reason: reason, using: &random)
        } catch {
            throw .unsendable(error.description)
        }
        guard case .sendClose = shared.withLock({ $0.state.close(code: code, reason: reason) }) else { return }
        switch link {
        case .frames(let channel): channel.sendThenClose(frame)
        case .messages(let channel): channel.close(code: code, reason: reason)
        }
        failPings()
    }

    /// Closes with `code` (a valid one, no reason), as the client going away does.
    func closeFromClient(code: WebSocketCloseCode) {
        try? close(code: code)
    }

    private func failPings() {
        let pings = shared.withLock { shared in
            defer { shared.pings = [:] }
            return shared.pings
        }
        for waiting in pings.values { waiting.resume(returning: .failure(.closed)) }
    }

    /// Answers the server's close with a close frame echoing `code` (none when it sent none),
    /// then closes the socket.
    fileprivate func replyToClose(code: WebSocketCloseCode?) {
        switch link {
        case .frames(let channel):
            var random = SystemRandom()
            let frame = try? WebSocketFrameEncoder.close(code: code, using: &random)
            channel.sendThenClose(frame ?? [])
        case .messages(let channel):
            // The transport answered the close frame itself.
            channel.close(code: code ?? .normalClosure, reason: "")
        }
    }

    /// Closes the socket now: the close frames were exchanged.
    fileprivate func closeSocket() {
        switch link {
        case .frames(let channel): channel.close()
        case .messages(let channel): channel.close(code: .normalClosure, reason: "")
        }
    }

    // MARK: Reading

    /// Reads the connection's messages.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let connection: WebSocketConnection
        private var decoder = WebSocketFrameDecoder(
            limits: .init(
                maximumFrameSize: Endpoint.maximumMessageSize, maximumMessageSize: Endpoint.maximumMessageSize))
        private var ready: [WebSocketMessage] = []
        private var ended = false
        private var pendingFailure: WebSocketError?

        init(connection: WebSocketConnection) {
            self.connection = connection
        }

        /// The next message, decoded; `nil` once the connection closed.
        public mutating func next() async throws(WebSocketError) -> Endpoint.Incoming? {
            while true {
                if !ready.isEmpty {
                    let message = ready.removeFirst()
                    do {
                        return try Endpoint.messageCoding.decode(message)
                    } catch {
                        throw .undecodableMessage(message, DecodingFailure(error))
                    }
                }
                if let failure = pendingFailure {
                    pendingFailure = nil
                    ended = true
                    throw failure
                }
                if ended { return nil }
                try await readMore()
            }
        }

        /// Reads the next bytes and carries out what they complete.
        private mutating func readMore() async throws(WebSocketError) {
            let connection = self.connection
            let channel: any UpgradedChannel
            switch connection.link {
            case .frames(let frames): channel = frames
            case .messages(let messages): return try await readMessage(from: messages)
            }
            let bytes: Data?
            do {
                bytes = try await withTaskCancellationHandler {
                    try await channel.receive()
                } onCancel: {
                    connection.closeFromClient(code: .goingAway)
                }
            } catch let error as URLError {
                ended = true
                connection.failPings()
                if connection.shared.withLock({ $0.state.socketEnded() }) != nil { throw .connectionLost(error) }
                return
            } catch {
                ended = true
                return
            }
            guard let bytes else {
                // The socket ended: after the close frames, or without them (1006).
                ended = true
                connection.failPings()
                if connection.shared.withLock({ $0.state.socketEnded() }) != nil, !Task.isCancelled {
                    throw .connectionLost(URLError(.networkConnectionLost))
                }
                return
            }
            let step = decoder.feed(bytes)
            for event in step.events {
                handle(event)
            }
            if let failure = step.failure, !ended,
                let code = connection.shared.withLock({ $0.state.failed(failure) })
            {
                var random = SystemRandom()
                if let frame = try? WebSocketFrameEncoder.close(code: code, using: &random) {
                    channel.sendThenClose(frame)
                } else {
                    channel.close()
                }
                connection.failPings()
                pendingFailure = .protocolViolation(failure.description, closeCode: code)
            }
        }

        /// Reads the next message from a transport that frames them itself.
        private mutating func readMessage(from channel: any UpgradedMessageChannel) async throws(WebSocketError) {
            let connection = self.connection
            let event: WebSocketFrameDecoder.Event?
            do {
                event = try await withTaskCancellationHandler {
                    try await channel.receive()
                } onCancel: {
                    connection.closeFromClient(code: .goingAway)
                }
            } catch {
                ended = true
                connection.failPings()
                let lost = (error as? URLError) ?? URLError(.networkConnectionLost)
                if connection.shared.withLock({ $0.state.socketEnded() }) != nil, !Task.isCancelled {
                    throw .connectionLost(lost)
                }
                return
            }
            guard let event else {
                ended = true
                connection.failPings()
                if connection.shared.withLock({ $0.state.socketEnded() }) != nil, !Task.isCancelled {
                    throw .connectionLost(URLError(.networkConnectionLost))
                }
                return
            }
            handle(event)
        }

        private mutating func handle(_ event: WebSocketFrameDecoder.Event) {
            let action = connection.shared.withLock { $0.state.received(event) }
            var random = SystemRandom()
            switch action {
            case .deliver(let message):
                ready.append(message)
            case .sendPong(let payload):
                if case .frames(let channel) = connection.link,
                    let frame = try? WebSocketFrameEncoder.control(.pong, payload: payload, using: &random)
                {
                    Task { try? await channel.send(frame) }
                }
            case .pongArrived(let payload):
                connection.resolvePing(payload, with: .success(()))
            case .replyClose(let code, _):
                connection.replyToClose(code: code)
                connection.failPings()
                ended = true
            case .end:
                connection.closeSocket()
                ended = true
            case .none:
                break
            }
        }
    }

    /// The iterator: a connection has one reader (a second iterator ends at once).
    public func makeAsyncIterator() -> AsyncIterator {
        let first = shared.withLock { shared in
            defer { shared.iterated = true }
            return !shared.iterated
        }
        var iterator = AsyncIterator(connection: self)
        if !first { iterator.endAtOnce() }
        return iterator
    }
}

extension WebSocketConnection.AsyncIterator {
    fileprivate mutating func endAtOnce() { ended = true }
}
