import Foundation
import Testing

@testable import Endpoints

/// The client's frames: RFC 6455 §5.7's examples, the three length forms at their edges, masking
/// with a fresh key per frame, fragmentation, and the control frames' rules.
@Suite struct WebSocketFrameEncoderTests {
    /// A random source that always gives the bytes of `value` (big-endian in each key).
    private struct Fixed: RandomNumberGenerator {
        var value: UInt64
        mutating func next() -> UInt64 { value }
    }

    /// The RFC's masking key, 37 fa 21 3d, from a generator.
    private var rfcKey: Fixed { Fixed(value: 0x37FA_213D_37FA_213D) }

    /// The payload of a masked frame, unmasked, and the key it was masked with.
    private func unmasked(_ frame: [UInt8], headerSize: Int) -> (key: [UInt8], payload: [UInt8]) {
        let key = Array(frame[(headerSize - 4)..<headerSize])
        let payload = frame[headerSize...].enumerated().map { $0.element ^ key[$0.offset % 4] }
        return (key, payload)
    }

    @Test func rfcMaskedHello() {
        var random = rfcKey
        let frame = WebSocketFrameEncoder.message(.text("Hello"), using: &random)
        #expect(frame == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
    }

    @Test func rfcMaskedPong() throws {
        var random = rfcKey
        let frame = try WebSocketFrameEncoder.control(.pong, payload: Array("Hello".utf8), using: &random)
        #expect(frame == [0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
    }

    @Test func rfcUnmaskedExamples() {
        #expect(WebSocketFrames.server(.text, "Hello") == [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
        #expect(WebSocketFrames.server(.text, fin: false, "Hel") == [0x01, 0x03, 0x48, 0x65, 0x6C])
        #expect(WebSocketFrames.server(.continuation, "lo") == [0x80, 0x02, 0x6C, 0x6F])
        #expect(WebSocketFrames.server(.ping, "Hello") == [0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
        let binary256 = WebSocketFrames.server(.binary, [UInt8](repeating: 7, count: 256))
        #expect(binary256.prefix(4) == [0x82, 0x7E, 0x01, 0x00] && binary256.count == 260)
        let binary64K = WebSocketFrames.server(.binary, [UInt8](repeating: 7, count: 65536))
        #expect(binary64K.prefix(10) == [0x82, 0x7F, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00] && binary64K.count == 65546)
    }

    /// Lengths up to 125 fit in 7 bits, up to 65535 in 16 bits after 126, the rest in 64 after 127;
    /// the payload unmasks back to what was sent.
    @Test(arguments: [0, 1, 125, 126, 127, 65535, 65536, 70000])
    func lengthForms(_ count: Int) {
        var random = SplitMix64(seed: UInt64(count))
        let payload = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let frame = WebSocketFrameEncoder.message(.binary(payload), using: &random)
        let expectedHeader: [UInt8] =
            switch count {
            case ..<126: [0x82, 0x80 | UInt8(count)]
            case ...0xFFFF: [0x82, 0xFE, UInt8(count >> 8), UInt8(count & 0xFF)]
            default: [0x82, 0xFF] + (0..<8).map { UInt8(truncatingIfNeeded: UInt64(count) >> (56 - 8 * UInt64($0))) }
            }
        #expect(Array(frame.prefix(expectedHeader.count)) == expectedHeader)
        let (_, unmaskedPayload) = unmasked(frame, headerSize: expectedHeader.count + 4)
        #expect(unmaskedPayload == Array(payload))
    }

    /// Masking eight bytes at a time gives what masking byte by byte gives, at every length and
    /// every offset of the key.
    @Test func maskingMatchesTheByteByByteDefinition() {
        let key = WebSocketMaskingKey(0xA1, 0x02, 0xF3, 0x44)
        for count in 0..<40 {
            var bytes = (0..<count).map { UInt8($0 * 7 & 0xFF) }
            let expected = bytes.enumerated().map { $0.element ^ key[$0.offset] }
            bytes.withUnsafeMutableBytes { key.apply(to: $0) }
            #expect(bytes == expected)
            bytes.withUnsafeMutableBytes { key.apply(to: $0) }
            #expect(bytes == (0..<count).map { UInt8($0 * 7 & 0xFF) })
        }
    }

    /// Each frame draws a key of its own from the generator, and the same seed gives the same frames.
    @Test func everyFrameHasAFreshKey() {
        var random = SplitMix64(seed: 7)
        let first = WebSocketFrameEncoder.message(.text("same"), using: &random)
        let second = WebSocketFrameEncoder.message(.text("same"), using: &random)
        #expect(first[2..<6] != second[2..<6])
        #expect(unmasked(first, headerSize: 6).payload == unmasked(second, headerSize: 6).payload)
        var again = SplitMix64(seed: 7)
        #expect(WebSocketFrameEncoder.message(.text("same"), using: &again) == first)
    }

    /// Over `maximumFrameSize`, a message goes as a first frame and continuations, FIN on the last;
    /// a text message may be cut inside a code point.
    @Test func longMessagesAreFragmented() {
        var random = SplitMix64(seed: 1)
        let text = "a€b😀c"  // 1 + 3 + 1 + 4 + 1 bytes
        let frames = WebSocketFrameEncoder.message(.text(text), maximumFrameSize: 4, using: &random)
        // 10 bytes in frames of 4, 4 and 2, each with a 6-byte header.
        #expect(frames.count == 3 * 6 + 10)
        #expect([frames[0], frames[10], frames[20]] == [0x01, 0x00, 0x80])
        #expect([frames[1], frames[11], frames[21]] == [0x84, 0x84, 0x82])
        let payload = [(0, 4), (10, 4), (20, 2)].flatMap { start, count in
            unmasked(Array(frames[start..<(start + 6 + count)]), headerSize: 6).payload
        }
        #expect(payload == Array(text.utf8))
        // Exactly one frame's worth is one frame; an empty message is one empty frame.
        #expect(WebSocketFrameEncoder.message(.binary(Data(count: 4)), maximumFrameSize: 4, using: &random).count == 10)
        #expect(
            WebSocketFrameEncoder.message(.binary(Data()), maximumFrameSize: 4, using: &random).prefix(2) == [
                0x82, 0x80,
            ])
    }

    @Test func closeFrames() throws {
        var random = rfcKey
        let frame = try WebSocketFrameEncoder.close(code: .goingAway, reason: "bye", using: &random)
        #expect(frame.prefix(2) == [0x88, 0x85])
        #expect(unmasked(frame, headerSize: 6).payload == [0x03, 0xE9] + Array("bye".utf8))
        #expect(try WebSocketFrameEncoder.close(code: nil, using: &random).prefix(2) == [0x88, 0x80])
        let longest = String(repeating: "é", count: 61) + "x"  // 123 bytes
        #expect(try WebSocketFrameEncoder.close(code: .normalClosure, reason: longest, using: &random).count == 131)
    }

    @Test func controlFramesThatBreakTheRulesAreRefused() {
        var random = SplitMix64(seed: 3)
        #expect(throws: WebSocketEncodingError.controlPayloadTooLong(.ping, length: 126)) {
            try WebSocketFrameEncoder.control(.ping, payload: [UInt8](repeating: 0, count: 126), using: &random)
        }
        #expect(throws: WebSocketEncodingError.closeReasonTooLong(length: 124)) {
            try WebSocketFrameEncoder.close(
                code: .normalClosure, reason: String(repeating: "x", count: 124), using: &random)
        }
        #expect(throws: WebSocketEncodingError.closeReasonWithoutCode) {
            try WebSocketFrameEncoder.close(code: nil, reason: "why", using: &random)
        }
        for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535] {
            let closeCode = WebSocketCloseCode(rawValue: code)
            #expect(throws: WebSocketEncodingError.invalidCloseCode(closeCode)) {
                try WebSocketFrameEncoder.close(code: closeCode, using: &random)
            }
        }
        #expect(
            (try? WebSocketFrameEncoder.control(.ping, payload: [UInt8](repeating: 0, count: 125), using: &random))?
                .count == 131)
    }

    /// The codes that may be sent: 1000–1003, 1007–1014 (IANA's 1012–1014 included), 3000–4999.
    @Test func closeCodesAllowedOnTheWire() {
        let allowed = (0...UInt16.max).filter { WebSocketCloseCode(rawValue: $0).mayBeSent }
        #expect(allowed.count == 4 + 8 + 2000)
        #expect(
            allowed.allSatisfy {
                (1000...1003).contains($0) || (1007...1014).contains($0) || (3000...4999).contains($0)
            })
        #expect(WebSocketCloseCode.goingAway.description == "1001 (going away)")
        #expect(WebSocketCloseCode(rawValue: 4001).description == "4001")
    }
}
