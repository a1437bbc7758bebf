/// SHA-1 (FIPS 180-4 §6.1), for the WebSocket handshake's `Sec-WebSocket-Accept` (RFC 6455 §4.2.2),
/// the one place the protocol still asks for it: Foundation on Linux has no CryptoKit, and the
/// input is 60 bytes, so speed does not matter. Not for anything that needs collision resistance.
enum SHA1 {
    /// The 20-byte digest of `message`.
    static func hash(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        let data = DigestPadding.padded(message)
        func rotate(_ x: UInt32, _ n: UInt32) -> UInt32 { (x << n) | (x >> (32 - n)) }
        var w = [UInt32](repeating: 0, count: 80)
        for chunk in stride(from: 0, to: data.count, by: 64) {
            DigestPadding.loadBlock(data, at: chunk, into: &w)
            for i in 16..<80 {
                w[i] = rotate(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1)
            }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for i in 0..<80 {
                let (f, k): (UInt32, UInt32) =
                    switch i {
                    case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
                    case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
                    case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                    default: (b ^ c ^ d, 0xCA62_C1D6)
                    }
                let t = rotate(a, 5) &+ f &+ e &+ k &+ w[i]
                (e, d, c, b, a) = (d, c, rotate(b, 30), a, t)
            }
            for (i, value) in [a, b, c, d, e].enumerated() { h[i] = h[i] &+ value }
        }
        return DigestPadding.bytes(h)
    }
}
