import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    /// How a streamed body's bytes are gathered for the reader, and the buffers they are gathered in
    /// reused.
    @Suite struct CurlChunkTests {
        private func append(_ bytes: [UInt8], to chunk: inout CurlChunk, pool: CurlChunkPool) -> Int {
            bytes.withUnsafeBytes { chunk.append($0, from: pool) }
        }

        @Test func aSmallChunkIsCopiedOutAndItsBufferKept() {
            let pool = CurlChunkPool(size: 64, limit: 2)
            var chunk = CurlChunk()
            #expect(append(Array(repeating: 7, count: 10), to: &chunk, pool: pool) == 10)
            let data = chunk.take(from: pool)
            #expect(data == Data(repeating: 7, count: 10))
            #expect(chunk.isEmpty)
            // The buffer stays with the chunk for the next bytes; none went back to the pool.
            #expect(pool.idleCount == 0)
            chunk.release(to: pool)
            #expect(pool.idleCount == 1)
        }

        @Test func aLargeChunkTravelsInItsBufferWhichComesBackWhenTheReaderLetsGo() {
            let pool = CurlChunkPool(size: 64, limit: 2)
            var chunk = CurlChunk()
            let bytes = (0..<84).map { UInt8($0) }
            // Only as much as the buffer holds is taken; the rest goes into the next chunk.
            #expect(append(bytes, to: &chunk, pool: pool) == 64)
            #expect(chunk.count == 64)
            var data: Data? = chunk.take(from: pool)
            #expect(data == Data(bytes[..<64]))
            #expect(pool.idleCount == 0)
            #expect(append(Array(bytes[64...]), to: &chunk, pool: pool) == 20)
            // Under half a buffer: copied out, the chunk keeps a buffer (a new one).
            #expect(chunk.take(from: pool) == Data(bytes[64...]))
            #expect(pool.idleCount == 0)
            data = nil
            #expect(pool.idleCount == 1)
            chunk.release(to: pool)
            #expect(pool.idleCount == 2)
        }

        @Test func aPoolKeepsNoMoreThanItsLimit() {
            let pool = CurlChunkPool(size: 16, limit: 1)
            let buffers = (0..<3).map { _ in pool.take() }
            for buffer in buffers { pool.give(buffer) }
            #expect(pool.idleCount == 1)
            // The one kept is handed out again.
            let again = pool.take()
            #expect(buffers.contains(again))
            #expect(pool.idleCount == 0)
            pool.give(again)
        }
    }
#endif
