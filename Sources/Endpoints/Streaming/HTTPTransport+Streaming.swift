import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPTransport {
    /// Sends `request` and returns the response head as soon as it arrives, with the body still
    /// arriving as a ``ResponseBody``, whatever the status.
    ///
    /// This default sends the request with ``send(_:context:)`` and hands over the buffered body
    /// as one chunk, so every transport can serve streaming APIs; ``URLSessionTransport`` and the
    /// mocking module's fake transport stream for real.
    ///
    /// ```swift
    /// let (body, response) = try await transport.stream(request, context: RequestContext(endpointName: "Feed"))
    /// for try await chunk in body { print(chunk.count) }
    /// ```
    public func stream(_ request: URLRequest, context: RequestContext) async throws -> (ResponseBody, HTTPURLResponse) {
        let (data, response) = try await send(request, context: context)
        return (ResponseBody(data), response)
    }
}

extension URLSessionTransport {
    /// Sends `request` and returns the head as soon as it arrives; the body follows as it is
    /// received, with at most ``ResponseBody/defaultBufferLimit`` bytes waiting unread (beyond
    /// that the data task is suspended until the reader catches up).
    ///
    /// Redirects, refused challenges and credentials behave as in ``send(_:context:)``. The body
    /// fails with `URLError.timedOut` when no byte arrives for the request's `timeoutInterval`,
    /// and with the `URLError` of a connection lost mid-body. A stream does not take one of the
    /// per-host slots of ``maximumRequestsPerHost``: it may stay open for as long as the server
    /// sends, and would hold the slot from every other request meanwhile.
    public func stream(_ request: URLRequest, context: RequestContext) async throws -> (ResponseBody, HTTPURLResponse) {
        let request = context.withCurrentCredentials(request)
        let call = StreamingDataTask(
            request: request,
            credentialHeaders: context.credentialHeaders,
            bufferLimit: ResponseBody.defaultBufferLimit
        )
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                call.start(on: session, continuation: continuation)
            }
        } onCancel: {
            call.cancel()
        }
    }
}
