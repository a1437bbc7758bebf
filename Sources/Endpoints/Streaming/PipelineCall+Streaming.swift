import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What opening a stream gives: the head, the body and the request's recorder (which the reader
/// finishes when the body ends, fails or is let go), or a typed mock's value.
enum StreamOpening<Response: Sendable> {
    case body(ResponseBody, HTTPURLResponse, RequestRecorder)
    case mocked(Response)
}

extension PipelineCall {
    /// Runs the pipeline for a response read as it arrives: build → authenticate → middleware →
    /// ``HTTPTransport/stream(_:context:)`` → validate; decoding happens as the caller reads.
    ///
    /// The body passes through the middleware chain as it arrives: a ``StreamingMiddleware`` gets
    /// it as it is, a plain ``Middleware`` sees the head with an empty body for an accepted status
    /// and an error body read whole (see `PipelineCall.adapt`). A body whose status is not
    /// accepted is read whole and decoded as the `ErrorResponse`. The request is measured as
    /// ``run(on:exchange:)`` measures it; for an accepted status the recorder is handed on
    /// unfinished, with the body.
    func open(on transport: any HTTPTransport) async throws(Failure) -> StreamOpening<Response> {
        if let mocked = await mocked() { return .mocked(try mocked.get()) }
        let recorder = RequestRecorder(endpointName: name, delivery: eventDelivery)
        let (body, response, method): (ResponseBody, HTTPURLResponse, String)
        do {
            (body, response, method) = try await answer(on: transport, exchange: streamed, recorder: recorder)
        } catch {
            throw error.ended(by: recorder)
        }
        guard acceptableStatusCodes.contains(response.statusCode) else {
            let data: Data
            do {
                data = try await body.collect()
            } catch {
                throw Failure(error).ended(by: recorder)
            }
            recorder.bodyFinished(bytes: data.count)
            let failure: Failure
            do {
                _ = try validate(data, response: response, method: method)
                failure = .errorResponseParseError(
                    httpResponse: response, data: data, error: DecodingFailure(URLError(.badServerResponse)))
            } catch {
                failure = error
            }
            throw failure.ended(by: recorder, decoding: true)
        }
        return .body(body, response, recorder)
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
