/// What a server's frames did wrong (RFC 6455): each case names the fault, and ``closeCode`` is the
/// code the client must then send in its close frame before it drops the connection ("_Fail the
/// WebSocket Connection_", §7.1.7).
///
/// ```swift
/// var decoder = WebSocketFrameDecoder()
/// let step = decoder.feed([0x81, 0x85, 1, 2, 3, 4, 0, 0, 0, 0, 0])   // a masked frame
/// step.failure                  // .maskedFrame
/// step.failure?.closeCode       // 1002 (protocol error)
/// ```
enum WebSocketProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server masked a frame; only clients mask (§5.1).
    case maskedFrame
    /// A frame set reserved bits (RSV1–3, given as they sit in the first byte: 0x40, 0x20, 0x10)
    /// although no extension was negotiated (§5.2).
    case reservedBitsSet(UInt8)
    /// A frame's opcode is one of the reserved ones (3–7, 0xB–0xF).
    case unknownOpcode(UInt8)
    /// A control frame declared more than 125 bytes of payload (§5.5).
    case controlFrameTooLong(WebSocketOpcode)
    /// A control frame without FIN: control frames cannot be fragmented (§5.5).
    case fragmentedControlFrame(WebSocketOpcode)
    /// A continuation frame came while no message was in progress (§5.4).
    case continuationWithoutStart
    /// A text or binary frame (the opcode given) started a new message before the one in progress
    /// ended (§5.4).
    case messageNotFinished(WebSocketOpcode)
    /// A text message is not UTF-8 (§8.1): a byte no well-formed text could hold, or a message that
    /// ended inside a code point.
    case invalidUTF8InText
    /// A close frame with a 1-byte payload: a code takes two (§5.5.1).
    case closeFrameTooShort
    /// A close frame's code is not allowed on the wire (§7.4; see ``WebSocketCloseCode/mayBeSent``).
    case invalidCloseCode(WebSocketCloseCode)
    /// A close frame's reason is not UTF-8 (§5.5.1).
    case invalidUTF8InCloseReason
    /// A 64-bit payload length with its most significant bit set (§5.2).
    case lengthOutOfRange
    /// A frame declared `length` bytes of payload, more than the decoder's limit of `limit`.
    case frameTooLarge(length: UInt64, limit: Int)
    /// With the frame just announced, the message would reach `length` bytes, more than the
    /// decoder's limit of `limit`.
    case messageTooLarge(length: UInt64, limit: Int)

    /// The code of the close frame the client sends: 1007 for text that is not UTF-8, 1009 for a
    /// frame or message over the limit, 1002 for the rest.
    var closeCode: WebSocketCloseCode {
        switch self {
        case .invalidUTF8InText, .invalidUTF8InCloseReason: .invalidPayloadData
        case .frameTooLarge, .messageTooLarge: .messageTooBig
        default: .protocolError
        }
    }

    /// The fault, as a sentence.
    var description: String {
        switch self {
        case .maskedFrame:
            "The server sent a masked frame; only a client masks its frames."
        case .reservedBitsSet(let bits):
            "The server set reserved bits (0x\(String(bits, radix: 16))) in a frame, but no extension was negotiated."
        case .unknownOpcode(let opcode):
            "The server sent a frame with the reserved opcode 0x\(String(opcode, radix: 16))."
        case .controlFrameTooLong(let opcode):
            "The server sent a \(opcode) frame longer than 125 bytes."
        case .fragmentedControlFrame(let opcode):
            "The server sent a fragmented \(opcode) frame; control frames cannot be fragmented."
        case .continuationWithoutStart:
            "The server sent a continuation frame while no message was in progress."
        case .messageNotFinished(let opcode):
            "The server started a \(opcode) message before it finished the one in progress."
        case .invalidUTF8InText:
            "The server sent a text message that is not valid UTF-8."
        case .closeFrameTooShort:
            "The server sent a close frame with a 1-byte payload; a close code takes two bytes."
        case .invalidCloseCode(let code):
            "The server sent the close code \(code), which is not allowed in a close frame."
        case .invalidUTF8InCloseReason:
            "The server sent a close reason that is not valid UTF-8."
        case .lengthOutOfRange:
            "The server sent a frame whose 64-bit length has its most significant bit set."
        case .frameTooLarge(let length, let limit):
            "The server sent a frame of \(length) bytes, over the limit of \(limit) bytes per frame."
        case .messageTooLarge(let length, let limit):
            "The server sent a message of at least \(length) bytes, over the limit of \(limit) bytes per message."
        }
    }
}
