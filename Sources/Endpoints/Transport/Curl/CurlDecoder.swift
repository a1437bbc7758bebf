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
    /// Each coding's library (zlib, libbrotlidec, libzstd) is loaded when first needed, as libcurl
    /// is; a coding whose library is missing is neither offered nor decoded (``offered``).
    ///
    /// A bomb: a body that decodes to more than ``maximumRatio`` times its compressed size (past
    /// its first MiB) ends with `URLError.cannotDecodeContentData`, after at most that much.
    final class CurlDecoder {
        /// 100: ordinary text and JSON compress 3 to 30 times; a bomb, a thousand times and more.
        static let maximumRatio = 100
        /// 1 MiB decoded is always allowed, whatever the ratio.
        static let allowance = 1 << 20

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

        private let decoder: OpaquePointer
        private let output: UnsafeMutableRawBufferPointer
        private(set) var compressedBytes = 0
        private(set) var decodedBytes = 0
        /// The decoded stream ended; bytes after it are ignored.
        private(set) var ended = false
        /// The last piece filled the output: the decoder may hold more of what it already took
        /// (brotli and zstd take a whole chunk at once), which the next ``decode(_:shouldStop:deliver:)``
        /// hands over first, even with no input.
        private(set) var holdsOutput = false

        /// A decoder for `encoding` (the response's `Content-Encoding`), or `nil` when it is not
        /// exactly one coding decoded here, or its library does not load: that body arrives as it
        /// was sent.
        init?(contentEncoding encoding: String?) {
            guard var name = encoding?.trimmingCharacters(in: .whitespaces).lowercased() else { return nil }
            if name == "x-gzip" { name = "gzip" }
            guard let coding = Self.codings.first(where: { $0.name == name })?.coding,
                let decoder = ep_decoder_new(Int32(coding))
            else { return nil }
            self.decoder = decoder
            output = .allocate(byteCount: 64 * 1024, alignment: 1)
        }

        deinit {
            ep_decoder_free(decoder)
            output.deallocate()
        }

        enum Failure: Error {
            case invalid
            case bomb
        }

        /// Decodes from `input`, handing each decoded piece to `deliver`, until `input` is used up
        /// and the decoder holds nothing more, or `shouldStop` says the reader is behind: how many
        /// input bytes were used.
        func decode(
            _ input: UnsafeRawBufferPointer, shouldStop: () -> Bool, deliver: (UnsafeRawBufferPointer) -> Void
        ) -> Result<Int, Failure> {
            var used = 0
            while used < input.count || holdsOutput, !ended, !shouldStop() {
                var consumed = 0
                var produced = 0
                let code = ep_decode(
                    decoder, input.baseAddress.map { $0 + used }, input.count - used, &consumed,
                    output.baseAddress, output.count, &produced)
                holdsOutput = produced == output.count && code == Int32(EP_DECODE_OK)
                used += consumed
                compressedBytes += consumed
                decodedBytes += produced
                if code == Int32(EP_DECODE_ERROR) { return .failure(.invalid) }
                if decodedBytes > max(Self.allowance, compressedBytes * Self.maximumRatio) { return .failure(.bomb) }
                if produced > 0 { deliver(UnsafeRawBufferPointer(rebasing: output[..<produced])) }
                if code == Int32(EP_DECODE_END) {
                    ended = true
                } else if consumed == 0 && produced == 0 {
                    break
                }
            }
            // Whatever follows the end of the stream is not part of the body.
            return .success(ended ? input.count : used)
        }

        /// The error for `failure`.
        static func error(_ failure: Failure, url: URL) -> URLError {
            let sentence =
                switch failure {
                case .invalid: "The response body is not valid for its Content-Encoding."
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
