import Foundation

/// Compressed bodies made by hand (Foundation on Linux compresses nothing): valid gzip, zlib and raw
/// deflate streams of stored blocks, and a deflate bomb of back-references.
enum CompressedBodies {
    /// `data` as a gzip stream (RFC 1952) of stored deflate blocks, with its CRC-32 and length.
    static func gzip(_ data: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255]
        bytes += stored(data)
        bytes += littleEndian(crc32(data))
        bytes += littleEndian(UInt32(truncatingIfNeeded: data.count))
        return bytes
    }

    /// `data` as a zlib stream (RFC 1950), what `Content-Encoding: deflate` means.
    static func zlib(_ data: [UInt8]) -> [UInt8] {
        [0x78, 0x01] + stored(data) + bigEndian(adler32(data))
    }

    /// `data` as a raw deflate stream (RFC 1951), what some servers send as `deflate`.
    static func rawDeflate(_ data: [UInt8]) -> [UInt8] { stored(data) }

    /// A gzip stream that decodes to one zero byte followed by `matches` copies of 258 zeros, in
    /// 13 bits a copy (about 160 times its size), without a valid trailer: decoders give up before.
    static func gzipBomb(matches: Int) -> [UInt8] {
        var writer = BitWriter()
        writer.bits(1, count: 1)  // BFINAL
        writer.bits(1, count: 2)  // BTYPE 01: fixed Huffman codes
        writer.huffman(0x30, length: 8)  // literal 0
        for _ in 0..<matches {
            writer.huffman(0xC5, length: 8)  // length code 285: 258 bytes
            writer.huffman(0, length: 5)  // distance code 0: distance 1
        }
        writer.huffman(0, length: 7)  // end of block
        return [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255] + writer.finished
    }

    /// Stored blocks of at most 65,535 bytes, the last one final.
    private static func stored(_ data: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        var offset = 0
        repeat {
            let count = min(65_535, data.count - offset)
            let final: UInt8 = offset + count == data.count ? 1 : 0
            bytes.append(final)
            bytes += littleEndian16(UInt16(count)) + littleEndian16(~UInt16(count))
            bytes += data[offset..<(offset + count)]
            offset += count
        } while offset < data.count
        return bytes
    }

    private struct BitWriter {
        var bytes: [UInt8] = []
        private var current: UInt32 = 0
        private var used = 0

        /// `value`'s `count` low bits, least significant first (header fields, extra bits).
        mutating func bits(_ value: UInt32, count: Int) {
            for index in 0..<count { push((value >> UInt32(index)) & 1) }
        }

        /// A Huffman code, most significant bit first.
        mutating func huffman(_ code: UInt32, length: Int) {
            for index in stride(from: length - 1, through: 0, by: -1) { push((code >> UInt32(index)) & 1) }
        }

        private mutating func push(_ bit: UInt32) {
            current |= bit << UInt32(used)
            used += 1
            if used == 8 {
                bytes.append(UInt8(current))
                current = 0
                used = 0
            }
        }

        var finished: [UInt8] { used == 0 ? bytes : bytes + [UInt8(current)] }
    }

    static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
    private static func bigEndian(_ value: UInt32) -> [UInt8] { littleEndian(value).reversed() }
    private static func littleEndian16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
}
