/// What SHA-1 and SHA-256 share (FIPS 180-4 §5.1.1, §5.2.1, §3.1): the message padded to 64-byte
/// blocks, read as big-endian 32-bit words, and the digest written back as big-endian bytes.
enum DigestPadding {
    /// `message`, then `0x80`, zeros up to 56 bytes modulo 64, and the message's length in bits as
    /// a 64-bit big-endian number: a whole number of 64-byte blocks.
    static func padded(_ message: [UInt8]) -> [UInt8] {
        var data = message + [0x80]
        while data.count % 64 != 56 { data.append(0) }
        let bits = UInt64(message.count) * 8
        for shift in stride(from: 56, through: 0, by: -8) {
            data.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
        return data
    }

    /// Reads the 64-byte block at `offset` of `data` into the first 16 words of `words`.
    static func loadBlock(_ data: [UInt8], at offset: Int, into words: inout [UInt32]) {
        for i in 0..<16 {
            let j = offset + i * 4
            words[i] =
                UInt32(data[j]) << 24 | UInt32(data[j + 1]) << 16 | UInt32(data[j + 2]) << 8 | UInt32(data[j + 3])
        }
    }

    /// The digest: each word's bytes, most significant first.
    static func bytes(_ words: [UInt32]) -> [UInt8] {
        words.flatMap { word in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> UInt32($0)) } }
    }
}
