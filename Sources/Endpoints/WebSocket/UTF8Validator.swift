/// Checks that bytes are well-formed UTF-8 (Unicode §3.9, Table 3-7) as they arrive, in pieces of
/// any size: a code point may be split across pieces (a WebSocket text message's fragments), and
/// the first byte that no well-formed text could hold fails at once, so a text message is refused
/// before the rest of it arrives (RFC 6455 §8.1).
///
/// ```swift
/// var validator = UTF8Validator()
/// validator.validate([0xE2, 0x82])     // true: so far, a euro sign may follow
/// validator.validate([0xAC])           // true
/// validator.isAtBoundary               // true: the text may end here
/// validator.validate([0xC0, 0xAF])     // false: an overlong "/"
/// ```
///
/// Refused: bytes 0xC0, 0xC1 and 0xF5–0xFF, a continuation byte without a lead byte, a lead byte
/// not followed by enough continuation bytes, overlong forms (E0 80–9F, F0 80–8F), surrogates
/// (ED A0–BF) and code points past U+10FFFF (F4 90–BF). ASCII goes eight bytes at a time.
struct UTF8Validator: Sendable, Hashable {
    /// Continuation bytes the current code point still needs (0 at a boundary).
    private var pending: UInt8 = 0
    /// The range the next continuation byte must fall in: narrower than 80–BF right after E0, ED,
    /// F0 and F4.
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// A validator at the start of a text.
    init() {}

    /// Whether the bytes so far end at a code point's end, so the text may end here.
    var isAtBoundary: Bool { pending == 0 }

    /// Reads the next `bytes`; `false` as soon as they cannot continue well-formed UTF-8 (the
    /// validator is then of no further use).
    mutating func validate(_ bytes: some Sequence<UInt8>) -> Bool {
        if let valid = bytes.withContiguousStorageIfAvailable({ validate(buffer: $0) }) { return valid }
        return Array(bytes).withUnsafeBufferPointer { validate(buffer: $0) }
    }

    /// Reads the next `bytes` where they lie.
    mutating func validate(buffer bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        var index = 0
        while index < count {
            if pending == 0 {
                // The common case: a run of ASCII, eight bytes at a time.
                while index + 8 <= count,
                    raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
                {
                    index += 8
                }
                guard index < count else { break }
                let byte = base[index]
                index += 1
                if byte < 0x80 { continue }
                guard start(byte) else { return false }
            } else {
                let byte = base[index]
                index += 1
                guard byte >= lower, byte <= upper else { return false }
                pending -= 1
                lower = 0x80
                upper = 0xBF
            }
        }
        return true
    }

    /// Takes a lead byte: how many continuation bytes follow, and the range of the first one.
    private mutating func start(_ byte: UInt8) -> Bool {
        switch byte {
        case 0xC2...0xDF: (pending, lower, upper) = (1, 0x80, 0xBF)
        case 0xE0: (pending, lower, upper) = (2, 0xA0, 0xBF)  // no overlong 3-byte form
        case 0xE1...0xEC, 0xEE...0xEF: (pending, lower, upper) = (2, 0x80, 0xBF)
        case 0xED: (pending, lower, upper) = (2, 0x80, 0x9F)  // no surrogates
        case 0xF0: (pending, lower, upper) = (3, 0x90, 0xBF)  // no overlong 4-byte form
        case 0xF1...0xF3: (pending, lower, upper) = (3, 0x80, 0xBF)
        case 0xF4: (pending, lower, upper) = (3, 0x80, 0x8F)  // nothing past U+10FFFF
        default: return false  // a continuation byte, C0, C1, F5–FF
        }
        return true
    }
}
