#if canImport(FoundationNetworking)
    import CEndpointsCurl
    import Foundation

    /// Decodes a `gzip`, `deflate`, `br` or `zstd` response body as it arrives, in pieces the
    /// transfer's pace allows, and refuses a decompression bomb.
    ///
    /// The transport decodes these itself rather than letting libcurl: libcurl keeps decoding the
    /// rest of a received chunk into its own memory after the transfer is paused (a gzip chunk can
    /// become 16 MB; a brotli or zstd one far more), and passes nothing it cannot decode. Here a
    /// chunk is decoded 64 KiB at a time and decoding stops as soon as the reader is behind (the
    /// undecoded rest, at most one chunk, waits here); a body in any other coding arrives as sent,
    /// with its `Content-Encoding`, as URLSession hands over codings it does not know. What a
    /// decoder itself holds is bounded by its coding's window: 32 KiB for gzip and deflate, at most
    /// 16 MiB for brotli, and 8 MiB for zstd, whose frames asking for more are refused (RFC 9659).
    ///
    /// Codings applied one after another (`Content-Encoding: gzip, br`, RFC 9110 §8.4) are decoded
    /// in turn, the last one first, as libcurl decodes them for Linux's URLSession: up to
    /// ``maximumStages`` of them, each one's output passed on 64 KiB at a time, so that the whole
    /// chain waits when the reader is behind.
    ///
    /// Each coding's library (zlib, libbrotlidec, libzstd) is loaded when first needed, as libcurl
    /// is; a coding whose library is missing is neither offered nor decoded (``offered``).
    ///
    /// A bomb: a body that decodes to more than ``maximumRatio`` times its compressed size (past
    /// its first MiB) ends with `URLError.cannotDecodeContentData`, after at most that much. Each
    /// stage of a chain is held to the same bound against the bytes received, so no stage does
    /// more work than that either.
    final class CurlDecoder {
        /// 100: ordinary text and JSON compress 3 to 30 times; a bomb, a thousand times and more.
        static let maximumRatio = 100
        /// 1 MiB decoded is always allowed, whatever the ratio.
        static let allowance = 1 << 20
        /// 5 codings at most in one `Content-Encoding`, as libcurl allows since 7.88 (CVE-2023-23916);
        /// a body with more arrives as sent.
        static let maximumStages = 5

        /// The codings decoded here, by the name a `Content-Encoding` gives them, in the order
        /// they are offered.
        private static let codings: [(name: String, coding: Int)] = [
            ("gzip", EP_CODING_GZIP), ("deflate", EP_CODING_DEFLATE), ("br", EP_CODING_BROTLI),
            ("zstd", EP_CODING_ZSTD),
        ]

        /// The codings decoded here whose library loads: `gzip, deflate, br, zstd` where all
        /// load, as Linux's URLSession offers them through libcurl.
        static let offered: [String] = codings.compactMap {
            ep_decoder_available(Int32($0.coding)) == 1 ? $0.name : nil
        }

        /// One coding's decoder, and what it decoded that the next stage (or the reader) has not
        /// taken yet.
        private final class Stage {
            let decoder: OpaquePointer
            let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
            /// Decoded bytes in ``output`` the next stage has not taken: only ever left behind
            /// when that stage stopped because the reader is behind.
            var waiting = 0..<0
            var producedBytes = 0
            /// Its stream ended; bytes after it are ignored.
            var ended = false
            /// The last piece filled the output: the decoder may hold more of what it already took
            /// (brotli and zstd take a whole chunk at once).
            var holdsOutput = false

            init(decoder: OpaquePointer) { self.decoder = decoder }

            deinit {
                ep_decoder_free(decoder)
                output.deallocate()
            }
        }

        /// In decoding order: the coding applied last comes first.
        private let stages: [Stage]
        /// What the first stage took of the body, which every stage's output is held to.
        private var compressedBytes = 0
        /// The decoded stream ended; bytes after it are ignored.
        var ended: Bool { stages[stages.count - 1].ended }
        /// Output is waiting somewhere in the chain (a decoder that filled its output, or a
        /// stage's decoded bytes the next has not taken), which the next
        /// ``decode(_:shouldStop:deliver:)`` hands over first, even with no input. Never once the
        /// decoded stream ended.
        var holdsOutput: Bool {
            !ended && stages.contains { !$0.waiting.isEmpty || $0.holdsOutput }
        }
        /// Whether the body, as far as it came, ends where each coding's stream does: `false` for
        /// a stream cut short (a gzip member, a zstd frame, a deflate or brotli stream without its
        /// end), whatever framed the body. `true` for a body with no bytes at all (a `HEAD`, a 204).
        var isComplete: Bool {
            !holdsOutput && stages.allSatisfy { $0.ended || ep_decoder_between_streams($0.decoder) == 1 }
        }

        /// A decoder for `encoding` (the response's `Content-Encoding`), or `nil` when it names
        /// no coding, one not decoded here or whose library does not load, or more than
        /// ``maximumStages``: that body arrives as it was sent. `identity` and empty entries are
        /// skipped.
        init?(contentEncoding encoding: String?) {
            guard let encoding else { return nil }
            var names: [String] = []
            for entry in encoding.split(separator: ",") {
                // Empty list elements are ignored (RFC 9110 §5.6.1.2), as `identity` is.
                let name = entry.trimmingCharacters(in: .whitespaces).lowercased()
                guard !name.isEmpty, name != "identity" else { continue }
                names.append(name == "x-gzip" ? "gzip" : name)
            }
            guard !names.isEmpty, names.count <= Self.maximumStages else { return nil }
            var stages: [Stage] = []
            for name in names.reversed() {
                guard let coding = Self.codings.first(where: { $0.name == name })?.coding,
                    let decoder = ep_decoder_new(Int32(coding))
                else { return nil }
                stages.append(Stage(decoder: decoder))
            }
            self.stages = stages
        }

        enum Failure: Error {
            case invalid
            case bomb
            /// The body ended inside a coding's stream (``isComplete`` is `false`).
            case truncated
        }

        /// Decodes from `input`, handing each decoded piece to `deliver`, until `input` is used up
        /// and the chain holds nothing more, or `shouldStop` says the reader is behind: how many
        /// input bytes were used.
        func decode(
            _ input: UnsafeRawBufferPointer, shouldStop: () -> Bool, deliver: (UnsafeRawBufferPointer) -> Void
        ) -> Result<Int, Failure> {
            Result { () throws(Failure) in try run(0, on: input, shouldStop: shouldStop, deliver: deliver) }
        }

        /// Runs stage `index` on `input`, passing what it decodes on: how much of `input` it used
        /// (all of it once its stream, or the whole chain's, ended).
        private func run(
            _ index: Int, on input: UnsafeRawBufferPointer, shouldStop: () -> Bool,
            deliver: (UnsafeRawBufferPointer) -> Void
        ) throws(Failure) -> Int {
            let stage = stages[index]
            var used = 0
            while true {
                // What this stage decoded before goes on first; while the next stages are behind
                // this one waits.
                try handOn(index, shouldStop: shouldStop, deliver: deliver)
                guard stage.waiting.isEmpty, used < input.count || stage.holdsOutput,
                    !stage.ended, !ended, !shouldStop()
                else { break }
                var consumed = 0
                var produced = 0
                let code = ep_decode(
                    stage.decoder, input.baseAddress.map { $0 + used }, input.count - used, &consumed,
                    stage.output.baseAddress, stage.output.count, &produced)
                stage.holdsOutput = produced == stage.output.count && code == Int32(EP_DECODE_OK)
                used += consumed
                if index == 0 { compressedBytes += consumed }
                stage.producedBytes += produced
                if code == Int32(EP_DECODE_ERROR) { throw .invalid }
                if stage.producedBytes > max(Self.allowance, compressedBytes * Self.maximumRatio) { throw .bomb }
                stage.waiting = 0..<produced
                if code == Int32(EP_DECODE_END) {
                    stage.ended = true
                } else if consumed == 0 && produced == 0 {
                    break
                }
            }
            // Whatever follows the end of a stream is not part of the body.
            return stage.ended || ended ? input.count : used
        }

        /// Hands what stage `index` decoded to the next stage, or to the reader after the last;
        /// also lets the next stages go on with output they hold.
        private func handOn(
            _ index: Int, shouldStop: () -> Bool, deliver: (UnsafeRawBufferPointer) -> Void
        ) throws(Failure) {
            let stage = stages[index]
            let bytes = UnsafeRawBufferPointer(rebasing: stage.output[stage.waiting])
            if index == stages.count - 1 {
                if !bytes.isEmpty { deliver(bytes) }
                stage.waiting = 0..<0
            } else if !bytes.isEmpty
                || stages[(index + 1)...].contains(where: { !$0.waiting.isEmpty || $0.holdsOutput })
            {
                let taken = try run(index + 1, on: bytes, shouldStop: shouldStop, deliver: deliver)
                stage.waiting = (stage.waiting.lowerBound + taken)..<stage.waiting.upperBound
            }
        }

        /// The error for `failure`.
        static func error(_ failure: Failure, url: URL) -> URLError {
            let sentence =
                switch failure {
                case .invalid: "The response body is not valid for its Content-Encoding."
                case .truncated:
                    "The response body ended inside its Content-Encoding's stream: it was cut short."
                case .bomb:
                    "The response body decodes to more than \(maximumRatio) times its compressed size; "
                        + "it was refused as a decompression bomb."
                }
            return URLError(
                .cannotDecodeContentData,
                userInfo: [NSLocalizedDescriptionKey: sentence, NSURLErrorFailingURLErrorKey: url])
        }
    }
#endif
