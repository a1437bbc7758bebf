import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    /// The decoder alone, driven as the exchange drives it: a body arrives in pieces of any size,
    /// the reader falls behind at any moment (decoding stops, the rest of the piece waits), and
    /// decoding goes on where it stopped, with no input when only the decoder holds output. Every
    /// byte must come out once, in order, whatever the cuts and the pauses.
    @Suite struct CurlDecoderTests {
        /// 640 KiB that compress about fivefold: JSON-like text with random bytes between.
        private static func body(using generator: inout SplitMix64) -> [UInt8] {
            var plain: [UInt8] = []
            while plain.count < 640 << 10 {
                plain += Array(#"{"id":\#(plain.count),"name":"item \#(plain.count % 977)"},"#.utf8)
                if plain.count % 7 == 0 { plain += (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) } }
            }
            return plain
        }

        /// `plain` in `encoding`; a list (`gzip, br`) is applied in its order, as a server would.
        private static func encoded(_ plain: [UInt8], as encoding: String) throws -> [UInt8] {
            let codings = encoding.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard codings.count == 1 else { return try codings.reduce(plain) { try encoded($0, as: $1) } }
            return switch encoding {
            case "br": try Compressors.brotli(plain, quality: 4)
            case "zstd": try Compressors.zstd(plain, level: 3)
            case "deflate": CompressedBodies.zlib(plain)
            case "gzip members":
                // Three members one after another (RFC 1952 §2.2), cut anywhere like the rest.
                stride(from: 0, to: plain.count, by: plain.count / 3 + 1).flatMap {
                    CompressedBodies.gzip(Array(plain[$0..<min($0 + plain.count / 3 + 1, plain.count)]))
                }
            default: CompressedBodies.gzip(plain)
            }
        }

        /// Decodes `encoded` as the exchange does, cut at random and paused at random by
        /// `generator`: the bytes delivered, and whether the decoder saw each stream end.
        private static func decode(
            _ encoded: [UInt8], as encoding: String, using generator: inout SplitMix64
        ) throws -> (delivered: [UInt8], complete: Bool) {
            let decoder = try #require(CurlDecoder(contentEncoding: encoding == "gzip members" ? "gzip" : encoding))
            var delivered: [UInt8] = []
            var offset = 0
            var waiting: [UInt8] = []  // the exchange's `undecoded`
            var turns = 0
            while offset < encoded.count || !waiting.isEmpty || decoder.holdsOutput, !decoder.ended {
                turns += 1
                try #require(turns < 100_000, "no progress")
                // The reader takes this many pieces before it is behind again.
                var budget = Int.random(in: 0...4, using: &generator)
                let shouldStop = {
                    budget -= 1
                    return budget < 0
                }
                if waiting.isEmpty, offset < encoded.count {
                    let size = min(encoded.count - offset, Int.random(in: 1...70_000, using: &generator))
                    waiting = Array(encoded[offset..<(offset + size)])
                    offset += size
                }
                let result = waiting.withUnsafeBytes { bytes in
                    decoder.decode(bytes, shouldStop: shouldStop) { delivered += $0 }
                }
                let used = try result.get()
                waiting.removeFirst(used)
            }
            return (delivered, decoder.isComplete)
        }

        /// Also each stage of a chain: one stage stopping holds back the ones before it.
        @Test(arguments: ["gzip", "gzip members", "deflate", "br", "zstd", "gzip, br", "br, zstd", "zstd, deflate"])
        func anyCutsAndPausesDecodeToTheWholeBody(encoding: String) throws {
            let seed = UInt64.random(in: 0...UInt64.max)
            var generator = SplitMix64(seed: seed)
            let plain = Self.body(using: &generator)
            let encoded = try Self.encoded(plain, as: encoding)
            for trial in 0..<8 {
                let (delivered, complete) = try Self.decode(encoded, as: encoding, using: &generator)
                #expect(delivered == plain, "seed \(seed), trial \(trial): \(delivered.count) of \(plain.count) bytes")
                #expect(complete, "seed \(seed), trial \(trial)")
            }
        }

        /// A body that ends inside a coding's stream (a gzip member or its trailer, a zstd frame,
        /// a deflate or brotli stream without its end) is not complete, wherever it was cut,
        /// however well its framing held: the exchange refuses it rather than hand over a body
        /// silently cut short. No body at all (a `HEAD`, a 204) is complete.
        @Test(arguments: ["gzip", "gzip members", "deflate", "br", "zstd", "gzip, br", "br, zstd", "zstd, deflate"])
        func aBodyCutInsideItsStreamIsNotComplete(encoding: String) throws {
            let seed = UInt64.random(in: 0...UInt64.max)
            var generator = SplitMix64(seed: seed)
            let encoded = try Self.encoded(Self.body(using: &generator), as: encoding)
            let name = encoding == "gzip members" ? "gzip" : encoding
            #expect(try #require(CurlDecoder(contentEncoding: name)).isComplete)
            // Bytes cut from the end: inside the last trailer or frame end, inside the body
            // (half: never a boundary of the three members, which come at about a third and two
            // thirds), and all but the first byte.
            for cut in [1, 2, 4, 8, 9, 100, encoded.count / 2, encoded.count - 1] {
                let decoder = try #require(CurlDecoder(contentEncoding: name))
                let prefix = Array(encoded[..<(encoded.count - cut)])
                var input = prefix[...]
                while !input.isEmpty || decoder.holdsOutput {
                    let used = try Array(input).withUnsafeBytes { bytes in
                        try decoder.decode(bytes, shouldStop: { false }) { _ in }.get()
                    }
                    input = input.dropFirst(used)
                }
                #expect(!decoder.isComplete, "seed \(seed): \(cut) of \(encoded.count) bytes cut")
            }
        }

        /// A `deflate` body may be raw deflate (no zlib wrapper), as some servers send it: it is
        /// told from a zlib one when the zlib inflater refuses its first bytes, and those are read
        /// again as raw deflate, also when they came in an earlier piece (the first byte alone, as
        /// a slow server may send it). Whole, it reads the same.
        @Test(arguments: [0, 1, 2, 3, 5])
        func aRawDeflateBodyReadsTheSameWhereverItsFirstPieceEnds(firstPiece: Int) throws {
            let plain = Array((0..<3_000).map { #"{"id":\#($0)},"# }.joined().utf8)
            for encoded in [CompressedBodies.rawDeflate(plain), CompressedBodies.zlib(plain)] {
                let decoder = try #require(CurlDecoder(contentEncoding: "deflate"))
                var delivered: [UInt8] = []
                for piece in [encoded[..<firstPiece], encoded[firstPiece...]] {
                    let used = try Array(piece).withUnsafeBytes { bytes in
                        try decoder.decode(bytes, shouldStop: { false }) { delivered += $0 }.get()
                    }
                    #expect(used == piece.count)
                }
                #expect(delivered == plain, "\(delivered.count) of \(plain.count) bytes")
                #expect(decoder.isComplete)
            }
        }
    }
#endif
