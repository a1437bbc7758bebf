/// What SHA-1, SHA-256 and SHA-512 share (FIPS 180-4 §5.1, §5.2, §3.1): the message padded to
/// whole blocks, read as big-endian words, and the digest written back as big-endian bytes.
enum DigestPadding {
    /// `message`, then `0x80`, zeros, and the message's length in bits as a big-endian number of
    /// an eighth of a block (64 bits for SHA-1 and SHA-256's 64-byte blocks, 128 for SHA-512's
    /// 128-byte ones): a whole number of blocks.
    static func padded(_ message: [UInt8], blockSize: Int = 64) -> [UInt8] {
        let lengthSize = blockSize / 8
        var data = message + [0x80]
        while data.count % blockSize != blockSize - lengthSize { data.append(0) }
        data += [UInt8](repeating: 0, count: lengthSize - 8)
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
