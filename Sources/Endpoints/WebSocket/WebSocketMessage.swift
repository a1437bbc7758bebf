import Foundation

/// A whole WebSocket message, as sent or as reassembled from its fragments (RFC 6455 §5.6).
///
/// ```swift
/// let message = WebSocketMessage.text("hello")
/// ```
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message (opcode 1): UTF-8 on the wire.
    case text(String)
    /// A binary message (opcode 2).
    case binary(Data)

    /// The opcode of the message's first frame.
    var opcode: WebSocketOpcode {
        switch self {
        case .text: .text
        case .binary: .binary
        }
    }
}

/// Why a frame could not be encoded: what the caller asked for breaks RFC 6455.
enum WebSocketEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A control frame's payload (`length` bytes) is over 125 bytes (§5.5).
    case controlPayloadTooLong(WebSocketOpcode, length: Int)
    /// The close code is not one an endpoint may send (§7.4, ``WebSocketCloseCode/mayBeSent``).
    case invalidCloseCode(WebSocketCloseCode)
    /// A close reason of `length` UTF-8 bytes: with the code, over the 125 bytes of a control frame.
    case closeReasonTooLong(length: Int)
    /// A close reason without a code: the reason follows the code on the wire (§5.5.1).
    case closeReasonWithoutCode

    /// The fault, as a sentence.
    var description: String {
        switch self {
        case .controlPayloadTooLong(let opcode, let length):
            "A \(opcode) frame's payload is \(length) bytes; control frames carry at most 125."
        case .invalidCloseCode(let code):
            "The close code \(code) may not be sent; use 1000–1003, 1007–1014 or 3000–4999."
        case .closeReasonTooLong(let length):
            "The close reason is \(length) bytes of UTF-8; it may take at most 123."
        case .closeReasonWithoutCode:
            "A close reason needs a close code."
        }
    }
}
