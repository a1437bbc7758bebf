import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What opening a stream gives: the head and the body, or a typed mock's value.
enum StreamOpening<Response: Sendable> {
    case body(ResponseBody, HTTPURLResponse)
    case mocked(Response)
}

extension PipelineCall {
    /// Runs the pipeline for a response read as it arrives: build → authenticate → middleware →
    /// ``HTTPTransport/stream(_:context:)`` → validate; decoding happens as the caller reads.
    ///
    /// Middleware runs with the response head. For an accepted status (2xx by default) the body
    /// handed back through the chain is empty and the stream goes to the caller; any other status
    /// is read whole first, so logging, retries on 503, refresh on 401 and custom middleware see it
    /// as they would a buffered response, and it is decoded as the `ErrorResponse`. A middleware
    /// that answers itself (without calling `next`) streams the data it returned; a
    /// ``StreamingMiddleware`` then observes the streamed body. For an upload
    /// from a file (``Transfer``), each send gets the file afresh as its body stream.
    func open(on transport: any HTTPTransport) async throws(Failure) -> StreamOpening<Response> {
        if let mocked = await mocked() { return .mocked(try mocked.get()) }
        let kept = Locked<(body: ResponseBody, context: RequestContext)?>(nil)
        let accepted = acceptableStatusCodes
        let upload = transfer.upload
        let answer: (Data, HTTPURLResponse, method: String)
        do {
            answer = try await self.answer(on: transport) { transport, request, context in
                var request = request
                if let upload { request.httpBodyStream = InputStream(url: upload.file) }
                let (body, response) = try await transport.stream(request, context: context)
                guard accepted.contains(response.statusCode) else { return (try await body.collect(), response) }
                // A middleware that sends again (a retry) replaces the body of the earlier send.
                let earlier = kept.withLock { kept in
                    defer { kept = (body, context) }
                    return kept
                }
                earlier?.body.cancel()
                return (Data(), response)
            }
        } catch {
            kept.withLock { $0 }?.body.cancel()
            throw error
        }
        let (data, response, method) = answer
        let stream = kept.withLock { kept in
            defer { kept = nil }
            return kept
        }
        guard accepted.contains(response.statusCode) else {
            stream?.body.cancel()
            _ = try validate(data, response: response, method: method)
            throw .errorResponseParseError(
                httpResponse: response, data: data, error: DecodingFailure(URLError(.badServerResponse)))
        }
        guard let stream else { return .body(ResponseBody(data), response) }
        return .body(observed(stream.body, of: response, context: stream.context), response)
    }

    /// `body` as the streaming middleware return it, the innermost first.
    private func observed(_ body: ResponseBody, of response: HTTPURLResponse, context: RequestContext) -> ResponseBody {
        var body = body
        for case let middleware as any StreamingMiddleware in middleware.reversed() {
            body = middleware.observe(body, of: response, context: context)
        }
        return body
    }
}

extension PipelineCall {
    /// This call with `change` applied to the built request, before authentication: another URL
    /// for a next page, an upload's headers.
    func adjusted(_ change: @escaping @Sendable (URLRequest) -> URLRequest) -> PipelineCall {
        let build = self.build
        var call = self
        call.build = { () throws(EndpointError) in change(try build()) }
        return call
    }

    /// This call carrying `transfer` to the transport: an upload's file, a download's destination.
    func carrying(_ transfer: Transfer) -> PipelineCall {
        var call = self
        call.transfer = transfer
        return call
    }
}
