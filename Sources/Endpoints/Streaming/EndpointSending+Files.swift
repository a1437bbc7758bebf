import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension EndpointSending {
    /// Sends `endpoint` and writes its body to the file at `destination` as it arrives, reporting
    /// progress.
    ///
    /// ```swift
    /// let file = FileManager.default.temporaryDirectory.appendingPathComponent("firmware.bin")
    /// let response = try await client.download(Firmware(), to: file) { progress in
    ///     print(progress)   // "524288 of 1048576 bytes"
    /// }
    /// ```
    ///
    /// The body goes to a temporary file beside `destination`, created before anything is sent,
    /// which takes the place of `destination` with one `rename(2)` once the whole body arrived: a
    /// file already there is replaced atomically (a reader sees the old file or the new one), and
    /// the new file keeps its permissions. On any failure (an error status, a dropped connection, a
    /// timeout, a cancel) the temporary file is removed and `destination` is left as it was, the
    /// same file with the same bytes. On Apple platforms at most 1 MiB of the body is held in
    /// memory (the transfer is paused while the file is behind). On Linux, where a running data
    /// task cannot be paused, a download without a progress closure is received with a download
    /// task, which writes it to a file as it arrives, so memory stays flat however fast the network
    /// is; that file is renamed beside `destination`, or copied there when it is on another file
    /// system, and the response head, and so middleware, sees the answer when the body is complete.
    /// With a progress closure the body streams as on Apple platforms, faster, but a loopback or
    /// LAN link that outruns the file keeps the unread bytes in memory meanwhile (figures in
    /// <doc:StreamingAndFiles>).
    ///
    /// A large download can survive a dropped connection or a pause (a cancelled task) with
    /// `resumable: true`: what arrived is kept beside `destination`, and the next such call asks
    /// only for the rest. Progress then counts the kept bytes too.
    ///
    /// ```swift
    /// let installer = try await client.download(Installer(), to: file, resumable: true)
    /// ```
    ///
    /// Sent like ``bytes(for:environment:auth:middleware:)``: a status the endpoint does not accept
    /// (its `acceptableStatusCodes`, 2xx by default) throws the typed error response, and nothing
    /// is written.
    ///
    /// - Parameters:
    ///   - endpoint: The endpoint to send.
    ///   - destination: The file to write or replace; its directory must exist and be writable.
    ///   - environment: The server environment; the server's `defaultEnvironment` when omitted.
    ///   - auth: The authentication method; the endpoint's declared `auth` when omitted.
    ///   - middleware: Middleware for this request only, inside the endpoint's own.
    ///   - resumable: Whether a failed or cancelled download keeps what it received, for the next
    ///     resumable download of the same URL to the same destination to ask only for the rest
    ///     (`Range` with `If-Range`, RFC 9110 §14). The bytes are kept in `.NAME.partial` beside
    ///     `destination`, with `.NAME.partial.json` saying what they are a part of, and only when
    ///     the response can be validated: a strong `ETag`, or a `Last-Modified` a second or more
    ///     before its `Date`, and no `Content-Encoding`. A resource that changed meanwhile comes
    ///     back whole and is written from the start; so does the answer of a server that ignores
    ///     ranges. The endpoint must accept `206` (2xx does). The body streams on every transport
    ///     (see <doc:StreamingAndFiles>). `false` by default: nothing is kept, as before.
    ///   - progress: Called as the accepted body is written, on every platform and transport: each
    ///     time the body has grown by 1 % of its length and 100 ms have passed since the previous
    ///     call, whichever comes later (every 100 ms when the length is unknown), and once more
    ///     with the complete body before the call returns. So at most ten calls a second, and for
    ///     a known length about a hundred in all, never a backlog. One call at a time, from a
    ///     child of the calling task (so task-local values are there); the body of a status the
    ///     endpoint does not accept is never reported. Passing none lets Linux use its leanest
    ///     download, a download task (see <doc:StreamingAndFiles>).
    /// - Returns: The response head.
    /// - Throws: `T.TaskError`. A destination that cannot be written is `.urlLoadError` before
    ///   anything is sent: `URLError.cannotCreateFile` when it is a directory or its directory does
    ///   not exist or is not writable. Writing the file later fails with `.cannotWriteToFile`, and
    ///   putting it in place with `.cannotMoveFile`. Each names the path in `NSFilePathErrorKey`
    ///   and in its description.
    @discardableResult
    public func download<T: Endpoint>(
        _ endpoint: T,
        to destination: URL,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = [],
        resumable: Bool = false,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(T.TaskError) -> HTTPURLResponse {
        let accepted = T.definition.acceptedStatusCodes
        // Before anything is sent: a destination that cannot be written fails here. Kept bytes
        // are continued by a 206, so only an endpoint that accepts one resumes.
        let file: FileSink
        do {
            file = try FileSink(destination: destination, resumable: resumable && accepted.contains(206))
        } catch {
            throw .urlLoadError(error)
        }
        let resumption = file.resumption().map { Locked($0) }
        // Progress, whoever measures it (this call as it writes the body, or a transport that
        // receives the body itself), goes to the sink, which keeps the pace and hands each report
        // to a child of this task, which calls `progress`. A resumable download's body streams,
        // so that what arrived before a failure is in its file.
        let sink = DownloadSink(
            destination: destination, wantsProgress: progress != nil || resumption != nil, accepting: accepted)
        async let relayed: Void = relay(sink.reports, to: progress)
        let outcome: Result<HTTPURLResponse, T.TaskError>
        var opened: EndpointStream<T, Data>?
        do throws(T.TaskError) {
            // The transport learns of the download from the request's context.
            let (stream, start, total) = try await openDownload(
                endpoint, environment, auth, middleware, transfer: Transfer(download: sink), resumption: resumption,
                file: file)
            opened = stream
            let written = try await Self.write(stream, to: file, from: start, of: total, reportingTo: sink)
            // A continued part that does not end where its `Content-Range` said: the kept bytes
            // and the part are not one file.
            if start > 0, let total, written != total {
                try? file.restart(keeping: nil)
                let reason =
                    "The continued download does not end where its Content-Range said; its kept bytes were dropped."
                throw .urlLoadError(URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: reason]))
            }
            do {
                // On Linux the transport may have received the whole body into a file of its own.
                try file.commit(replacingWith: sink.takeSpooled())
            } catch {
                throw .urlLoadError(error)
            }
            outcome = .success(stream.response)
        } catch {
            file.discard()
            // A file that could not be written ends the request with that failure.
            opened?.recorder?.finish(failure: error)
            outcome = .failure(error)
        }
        // Every report made so far, and on success the complete body's, reaches `progress` before
        // this call returns or throws.
        sink.finishReports(complete: (try? outcome.get()) != nil)
        await relayed
        return try outcome.get()
    }

    /// Sends a download's request and readies `file` for its body: the stream, the bytes of the
    /// file before its first (kept bytes it continues, or none), and the length of the whole, if
    /// known. A resumable download asks for the rest of its kept bytes (see
    /// ``DownloadResumption``), and once more for the whole when the answer cannot continue them.
    private func openDownload<T: Endpoint>(
        _ endpoint: T,
        _ environment: T.Server.Environments,
        _ auth: T.Auth,
        _ middleware: [any Middleware],
        transfer: Transfer,
        resumption: Locked<DownloadResumption>?,
        file: FileSink
    ) async throws(T.TaskError) -> (EndpointStream<T, Data>, start: Int64, total: Int64?) {
        guard let resumption else {
            let stream = try await bytes(for: endpoint, environment, auth, middleware, transfer: transfer)
            return (stream, 0, stream.response.knownLength)
        }
        while true {
            let stream: EndpointStream<T, Data>
            do {
                stream = try await bytes(
                    for: endpoint, environment, auth, middleware, transfer: transfer, adjust: resumption.asking)
            } catch {
                // A 416 to the kept bytes' range: they no longer fit the resource.
                if let status = error.httpResponse?.statusCode, resumption.withLock({ $0.refused(status: status) }) {
                    continue
                }
                throw error
            }
            let response = stream.response
            let (kept, action) = resumption.withLock { state in
                (state.kept, state.receive(status: response.statusCode) { response.value(forHTTPHeaderField: $0) })
            }
            switch action {
            case .append(let total):
                return (stream, kept, total ?? response.knownLength.map { kept + $0 })
            case .restart(let record):
                do {
                    try file.restart(keeping: record)
                } catch {
                    stream.abandon()
                    throw .urlLoadError(error)
                }
                return (stream, 0, response.knownLength)
            case .askWhole:
                stream.abandon()
            }
        }
    }

    /// Writes the chunks of `stream` to `file` after its first `start` bytes, reporting each to
    /// `sink`, which keeps the pace; returns the length of the file.
    private static func write<T: Endpoint>(
        _ stream: EndpointStream<T, Data>, to file: FileSink, from start: Int64, of total: Int64?,
        reportingTo sink: DownloadSink
    ) async throws(T.TaskError) -> Int64 {
        var written = start
        var chunks = stream.makeAsyncIterator()
        while let chunk = try await chunks.next() {
            do {
                try file.write(chunk)
            } catch {
                throw .urlLoadError(error)
            }
            written += Int64(chunk.count)
            sink.report(TransferProgress(completedBytes: written, totalBytes: total), response: stream.response)
        }
        return written
    }

    /// Sends `endpoint` with the contents of the file at `file` as its body, read as it is sent,
    /// reporting progress, and returns the decoded response.
    ///
    /// ```swift
    /// let receipt = try await client.upload(PutVideo(id: 7), fromFile: movie) { progress in
    ///     print(progress.fractionCompleted ?? 0)
    /// }
    /// ```
    ///
    /// The endpoint declares the method, path and headers; its own body is not sent (declare none).
    /// `Content-Length` is the file's size, and `Content-Type` is `application/octet-stream` unless
    /// the endpoint sets one. Each send (a retry, a resend after a token refresh) reads the file
    /// afresh. Middleware sees the request without its body. The response is decoded as for
    /// ``response(with:environment:auth:middleware:)``. Progress comes from
    /// URLSession's reports of bytes sent; a custom transport that does not stream reports nothing.
    ///
    /// - Throws: `T.TaskError`; a file that cannot be read is `.urlLoadError` with `URLError.cannotOpenFile`.
    public func upload<T: Endpoint>(
        _ endpoint: T,
        fromFile file: URL,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = [],
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(T.TaskError) -> T.Response {
        let size: Int64
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        } catch {
            throw .urlLoadError(URLError(.cannotOpenFile, userInfo: [NSUnderlyingErrorKey: error]))
        }
        let call = call(endpoint, environment: environment, auth: auth, middleware: middleware).adjusted { request in
            var request = request
            request.httpBody = nil
            request.setValue(String(size), forHTTPHeaderField: "Content-Length")
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
            }
            return request
        }
        // The transport gets the file in the request's context; the answer is read whole and
        // decoded as a buffered call's is.
        let upload = call.carrying(Transfer(upload: UploadSource(file: file, size: size, progress: progress)))
        do {
            let (value, response, _) = try await upload.run(on: endpointClient.transport, exchange: upload.streamed)
            if !response.isMocked { progress?(TransferProgress(completedBytes: size, totalBytes: size)) }
            return value
        } catch {
            // The server answered: the whole file went out.
            if error.httpResponse != nil { progress?(TransferProgress(completedBytes: size, totalBytes: size)) }
            throw error
        }
    }
}

extension HTTPURLResponse {
    /// The body's length from `Content-Length`, when known.
    fileprivate var knownLength: Int64? { expectedContentLength >= 0 ? expectedContentLength : nil }
}

/// Hands each progress value `reports` gives to `progress`, until `reports` ends.
private func relay(
    _ reports: AsyncStream<TransferProgress>, to progress: (@Sendable (TransferProgress) -> Void)?
) async {
    for await report in reports { progress?(report) }
}
