import Foundation

/// How a transport hands over the connection a WebSocket handshake upgraded: the request carries
/// one in its ``RequestContext`` (``RequestContext/upgrade``), and a transport that can upgrade
/// sends the handshake on a connection of its own, returns the answer's head as usual, and, for a
/// 101, puts the connection here. A transport that leaves it empty cannot upgrade; the WebSocket
/// call then fails with ``WebSocketError/upgradeUnsupported(transport:)``.
///
/// Through the contract rather than beside it: the handshake passes every middleware (logging,
/// retries, a 401 that refreshes credentials) as any request does, and a transport that wraps
/// another passes the context, and so the sink, along.
final class UpgradeSink: Sendable {
    private let channel = Locked<UpgradedLink?>(nil)
    /// The endpoint's ``WebSocketEndpoint/maximumMessageSize``, for a transport that reads the
    /// messages itself.
    let maximumMessageSize: Int

    init(maximumMessageSize: Int = 1 << 20) {
        self.maximumMessageSize = maximumMessageSize
    }

    /// The connection the last 101 upgraded, as bytes; a retry's earlier one is closed.
    func deliver(_ upgraded: any UpgradedChannel) {
        deliver(.frames(upgraded))
    }

    /// The connection the last 101 upgraded; a retry's earlier one is closed.
    func deliver(_ upgraded: UpgradedLink) {
        let earlier = channel.withLock { channel in
            defer { channel = upgraded }
            return channel
        }
        earlier?.close()
    }

    /// Takes the connection, once.
    func take() -> UpgradedLink? {
        channel.withLock { channel in
            defer { channel = nil }
            return channel
        }
    }
}

/// The bytes of an upgraded connection, both ways, after the 101's head (what came after it
/// included): RFC 6455 frames, read and written by ``WebSocketConnection``.
protocol UpgradedChannel: Sendable {
    /// The next bytes as they arrive, `nil` at the peer's close; the reader paces the socket. A
    /// cancelled reader keeps waiting: it closes the channel itself.
    func receive() async throws -> Data?
    /// Sends `bytes`, returning once the transport took them.
    func send(_ bytes: [UInt8]) async throws
    /// Sends `bytes` after what waits, then closes; returns at once.
    func sendThenClose(_ bytes: [UInt8])
    /// Closes now.
    func close()
}

/// A WebSocket whose frames the transport reads and writes itself (`URLSessionWebSocketTask`):
/// whole messages both ways; the transport answers pings and checked the handshake.
protocol UpgradedMessageChannel: Sendable {
    /// The subprotocol the server chose; `nil` for none.
    var subprotocol: String? { get }
    /// The next message, or the server's close (its code, `nil` for none, and reason); `nil` when
    /// the connection ended without one. Reads one message at a time: the reader paces the socket.
    func receive() async throws -> WebSocketFrameDecoder.Event?
    /// Sends `message`, returning once the transport took it.
    func send(_ message: WebSocketMessage) async throws
    /// Sends a ping and returns when its pong arrives.
    func ping() async throws
    /// Sends a close frame with `code` and `reason`, then closes; returns at once.
    func close(code: WebSocketCloseCode, reason: String)
}

/// What a transport upgraded: a connection whose bytes ``WebSocketConnection`` frames itself
/// (libcurl's), or one that carries whole messages (URLSession's).
enum UpgradedLink: Sendable {
    case frames(any UpgradedChannel)
    case messages(any UpgradedMessageChannel)

    /// Closes now, without a close frame when it is bytes; with 1001 when it is messages.
    func close() {
        switch self {
        case .frames(let channel): channel.close()
        case .messages(let channel): channel.close(code: .goingAway, reason: "")
        }
    }
}

extension RequestContext {
    /// The request is a WebSocket handshake: a transport that can upgrade the connection hands
    /// it over here (see ``UpgradeSink``); `nil` for every other request.
    var upgrade: UpgradeSink? { transfer.upgrade }
}
