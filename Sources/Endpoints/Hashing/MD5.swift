import Foundation

/// MD5 (RFC 1321), for HTTP Digest authentication (RFC 7616), whose default algorithm it still is
/// and which most servers that speak Digest offer alone: Foundation on Linux has no CryptoKit.
/// Not for anything that needs collision resistance.
enum MD5 {
    /// The shift of each of the 64 steps, four per round (RFC 1321 §3.4).
    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]

    /// The constant of step `i`: the integer part of 2³² × |sin(i + 1)| (RFC 1321 §3.4), which a
    /// double computes exactly enough (the tests check the RFC's digests).
    private static let constants: [UInt32] = (0..<64).map { i in
        UInt32(truncatingIfNeeded: Int64((abs(sin(Double(i + 1))) * 4_294_967_296).rounded(.down)))
    }

    /// The 16-byte digest of `message`.
    static func hash(_ message: [UInt8]) -> [UInt8] {
        // The padding of SHA-1 and SHA-256, but the length is little-endian (RFC 1321 §3.2).
        var data = DigestPadding.padded(message)
        data[(data.count - 8)...].reverse()
        var state: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476]
        var words = [UInt32](repeating: 0, count: 16)
        for block in stride(from: 0, to: data.count, by: 64) {
            for i in 0..<16 {
                let j = block + i * 4
                words[i] =
                    UInt32(data[j]) | UInt32(data[j + 1]) << 8 | UInt32(data[j + 2]) << 16 | UInt32(data[j + 3]) << 24
            }
            var (a, b, c, d) = (state[0], state[1], state[2], state[3])
            for i in 0..<64 {
                let (f, word): (UInt32, Int) =
                    switch i {
                    case 0..<16: ((b & c) | (~b & d), i)
                    case 16..<32: ((d & b) | (~d & c), (5 * i + 1) % 16)
                    case 32..<48: (b ^ c ^ d, (3 * i + 5) % 16)
                    default: (c ^ (b | ~d), (7 * i) % 16)
                    }
                let sum = a &+ f &+ constants[i] &+ words[word]
                (a, d, c) = (d, c, b)
                b = b &+ (sum << shifts[i] | sum >> (32 - shifts[i]))
            }
            for (i, value) in [a, b, c, d].enumerated() { state[i] = state[i] &+ value }
        }
        return state.flatMap { word in [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: word >> UInt32($0)) } }
    }
}
