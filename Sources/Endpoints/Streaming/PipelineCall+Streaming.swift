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
    /// The body passes through the middleware chain as it arrives: a ``StreamingMiddleware`` gets
    /// it as it is, a plain ``Middleware`` sees the head with an empty body for an accepted status
    /// and an error body read whole (see `PipelineCall.adapt`). A body whose status is not
    /// accepted is read whole and decoded as the `ErrorResponse`. For an upload from a file
    /// (``Transfer``), each send gets the file afresh as its body stream.
    func open(on transport: any HTTPTransport) async throws(Failure) -> StreamOpening<Response> {
        if let mocked = await mocked() { return .mocked(try mocked.get()) }
        let upload = transfer.upload
        let (body, response, method) = try await self.answer(on: transport) { transport, request, context in
            var request = request
            if let upload { request.httpBodyStream = InputStream(url: upload.file) }
            return try await transport.stream(request, context: context)
        }
        guard acceptableStatusCodes.contains(response.statusCode) else {
            let data: Data
            do {
                data = try await body.collect()
            } catch {
                throw Failure(error)
            }
            _ = try validate(data, response: response, method: method)
            throw .errorResponseParseError(
                httpResponse: response, data: data, error: DecodingFailure(URLError(.badServerResponse)))
        }
        return .body(body, response)
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
