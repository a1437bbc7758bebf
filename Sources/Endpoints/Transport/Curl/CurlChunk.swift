#if canImport(FoundationNetworking)
    import Foundation

    /// A streamed body's bytes, gathered on the loop thread for its reader in one of its loop's
    /// buffers (``CurlChunkPool``), and handed over as `Data` (see ``take(from:)``).
    ///
    /// Only the loop thread touches it (it is a field of the exchange's marked "loop").
    struct CurlChunk {
        private var buffer: UnsafeMutableRawPointer?
        /// How many bytes wait.
        private(set) var count = 0

        var isEmpty: Bool { count == 0 }

        /// Copies as much of `bytes` as the buffer has room for (taking one from `pool` first, when
        /// none is held); the count copied. The chunk is full when that is less than `bytes.count`
        /// or ``count`` reached the pool's size.
        mutating func append(_ bytes: UnsafeRawBufferPointer, from pool: CurlChunkPool) -> Int {
            guard let source = bytes.baseAddress, !bytes.isEmpty else { return 0 }
            let buffer = self.buffer ?? pool.take()
            self.buffer = buffer
            let copied = min(bytes.count, pool.size - count)
            (buffer + count).copyMemory(from: source, byteCount: copied)
            count += copied
            return copied
        }

        /// The bytes that wait, as `Data`, and the chunk empty again.
        ///
        /// Under half a buffer is copied out at its size, and the buffer kept for the next bytes:
        /// a reader that keeps small chunks (events, lines) holds no more memory than their bytes.
        /// More is handed over in the buffer itself, which goes back to `pool` when the reader lets
        /// the `Data` go.
        mutating func take(from pool: CurlChunkPool) -> Data {
            guard let buffer, count > 0 else { return Data() }
            defer { count = 0 }
            if count < pool.size / 2 { return Data(bytes: buffer, count: count) }
            self.buffer = nil
            return Data(bytesNoCopy: buffer, count: count, deallocator: .custom { pointer, _ in pool.give(pointer) })
        }

        /// Drops the bytes and gives the buffer back: the exchange ends, or its reader went away.
        mutating func release(to pool: CurlChunkPool) {
            if let buffer { pool.give(buffer) }
            buffer = nil
            count = 0
        }
    }

    /// The buffers a loop's streamed bodies are gathered in, reused from one chunk to the next: at
    /// most ``limit`` wait idle, the others are freed as they come back.
    ///
    /// Allocated afresh for each chunk, a buffer of 256 KiB comes from glibc's malloc as new pages
    /// (it is above the mmap threshold, or it is trimmed from the top of a thread's arena once the
    /// reader frees it), and those pages' faults cost as much as the copy into them: a 1 GB
    /// download streamed from loopback nginx ran at about 1.6 GB/s that way, and at about
    /// 2.7 GB/s with malloc told to keep its memory (BENCHMARKS.md has the runs with this pool).
    final class CurlChunkPool: Sendable {
        /// The bytes of each buffer.
        let size: Int
        /// The most buffers kept idle.
        let limit: Int
        /// The idle buffers' addresses (a pointer is not `Sendable`; these belong to the pool alone).
        private let idle = Locked<[UInt]>([])

        init(size: Int, limit: Int) {
            self.size = size
            self.limit = limit
        }

        /// An idle buffer, or a new one.
        func take() -> UnsafeMutableRawPointer {
            if let address = idle.withLock({ $0.popLast() }), let buffer = UnsafeMutableRawPointer(bitPattern: address)
            {
                return buffer
            }
            return .allocate(byteCount: size, alignment: 16)
        }

        /// Keeps `buffer` for the next chunk, or frees it when ``limit`` wait already. Any thread.
        func give(_ buffer: UnsafeMutableRawPointer) {
            let kept = idle.withLock { idle -> Bool in
                guard idle.count < limit else { return false }
                idle.append(UInt(bitPattern: buffer))
                return true
            }
            if !kept { buffer.deallocate() }
        }

        /// How many buffers wait idle (for tests).
        var idleCount: Int { idle.withLock { $0.count } }

        deinit {
            idle.withLock { idle in
                for address in idle { UnsafeMutableRawPointer(bitPattern: address)?.deallocate() }
                idle.removeAll()
            }
        }
    }
#endif
