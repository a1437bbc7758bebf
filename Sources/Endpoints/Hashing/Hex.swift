/// Bytes written as lower-case hexadecimal, two digits each: how digests appear in cache keys and
/// in Digest authentication (RFC 7616 §3.4.1).
enum Hex {
    /// `bytes` as lower-case hexadecimal, `[0xAB, 0x01]` as `ab01`.
    static func lowercase(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
