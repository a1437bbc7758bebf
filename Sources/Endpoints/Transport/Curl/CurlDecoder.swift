#if canImport(FoundationNetworking)
    import CEndpointsCurl
    import Foundation

    /// Decodes a `gzip` or `deflate` response body as it arrives, in pieces the transfer's pace
    /// allows, and refuses a decompression bomb.
    ///
    /// The transport decodes these itself rather than letting libcurl: libcurl keeps decoding the
    /// rest of a received chunk into its own memory after the transfer is paused (a gzip chunk can
    /// become 16 MB; a brotli or zstd one far more), and passes nothing it cannot decode. Here a
    /// chunk is decoded 64 KiB at a time and decoding stops as soon as the reader is behind (the
    /// undecoded rest, at most one chunk, waits here); a body in any other coding arrives as sent,
    /// with its `Content-Encoding`, as URLSession hands over codings it does not know.
    ///
    /// A bomb: a body that decodes to more than ``maximumRatio`` times its compressed size (past
    /// its first MiB) ends with `URLError.cannotDecodeContentData`, after at most that much.
    final class CurlDecoder {
        /// 100: ordinary text and JSON compress 3 to 30 times; a bomb, a thousand times and more.
        static let maximumRatio = 100
        /// 1 MiB decoded is always allowed, whatever the ratio.
        static let allowance = 1 << 20

        private let inflater: OpaquePointer
        private let output: UnsafeMutableRawBufferPointer
        private(set) var compressedBytes = 0
        private(set) var decodedBytes = 0
        /// The decoded stream ended; bytes after it are ignored.
        private(set) var ended = false

        /// A decoder for `encoding` (the response's `Content-Encoding`), or `nil` when it is not
        /// exactly `gzip` or `deflate`: that body arrives as it was sent.
        init?(contentEncoding encoding: String?) {
            guard let encoding = encoding?.trimmingCharacters(in: .whitespaces).lowercased() else { return nil }
            let gzip: Bool
            switch encoding {
            case "gzip", "x-gzip": gzip = true
            case "deflate": gzip = false
            default: return nil
            }
            guard let inflater = ep_inflater_new(gzip ? 1 : 0) else { return nil }
            self.inflater = inflater
            output = .allocate(byteCount: 64 * 1024, alignment: 1)
        }

        deinit {
            ep_inflater_free(inflater)
            output.deallocate()
        }

        enum Failure: Error {
            case invalid
            case bomb
        }

        /// Decodes from `input`, handing each decoded piece to `deliver`, until `input` is used up
        /// or `shouldStop` says the reader is behind: how many input bytes were used.
        func decode(
            _ input: UnsafeRawBufferPointer, shouldStop: () -> Bool, deliver: (UnsafeRawBufferPointer) -> Void
        ) -> Result<Int, Failure> {
            var used = 0
            while used < input.count, !ended, !shouldStop() {
                var consumed = 0
                var produced = 0
                let code = ep_inflate(
                    inflater, input.baseAddress! + used, input.count - used, &consumed, output.baseAddress,
                    output.count, &produced)
                used += consumed
                compressedBytes += consumed
                decodedBytes += produced
                if code == Int32(EP_INFLATE_ERROR) { return .failure(.invalid) }
                if decodedBytes > max(Self.allowance, compressedBytes * Self.maximumRatio) { return .failure(.bomb) }
                if produced > 0 { deliver(UnsafeRawBufferPointer(rebasing: output[..<produced])) }
                if code == Int32(EP_INFLATE_END) {
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
