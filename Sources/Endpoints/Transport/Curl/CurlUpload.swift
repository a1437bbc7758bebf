#if canImport(FoundationNetworking)
    import Foundation

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    /// A request body libcurl reads as it sends: an upload's file (read with `read(2)`, from the
    /// start again when libcurl must resend it), or a stream a request carries
    /// (`httpBodyStream`, which cannot be read twice). Progress goes to the upload's closure as the
    /// bytes are read, at most once per 1 % and 100 ms, and once at the end.
    final class CurlUpload {
        private enum Source {
            case file(Int32)
            case stream(InputStream)
        }

        private let source: Source
        /// The body's length, when known (`nil` sends it chunked).
        let size: Int64?
        private var sent: Int64 = 0
        private var progress: ProgressPacer?

        /// An upload of `file`, whose length is `size`.
        init(file: URL, size: Int64, progress: (@Sendable (TransferProgress) -> Void)?) throws(URLError) {
            let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw URLError(
                    .cannotOpenFile,
                    userInfo: [
                        NSFilePathErrorKey: file.path,
                        NSLocalizedDescriptionKey: "Cannot upload \(file.path): \(String(cString: strerror(errno))).",
                    ])
            }
            source = .file(descriptor)
            self.size = size
            self.progress = progress.map { ProgressPacer(total: size, report: $0) }
        }

        /// An upload of what `stream` holds; `size` from the request's `Content-Length`, if any.
        init(stream: InputStream, size: Int64?) {
            source = .stream(stream)
            self.size = size
            stream.open()
        }

        deinit {
            switch source {
            case .file(let descriptor): close(descriptor)
            case .stream(let stream): stream.close()
            }
        }

        /// Fills `buffer`: the count read, 0 at the end.
        func read(into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, URLError> {
            guard let base = buffer.baseAddress, buffer.count > 0 else { return .success(0) }
            var count: Int
            switch source {
            case .file(let descriptor):
                repeat {
                    count = Glibc.read(descriptor, base, buffer.count)
                } while count < 0 && errno == EINTR
            case .stream(let stream):
                count = stream.read(base.assumingMemoryBound(to: UInt8.self), maxLength: buffer.count)
            }
            guard count >= 0 else {
                return .failure(
                    URLError(
                        .cannotOpenFile, userInfo: [NSLocalizedDescriptionKey: "The request body could not be read."]))
            }
            sent += Int64(count)
            progress?.advance(to: sent, final: count == 0)
            return .success(count)
        }

        /// Reads from `offset` next; `false` when the body cannot go back (a stream).
        /// Whether the body can be sent again from its start (a file can, a stream cannot).
        var readsAgain: Bool {
            if case .file = source { return true }
            return false
        }

        func seek(to offset: Int64) -> Bool {
            guard case .file(let descriptor) = source, lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset)
            else { return false }
            sent = offset
            return true
        }
    }

    /// Reports progress at a pace a progress bar can show without slowing the transfer: when at
    /// least 1 % more of the total and 100 ms have passed since the last report (the later of
    /// the two), and at the end.
    struct ProgressPacer {
        let total: Int64?
        let report: @Sendable (TransferProgress) -> Void
        private var reportedBytes: Int64 = -1
        private var reportedAt: UInt64 = 0

        init(total: Int64?, report: @escaping @Sendable (TransferProgress) -> Void) {
            self.total = total
            self.report = report
        }

        mutating func advance(to bytes: Int64, final: Bool = false) {
            guard bytes != reportedBytes else { return }
            let now = RequestRecorder.now()
            if !final {
                let step = max(1, (total ?? 0) / 100)
                guard bytes - max(0, reportedBytes) >= step, now &- reportedAt >= 100_000_000 else { return }
            }
            reportedBytes = bytes
            reportedAt = now
            report(TransferProgress(completedBytes: bytes, totalBytes: total))
        }
    }
#endif
