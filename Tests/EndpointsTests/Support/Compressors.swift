#if canImport(FoundationNetworking)
    import Foundation
    import Testing

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    /// Brotli and zstd bodies made by the real encoders, libbrotlienc and libzstd, loaded with
    /// `dlopen` as the transport loads their decoders: Debian's libcurl package brings both
    /// (libbrotli1 has the encoder beside the decoder, libzstd1 both), so wherever libcurl's brotli
    /// and zstd are, these are. A test whose encoder is missing records why and fails.
    enum Compressors {
        /// `data` compressed by `BrotliEncoderCompress` at `quality` (0-11), a 4 MiB window.
        static func brotli(_ data: [UInt8], quality: Int32 = 5) throws -> [UInt8] {
            typealias Compress =
                @convention(c) (
                    Int32, Int32, Int32, Int, UnsafePointer<UInt8>?, UnsafeMutablePointer<Int>,
                    UnsafeMutablePointer<UInt8>?
                ) -> Int32
            let compress = try #require(symbol("BrotliEncoderCompress", in: "libbrotlienc.so.1", as: Compress.self))
            var size = data.count + data.count / 8 + 1024
            var output = [UInt8](repeating: 0, count: size)
            let done = data.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBufferPointer {
                    // 22: lgwin, a 4 MiB window; 0: BROTLI_MODE_GENERIC.
                    compress(quality, 22, 0, input.count, input.baseAddress, &size, $0.baseAddress)
                }
            }
            try #require(done == 1, "BrotliEncoderCompress failed")
            return Array(output[..<size])
        }

        /// `data` compressed by `ZSTD_compress` at `level`: one frame.
        static func zstd(_ data: [UInt8], level: Int32 = 3) throws -> [UInt8] {
            typealias Bound = @convention(c) (Int) -> Int
            typealias Compress = @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeRawPointer?, Int, Int32) -> Int
            typealias IsError = @convention(c) (Int) -> UInt32
            let bound = try #require(symbol("ZSTD_compressBound", in: "libzstd.so.1", as: Bound.self))
            let compress = try #require(symbol("ZSTD_compress", in: "libzstd.so.1", as: Compress.self))
            let isError = try #require(symbol("ZSTD_isError", in: "libzstd.so.1", as: IsError.self))
            var output = [UInt8](repeating: 0, count: bound(data.count))
            let size = data.withUnsafeBytes { input in
                output.withUnsafeMutableBytes {
                    compress($0.baseAddress, $0.count, input.baseAddress, input.count, level)
                }
            }
            try #require(isError(size) == 0, "ZSTD_compress failed")
            return Array(output[..<size])
        }

        /// A zstd frame of `blocks` RLE blocks of 128 KiB of `byte` each (4 bytes a block), with
        /// a window of 2^`windowLog` bytes (RFC 8878 §3.1.1.1.2): 1,024 blocks make 128 MiB of 4 KB.
        static func zstdRLE(byte: UInt8, blocks: Int, windowLog: Int = 17) -> [UInt8] {
            // Magic; frame header descriptor 0 (a window descriptor, no content size, no
            // checksum); the window descriptor: exponent windowLog - 10, mantissa 0.
            var frame: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x00, UInt8((windowLog - 10) << 3)]
            let size = min(128 << 10, 1 << windowLog)
            for index in 0..<blocks {
                // Block header, 3 bytes little-endian: last block (1 bit), type 1 RLE (2 bits), size.
                let header = UInt32(index == blocks - 1 ? 1 : 0) | (1 << 1) | (UInt32(size) << 3)
                frame += [UInt8(header & 0xFF), UInt8((header >> 8) & 0xFF), UInt8(header >> 16), byte]
            }
            return frame
        }

        private static func symbol<Function>(_ name: String, in library: String, as type: Function.Type) -> Function? {
            guard let handle = dlopen(library, RTLD_NOW | RTLD_LOCAL), let pointer = dlsym(handle, name) else {
                return nil
            }
            return unsafeBitCast(pointer, to: type)
        }
    }
#endif
