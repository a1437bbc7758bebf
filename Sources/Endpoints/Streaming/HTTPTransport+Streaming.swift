import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPTransport {
    /// Sends `request` and returns the response head as soon as it arrives, with the body still
    /// arriving as a ``ResponseBody``, whatever the status.
    ///
    /// This default sends the request with ``send(_:context:)`` and hands over the buffered body
    /// as one chunk, so every transport, custom ones included, serves the streaming APIs;
    /// ``URLSessionTransport`` and the mocking module's fake transport stream for real.
    ///
    /// ```swift
    /// let (body, response) = try await transport.stream(request, context: RequestContext(endpointName: "Feed"))
    /// for try await chunk in body { print(chunk.count) }
    /// ```
    ///
    /// Implement it to stream from your own transport: return the head once it is in, with a body
    /// made by ``ResponseBody/init(_:bufferLimit:)`` from the chunks as they arrive, for example
    /// an `AsyncThrowingStream` that your connection feeds. The body pauses the sequence while
    /// 1 MiB waits unread, and cancels the task reading it when the reader goes away:
    ///
    /// ```swift
    /// func stream(_ request: URLRequest, context: RequestContext) async throws -> (ResponseBody, HTTPURLResponse) {
    ///     let (head, connection) = try await socket.open(request)
    ///     let chunks = AsyncThrowingStream<Data, any Error> { continuation in
    ///         connection.onChunk = { continuation.yield($0) }
    ///         connection.onEnd = { error in continuation.finish(throwing: error) }
    ///         continuation.onTermination = { _ in connection.close() }
    ///     }
    ///     return (ResponseBody(chunks), head)
    /// }
    /// ```
    public func stream(_ request: URLRequest, context: RequestContext) async throws -> (ResponseBody, HTTPURLResponse) {
        let (data, response) = try await send(request, context: context)
        return (ResponseBody(data), response)
    }
}

extension URLSessionTransport {
    /// Sends `request` and returns the head as soon as it arrives; the body follows as it is
    /// received, with at most 1 MiB waiting unread (beyond that the data task is suspended until
    /// the reader catches up; on Linux, where suspending a running task is not safe, the task keeps
    /// running and the unread bytes wait in memory).
    ///
    /// Redirects, refused challenges and credentials behave as in ``send(_:context:)``. The body
    /// fails with `URLError.timedOut` when no byte arrives for the request's `timeoutInterval`,
    /// and with the `URLError` of a connection lost mid-body. Through the pipeline, a stream holds
    /// one of the per-host slots of `maximumRequestsPerHost` only until its head arrives, since it
    /// may stay open for as long as the server sends. On Linux each stream runs on a session of
    /// its own (see `StreamingDataTask`), so it takes none of the session's connections either.
    public func stream(_ request: URLRequest, context: RequestContext) async throws -> (ResponseBody, HTTPURLResponse) {
        // A WebSocket handshake goes by a URLSessionWebSocketTask (URLSessionTransport+WebSocket.swift).
        if let sink = context.upgrade { return try await upgrade(request, context: context, into: sink) }
        // The slot is given back when the head is in: a stream may stay open for as long as the
        // server sends.
        let (request, admission) = try await HostLimiter.admit(request, limit: hostLimit, context: context)
        do {
            let head = try await openStream(request, context: context)
            admission.release(answered: true)
            return head
        } catch {
            admission.release(answered: false)
            throw error
        }
    }

    /// Sends `request`, already admitted, and returns the head once it arrives.
    func openStream(_ request: URLRequest, context: RequestContext) async throws -> (ResponseBody, HTTPURLResponse) {
        let call = StreamingDataTask(request: request, context: context, bufferLimit: ResponseBody.defaultBufferLimit)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                call.start(on: session, continuation: continuation)
            }
        } onCancel: {
            call.cancel()
        }
    }
}
