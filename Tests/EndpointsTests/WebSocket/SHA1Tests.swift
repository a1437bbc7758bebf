import Testing

@testable import Endpoints

/// SHA-1 against the FIPS 180 examples (RFC 3174 §7.3), and at the lengths where the padding
/// takes a block of its own.
@Suite struct SHA1Tests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0 >> 4, radix: 16) + String($0 & 0xF, radix: 16) }.joined()
    }

    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "a49b2446a02c645bf419f995b67091253a04a259"
        ),
        ("The quick brown fox jumps over the lazy dog", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"),
    ])
    func fipsExamples(_ message: String, _ digest: String) {
        #expect(hex(SHA1.hash(Array(message.utf8))) == digest)
    }

    @Test func oneMillionAs() {
        #expect(
            hex(SHA1.hash([UInt8](repeating: 0x61, count: 1_000_000))) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    /// 55 bytes leave room for the length in the last block, 56 do not; 64 and 120 end a block.
    /// The digests are Python's hashlib's for the bytes 0, 1, 2, … (mod 251).
    @Test(arguments: [
        (55, "8ae2d46729cfe68ff927af5eec9c7d1b66d65ac2"),
        (56, "636e2ec698dac903498e648bd2f3af641d3c88cb"),
        (63, "6d942da0c4392b123528f2905c713a3ce28364bd"),
        (64, "c6138d514ffa2135bfce0ed0b8fac65669917ec7"),
        (119, "41c89d06001bab4ab78736b44efe7ce18ce6ae08"),
        (120, "d3dbd653bd8597b7475321b60a36891278e6a04a"),
    ])
    func paddingBoundaries(_ count: Int, _ digest: String) {
        #expect(hex(SHA1.hash((0..<count).map { UInt8($0 % 251) })) == digest)
    }

    /// SHA-256 shares the padding: its own FIPS examples still hold.
    @Test func sha256StillMatchesFIPS() {
        #expect(
            hex(SHA256.hash(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }
}
