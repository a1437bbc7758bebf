import Foundation

/// Where a WebSocket connection is in its life (RFC 6455 §7), and what each event asks the
/// connection to do: one state, changed only here, under the connection's lock; the connection
/// carries the actions out once the lock is released.
///
/// ```swift
/// var state = WebSocketConnectionState()
/// state.received(.ping(payload))          // .sendPong(payload)
/// state.close(code: .normalClosure, reason: "")   // .sendClose(1000, "")
/// state.received(.close(code: .normalClosure, reason: ""))   // .end(closure)
/// ```
struct WebSocketConnectionState: Sendable {
    /// How the connection ended: the close code (1005 when the close frame had none, 1006 when
    /// there was no close frame) and reason.
    struct Closure: Sendable, Hashable {
        var code: WebSocketCloseCode
        var reason: String
    }

    enum Phase: Sendable, Hashable {
        /// Messages go both ways.
        case open
        /// We sent a close frame (its code and reason) and wait for the server's.
        case closing(Closure)
        /// Over.
        case closed(Closure)
    }

    private(set) var phase = Phase.open

    enum ReceiveAction: Sendable, Hashable {
        /// Hand the message to the reader.
        case deliver(WebSocketMessage)
        /// Answer a ping.
        case sendPong(Data)
        /// A pong: resolve the pings waiting for it.
        case pongArrived(Data)
        /// The server closed first: answer with a close frame echoing its code (none when it sent
        /// none), then close the socket; the reader's sequence ends.
        case replyClose(code: WebSocketCloseCode?, Closure)
        /// The server answered our close: close the socket; the sequence ends.
        case end(Closure)
        /// Nothing (a message or ping after we started closing).
        case none
    }

    /// The decoder completed `event`.
    mutating func received(_ event: WebSocketFrameDecoder.Event) -> ReceiveAction {
        switch (phase, event) {
        case (.closed, _):
            return .none
        case (.open, .message(let message)):
            return .deliver(message)
        case (.open, .ping(let payload)):
            return .sendPong(payload)
        case (_, .pong(let payload)):
            return .pongArrived(payload)
        case (.closing, .message), (.closing, .ping):
            return .none
        case (.open, .close(let code, let reason)):
            let closure = Closure(code: code ?? .noStatusReceived, reason: reason)
            phase = .closed(closure)
            return .replyClose(code: code, closure)
        case (.closing, .close(let code, let reason)):
            let closure = Closure(code: code ?? .noStatusReceived, reason: reason)
            phase = .closed(closure)
            return .end(closure)
        }
    }

    enum CloseAction: Sendable, Hashable {
        /// Send the close frame and wait for the server's.
        case sendClose(WebSocketCloseCode, String)
        /// Closing or closed already.
        case none
    }

    /// The user (or a cancelled reader, with 1001) closes.
    mutating func close(code: WebSocketCloseCode, reason: String) -> CloseAction {
        guard phase == .open else { return .none }
        phase = .closing(Closure(code: code, reason: reason))
        return .sendClose(code, reason)
    }

    /// The server broke the protocol: send a close frame with `failure`'s code and drop the
    /// connection (§7.1.7), unless it is over already (`nil`).
    mutating func failed(_ failure: WebSocketProtocolError) -> WebSocketCloseCode? {
        if case .closed = phase { return nil }
        phase = .closed(Closure(code: failure.closeCode, reason: ""))
        return failure.closeCode
    }

    /// The socket ended: without a close frame that is 1006; `nil` when the connection had
    /// ended already (the closure stays the one the close frames made) or we had closed it
    /// (the closure is ours: the socket is closed once our close frame is sent).
    mutating func socketEnded() -> Closure? {
        switch phase {
        case .closed: return nil
        case .closing(let ours):
            phase = .closed(ours)
            return nil
        case .open: break
        }
        let closure = Closure(code: .abnormalClosure, reason: "")
        phase = .closed(closure)
        return closure
    }

    /// Whether messages may be sent.
    var isOpen: Bool { phase == .open }

    /// How it ended, once it has.
    var closure: Closure? {
        if case .closed(let closure) = phase { return closure }
        return nil
    }
}
