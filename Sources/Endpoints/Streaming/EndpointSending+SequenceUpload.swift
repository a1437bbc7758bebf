import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension EndpointSending {
    /// Sends `endpoint` with the bytes an asynchronous sequence produces as its body, reporting
    /// progress, and returns the decoded response.
    ///
    /// ```swift
    /// // Chunks from anywhere: a recorder, a compressor, another request's body.
    /// let chunks = AsyncStream<Data> { continuation in
    ///     for part in parts { continuation.yield(part) }
    ///     continuation.finish()
    /// }
    /// let receipt = try await client.upload(PutVideo(id: 7), from: chunks) { progress in
    ///     print(progress.completedBytes)
    /// }
    /// ```
    ///
    /// The sequence is read to its end into a temporary file first, a chunk at a time, and the
    /// file is then sent as ``upload(_:fromFile:environment:auth:middleware:progress:)`` sends one:
    /// with its `Content-Length`, read afresh for every send. That is what makes a one-shot
    /// sequence safe to retry and to resend after a token refresh, and it is the only way that
    /// works on Linux, whose URLSession reads a streamed body on a queue every session shares (a
    /// body that waits for its next chunk there would stall every transfer in the process). The
    /// temporary file is removed when the call returns. `progress` reports the upload itself.
    ///
    /// - Throws: `T.TaskError`. An error of its own the sequence throws is `.streamError` (a
    ///   `CancellationError` is `.cancelled`, a `URLError` `.urlLoadError`); a temporary file
    ///   that cannot be written is `.urlLoadError` with `URLError.cannotWriteToFile`. Nothing is
    ///   sent in either case.
    public func upload<T: Endpoint, Body: AsyncSequence>(
        _ endpoint: T,
        from body: Body,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = [],
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(T.TaskError) -> T.Response where Body.Element: DataProtocol {
        let spool = try await SpooledBody(body, as: T.TaskError.self)
        defer { spool.remove() }
        return try await upload(
            endpoint, fromFile: spool.file, environment: environment, auth: auth, middleware: middleware,
            progress: progress)
    }

    /// Sends `endpoint` with the bytes of `body`, a sequence of single bytes such as
    /// another stream's bytes, gathered into chunks of 64 KiB and sent as a sequence of chunks is:
    /// read to its end into a temporary file, then uploaded from it.
    ///
    /// ```swift
    /// let receipt = try await client.upload(PutVideo(id: 7), from: compressedBytes)
    /// ```
    public func upload<T: Endpoint, Body: AsyncSequence>(
        _ endpoint: T,
        from body: Body,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = [],
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(T.TaskError) -> T.Response where Body.Element == UInt8 {
        try await upload(
            endpoint, from: SpooledBody.Chunked(bytes: body), environment: environment, auth: auth,
            middleware: middleware, progress: progress)
    }
}

/// An upload body read from an asynchronous sequence into a temporary file.
struct SpooledBody {
    let file: URL

    /// Reads `body` to its end into a new temporary file; on any failure the file is removed and
    /// the error is `EndpointTaskError(streaming: error)`.
    init<Body: AsyncSequence, ErrorResponse: Sendable>(
        _ body: Body, as _: EndpointTaskError<ErrorResponse>.Type
    ) async throws(EndpointTaskError<ErrorResponse>) where Body.Element: DataProtocol {
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("endpoints-upload-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: file.path, contents: nil),
            let handle = FileHandle(forWritingAtPath: file.path)
        else {
            throw .urlLoadError(URLError(.cannotWriteToFile, userInfo: [NSURLErrorFailingURLErrorKey: file]))
        }
        defer { try? handle.close() }
        do {
            for try await chunk in body {
                if Task.isCancelled { throw CancellationError() }
                do {
                    try handle.write(contentsOf: chunk)
                } catch {
                    throw URLError(.cannotWriteToFile, userInfo: [NSUnderlyingErrorKey: error])
                }
            }
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw EndpointTaskError<ErrorResponse>(streaming: error)
        }
        self.file = file
    }

    func remove() { try? FileManager.default.removeItem(at: file) }

    /// Single bytes gathered into chunks of up to 64 KiB, so that each is not written alone.
    struct Chunked<Bytes: AsyncSequence>: AsyncSequence where Bytes.Element == UInt8 {
        typealias Element = [UInt8]
        let bytes: Bytes

        struct AsyncIterator: AsyncIteratorProtocol {
            var bytes: Bytes.AsyncIterator
            var finished = false

            mutating func next() async throws -> [UInt8]? {
                guard !finished else { return nil }
                var chunk: [UInt8] = []
                chunk.reserveCapacity(1 << 16)
                while chunk.count < 1 << 16 {
                    guard let byte = try await bytes.next() else {
                        finished = true
                        break
                    }
                    chunk.append(byte)
                }
                return chunk.isEmpty ? nil : chunk
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(bytes: bytes.makeAsyncIterator()) }
    }
}
