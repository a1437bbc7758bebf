import Testing

@testable import Endpoints

/// The incremental UTF-8 check: what Unicode's Table 3-7 allows, refused at the first byte that
/// decides, and the same answer however the bytes are split.
@Suite struct UTF8ValidatorTests {
    /// Whether `bytes` are well-formed UTF-8 as a whole, by the standard library's decoder: its
    /// repairs change the bytes exactly when they are not.
    private func reference(_ bytes: [UInt8]) -> Bool {
        Array(String(decoding: bytes, as: UTF8.self).utf8) == bytes
    }

    /// Whether the validator accepts `bytes` as a whole text.
    private func accepts(_ bytes: [UInt8]) -> Bool {
        var validator = UTF8Validator()
        return validator.validate(bytes) && validator.isAtBoundary
    }

    @Test(arguments: [
        "", "plain ASCII, longer than eight bytes", "\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}",
        "κόσμε", "€ and 𝄞 and 😀", "\u{D7FF}\u{E000}\u{FFFD}", "\u{0}",
    ])
    func wellFormedTextIsAccepted(_ text: String) {
        #expect(accepts(Array(text.utf8)))
    }

    @Test(
        arguments: [
            // Overlong forms of "/" and of the largest values each length could hold shorter.
            [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xF0, 0x80, 0x80, 0xAF], [0xC1, 0xBF], [0xE0, 0x9F, 0xBF],
            [0xF0, 0x8F, 0xBF, 0xBF], [0xC0, 0x80],
            // Surrogates, alone and paired.
            [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xED, 0xA0, 0x80, 0xED, 0xB0, 0x80],
            // Past U+10FFFF, and bytes that never occur.
            [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0xFE], [0xFF],
            // Continuation bytes without a lead, a lead without its continuation.
            [0x80], [0xBF], [0x61, 0x80, 0x62], [0xC2, 0x41], [0xE2, 0x82, 0x41], [0xF0, 0x9D, 0x84, 0x41],
            // A text that ends inside a code point.
            [0xC2], [0xE2, 0x82], [0xF0, 0x9D, 0x84],
        ] as [[UInt8]])
    func malformedTextIsRefused(_ bytes: [UInt8]) {
        #expect(!accepts(bytes))
        #expect(!reference(bytes))
    }

    /// Every sequence of one and two bytes, and three- and four-byte sequences built from the bytes
    /// at the edges of every range, agree with the standard library.
    @Test func agreesWithTheStandardLibrary() {
        for first in 0...255 {
            #expect(accepts([UInt8(first)]) == reference([UInt8(first)]))
            for second in 0...255 {
                let bytes = [UInt8(first), UInt8(second)]
                if accepts(bytes) != reference(bytes) { Issue.record("disagree on \(bytes)") }
            }
        }
        let edges: [UInt8] = [0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xF0, 0xFF]
        for lead in 0xC0...0xFF {
            for second in edges {
                for third in edges {
                    let three = [UInt8(lead), second, third]
                    if accepts(three) != reference(three) { Issue.record("disagree on \(three)") }
                    for fourth in edges {
                        let four = three + [fourth]
                        if accepts(four) != reference(four) { Issue.record("disagree on \(four)") }
                    }
                }
            }
        }
    }

    /// A code point split across pieces (as across a text message's fragments) is accepted, at
    /// every split; a bad byte is refused in whichever piece it falls.
    @Test func splitsChangeNothing() {
        let good = Array("ab€😀cdefghijklmnop𝄞κ".utf8)
        let bad = Array("abcdefghij".utf8) + [0xED, 0xA0, 0x80] + Array("klm".utf8)
        for split in 0...good.count {
            var validator = UTF8Validator()
            #expect(validator.validate(good[..<split]) && validator.validate(good[split...]) && validator.isAtBoundary)
        }
        for split in 0...bad.count {
            var validator = UTF8Validator()
            #expect(!(validator.validate(bad[..<split]) && validator.validate(bad[split...])))
        }
        var single = UTF8Validator()
        #expect(good.allSatisfy { single.validate([$0]) } && single.isAtBoundary)
    }

    /// The ASCII fast path reads eight bytes at a time: a bad byte at any offset of a long run is
    /// found, and the first byte that decides is the one refused.
    @Test func aBadByteAnywhereInALongRunIsFound() {
        for position in 0..<40 {
            var bytes = [UInt8](repeating: 0x61, count: 40)
            bytes[position] = 0xFF
            var validator = UTF8Validator()
            let before = validator.validate(bytes[..<(position)])
            let at = validator.validate(bytes[position...])
            #expect(before)
            #expect(!at)
            #expect(!accepts(bytes))
        }
        var validator = UTF8Validator()
        let valid = validator.validate([UInt8](repeating: 0x7A, count: 1000))
        #expect(valid && validator.isAtBoundary)
    }
}
