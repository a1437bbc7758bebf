/// The kind of a WebSocket frame (RFC 6455 §5.2, §11.8): the four bits after FIN and the
/// reserved bits. Opcodes 3–7 and 0xB–0xF are reserved, and a frame carrying one is refused.
enum WebSocketOpcode: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// A later fragment of the message in progress.
    case continuation = 0x0
    /// The first (or only) frame of a text message: UTF-8.
    case text = 0x1
    /// The first (or only) frame of a binary message.
    case binary = 0x2
    /// The close frame: an optional 2-byte code, then an optional UTF-8 reason.
    case close = 0x8
    /// A ping, which the other side answers with a pong carrying the same payload.
    case ping = 0x9
    /// A pong: the answer to a ping, or an unsolicited heartbeat.
    case pong = 0xA

    /// Whether this is a control frame (close, ping, pong): at most 125 bytes, never fragmented,
    /// and allowed between the fragments of a message (RFC 6455 §5.5).
    var isControl: Bool { rawValue & 0x8 != 0 }

    /// The opcode's name, as the errors print it.
    var description: String {
        switch self {
        case .continuation: "continuation"
        case .text: "text"
        case .binary: "binary"
        case .close: "close"
        case .ping: "ping"
        case .pong: "pong"
        }
    }
}

/// The 4-byte key a client masks each frame's payload with (RFC 6455 §5.3): drawn fresh for every
/// frame from a strong random source, so that a proxy cannot be made to read the payload as a
/// request of its own.
struct WebSocketMaskingKey: Sendable, Hashable {
    /// The key's bytes, in the order they are sent and applied.
    let bytes: (UInt8, UInt8, UInt8, UInt8)

    /// A key of the given bytes (tests use the RFC's examples).
    init(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
        bytes = (b0, b1, b2, b3)
    }

    /// A key of the top 32 bits of `generator`'s next number (`SystemRandom` when
    /// connecting), most significant first.
    init(using generator: inout some RandomNumberGenerator) {
        let value = generator.next()
        self.init(
            UInt8(truncatingIfNeeded: value >> 56), UInt8(truncatingIfNeeded: value >> 48),
            UInt8(truncatingIfNeeded: value >> 40), UInt8(truncatingIfNeeded: value >> 32))
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.bytes == rhs.bytes }

    func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.0)
        hasher.combine(bytes.1)
        hasher.combine(bytes.2)
        hasher.combine(bytes.3)
    }

    /// The key byte that applies to the payload byte at `offset`.
    subscript(offset: Int) -> UInt8 {
        switch offset & 3 {
        case 0: bytes.0
        case 1: bytes.1
        case 2: bytes.2
        default: bytes.3
        }
    }

    /// XORs `buffer` in place with the key, the key's first byte applying to the buffer's first
    /// byte (masking and unmasking are the same operation). Eight bytes at a time, with no
    /// allocation.
    func apply(to buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        let count = buffer.count
        // The key repeated over 8 bytes, laid out in memory in the order it applies.
        var word: UInt64 = 0
        withUnsafeMutableBytes(of: &word) { raw in
            for offset in 0..<8 { raw[offset] = self[offset] }
        }
        var offset = 0
        while offset + 8 <= count {
            let value = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            base.storeBytes(of: value ^ word, toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < count {
            let byte = base.load(fromByteOffset: offset, as: UInt8.self)
            base.storeBytes(of: byte ^ self[offset], toByteOffset: offset, as: UInt8.self)
            offset += 1
        }
    }
}
