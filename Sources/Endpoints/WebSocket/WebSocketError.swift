import Foundation

/// Why a WebSocket could not be opened, or why its connection failed.
///
/// ```swift
/// do {
///     for try await quote in connection { show(quote) }
/// } catch .undecodableMessage(let message, let failure) {
///     print("could not read \(message): \(failure)")
/// } catch {
///     print(error)   // a sentence: what went wrong
/// }
/// ```
///
/// Opening throws the endpoint's `TaskError` (a status other than 101 is its `errorResponse`);
/// the faults of a 101 that is not a valid acceptance, and a transport that cannot upgrade, come
/// as its `streamError` holding one of these.
public enum WebSocketError: Error, Sendable, CustomStringConvertible {
    /// The client's transport cannot upgrade a connection to a WebSocket (the ``URLSessionTransport``
    /// on Linux, a mock, a transport of your own): send with `EndpointClient()` on Linux.
    case upgradeUnsupported(transport: String)
    /// The server's 101 is not a valid acceptance of the handshake (its `Sec-WebSocket-Accept`,
    /// `Upgrade`, `Connection`, an extension or subprotocol not offered), or a subprotocol to offer
    /// is not valid: the sentence says which.
    case handshakeFailed(String)
    /// The server broke RFC 6455 (a masked frame, reserved bits, text that is not UTF-8, a message
    /// over the limit…): the sentence says how; the client closed the connection with `closeCode`.
    case protocolViolation(String, closeCode: WebSocketCloseCode)
    /// A message arrived that the endpoint's coding could not decode; the connection stays open
    /// and the next message can be read.
    case undecodableMessage(WebSocketMessage, DecodingFailure)
    /// A message could not be encoded, or a close code or reason cannot be sent.
    case unsendable(String)
    /// No pong came back within the ping's timeout.
    case pingTimedOut
    /// The connection is closed (by either side): nothing more can be sent.
    case closed
    /// The connection ended without a close frame (1006), for this reason.
    case connectionLost(URLError)

    /// The fault, as a sentence.
    public var description: String {
        switch self {
        case .upgradeUnsupported(let transport):
            "The transport \(transport) cannot upgrade a connection to a WebSocket."
        case .handshakeFailed(let reason): "The WebSocket handshake failed: \(reason)"
        case .protocolViolation(let reason, let code): "\(reason) The connection was closed with \(code)."
        case .undecodableMessage(let message, let failure):
            "A \(message.opcode) message could not be decoded: \(failure)"
        case .unsendable(let reason): "The message could not be sent: \(reason)"
        case .pingTimedOut: "The server did not answer a ping in time."
        case .closed: "The WebSocket connection is closed."
        case .connectionLost(let error):
            "The WebSocket connection ended without a close frame: \(error.localizedDescription)"
        }
    }
}
