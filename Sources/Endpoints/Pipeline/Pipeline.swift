import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one request pipeline: build → authenticate → middleware → transport → validate → decode.
///
/// Every way of sending (async, Combine, completion handler, mocks, ad-hoc requests) describes its
/// request as a `PipelineCall` and runs it here; only the description differs. Layers call
/// downward only: the transport sees a finished request and knows nothing of authentication (it
/// is handed, in the context, a way to bring the credentials up to date if it queued the request).
struct PipelineCall<Response: Sendable, ErrorResponse: Sendable>: Sendable {
    typealias Failure = EndpointTaskError<ErrorResponse>

    /// Names the request for middleware (an endpoint's type name).
    let name: String
    /// Builds the request; nothing is sent when it throws.
    var build: @Sendable () throws(EndpointError) -> URLRequest
    let auth: any AuthenticationMethod
    let middleware: [any Middleware]
    /// The statuses decoded as `Response`; the others are decoded as `ErrorResponse`.
    var acceptableStatusCodes: StatusCodes
    /// Whether the transport follows redirects (``RequestContext/followsRedirects``).
    var followsRedirects = true
    /// Turns an accepted response's body into `Response`.
    let decodeResponse: @Sendable (Data, HTTPURLResponse) throws -> Response
    /// Turns another response's body into `ErrorResponse` (not called when it is ``EmptyCodable``).
    let decodeError: @Sendable (Data) throws -> ErrorResponse
    /// Looks the request up in the task's mocks, when it can be mocked.
    var mock: (@Sendable (any EndpointMockResolver) async -> Result<Response, Failure>?)?
    /// What the request carries besides its head, handed to the transport in the context: an
    /// upload's file, a download's destination.
    var transfer = Transfer.none
    /// Where the request's events go: the client's listener, if it has one.
    var eventDelivery: EventDelivery?
    /// Whether the request is measured: always, but in `endpoints-bench`, which sends the same
    /// calls unmeasured in alternate rounds to time what measuring costs (see
    /// `EndpointClient.measuresRequests`).
    var measures = true

    /// Runs the request and returns the decoded value with the response it came from and the
    /// recorder holding the request's metrics (`nil` when not measured). The request is finished
    /// here only when someone listens to its events: a caller that returns the metrics finishes it
    /// (a ``TypedResponse`` does, when made), and one that drops them (`response(with:)`) spends no
    /// clock read or lock on a request nobody can look at. A failure always finishes it.
    ///
    /// `exchange` is ``buffered`` unless the body goes another way (an upload from a file is
    /// sent with ``streamed``); the answer is read whole and decoded either way.
    ///
    /// `mocking`: whether to look the call up in the task's mocks first (``runMocked(on:exchange:)``
    /// runs it again without, when the mocks have no answer for it).
    func run(
        on transport: any HTTPTransport, exchange: @escaping Exchange = Self.buffered, mocking: Bool = true
    ) async throws(Failure) -> (Response, HTTPURLResponse, RequestRecorder?) {
        // Read without suspending first: with no mocks installed (production), no call is made.
        if mocking, mock != nil, PipelineOverrides.current.mocks != nil {
            return try await runMocked(on: transport, exchange: exchange)
        }
        let recorder = measures ? RequestRecorder(endpointName: name, delivery: eventDelivery) : nil
        let (body, response, method): (ResponseBody, HTTPURLResponse, String)
        do {
            (body, response, method) = try await answer(on: transport, exchange: exchange, recorder: recorder)
        } catch {
            throw error.ended(by: recorder)
        }
        let data: Data
        if let buffered = body.bufferedData {
            data = buffered  // a buffered send's body, or a middleware's answer: no reading to do
        } else {
            do {
                data = try await body.collect()
            } catch {
                throw Failure(error).ended(by: recorder)
            }
            recorder?.bodyFinished(bytes: data.count)
        }
        // Decoding is timed from the body's end, which the recorder knows: no clock read here.
        do {
            let value = try validate(data, response: response, method: method)
            if let recorder, recorder.isListened { recorder.finishDecoded() }
            return (value, response, recorder)
        } catch {
            throw error.ended(by: recorder, decoding: true)
        }
    }

    /// Runs the call with the task's mocks: their answer, or the call itself when they have none.
    ///
    /// A mocked call is measured and reported as a sent one ends (so that listener code can be
    /// tested with mocks): `started` (dated at its start, once the mock answered, with the
    /// request as it would have been built), then `decoded` or `failed(stage:)`, and `finished`
    /// with metrics that name the endpoint and time the mock, with no attempt.
    ///
    /// A function of its own so that `run` holds no `Result<Response, Failure>?`: unspecialized
    /// generic code looks up the metadata of every such local on each call, before it runs, and
    /// for this one that was a quarter of a microsecond a request.
    @inline(never)
    private func runMocked(
        on transport: any HTTPTransport, exchange: @escaping Exchange
    ) async throws(Failure) -> (Response, HTTPURLResponse, RequestRecorder?) {
        let recorder = measures ? RequestRecorder(endpointName: name, delivery: eventDelivery) : nil
        guard let mocked = await mocked() else {
            return try await run(on: transport, exchange: exchange, mocking: false)
        }
        guard let recorder else { return (try mocked.get(), HTTPURLResponse.mocked, nil) }
        if recorder.isListened, let request = try? build() { recorder.started(request, atStart: true) }
        switch mocked {
        case .success(let value):
            recorder.finishDecoded()
            return (value, HTTPURLResponse.mocked, recorder)
        case .failure(let error):
            throw error.ended(by: recorder)
        }
    }

    /// The task's mocked outcome for this call, if it has one.
    func mocked() async -> Result<Response, Failure>? {
        guard let mocks = PipelineOverrides.current.mocks, let mock else { return nil }
        return await mock(mocks)
    }

    /// The exchange every layer of the chain speaks: a request (its body in the request, or in
    /// the context for an upload from a file) in, the response head and its body out.
    typealias Next = @Sendable (URLRequest) async throws -> (ResponseBody, HTTPURLResponse)

    /// How the last step hands a request to the transport: ``HTTPTransport/send(_:context:)``
    /// for buffered calls (the body comes back in memory), ``HTTPTransport/stream(_:context:)``
    /// for streams, uploads and downloads.
    typealias Exchange =
        @Sendable (any HTTPTransport, URLRequest, RequestContext) async throws -> (ResponseBody, HTTPURLResponse)

    static var buffered: Exchange {
        { transport, request, context in
            let (data, response) = try await transport.send(request, context: context)
            return (ResponseBody(data), response)
        }
    }

    /// The exchange of a body read as it arrives (streams, downloads) or sent from a file (an
    /// upload in ``transfer``, read afresh for each send).
    var streamed: Exchange {
        let upload = transfer.upload
        return { transport, request, context in
            var request = request
            if let upload { request.httpBodyStream = InputStream(url: upload.file) }
            return try await transport.stream(request, context: context)
        }
    }

    /// Build → authenticate (renewing once when the method asks) → middleware → `exchange`:
    /// the answer the middleware chain returned, with the method that was sent.
    ///
    /// `recorder` measures the request and reports its events; `nil` for none.
    func answer(
        on transport: any HTTPTransport,
        exchange: @escaping Exchange,
        recorder: RequestRecorder? = nil
    ) async throws(Failure) -> (ResponseBody, HTTPURLResponse, method: String) {
        if Task.isCancelled { throw .cancelled }

        let request: URLRequest
        do {
            request = try build()
        } catch {
            throw .endpointError(error)
        }
        recorder?.started(request)

        let transport = PipelineOverrides.current.transport ?? transport
        // A token refresh never queues: the requests ahead of it would all be waiting for it.
        let isRefresh = !RefreshScope.active.isEmpty
        let auth = self.auth
        // `NoAuth` sets no header: no need to look for the ones it set.
        let setsHeaders = !(auth is NoAuth)
        let currentCredentials: @Sendable (URLRequest) -> URLRequest? = { auth.updatedCredentials(for: $0) }
        var attempt = 1
        while true {
            let authenticated: URLRequest
            // `NoAuth` waits for nothing: no clock to read.
            let authenticating = setsHeaders ? RequestRecorder.now() : 0
            do {
                authenticated = try await auth.authenticate(request: request)
            } catch {
                throw Task.isCancelled ? .cancelled : .authenticationError(error)
            }
            if setsHeaders { recorder?.authenticated(since: authenticating) }
            var context = RequestContext(
                endpointName: name,
                // The headers the method set are its credentials, whatever their names: a redirect
                // to another origin drops them and logging redacts them.
                credentialHeaders: setsHeaders
                    ? RequestContext.credentialHeaders(setBy: authenticated, on: request)
                    : RequestContext.standardCredentialHeaders,
                authenticationAttempt: attempt,
                isCredentialRefresh: isRefresh,
                currentCredentials: currentCredentials,
                transfer: transfer,
                recorder: recorder
            )
            context.acceptsNotModified = acceptableStatusCodes.contains(304)
            context.followsRedirects = followsRedirects
            let (body, response) = try await chain(
                authenticated, context: context, transport: transport, exchange: exchange)
            if attempt == 1, auth.shouldReauthenticate(for: authenticated, response: response) {
                body.cancel()
                recorder?.refreshStarted()
                do {
                    try await auth.reauthenticate(after: authenticated)
                } catch {
                    recorder?.refreshEnded()
                    throw Task.isCancelled ? .cancelled : .authenticationError(error)
                }
                recorder?.refreshEnded()
                attempt += 1
                continue
            }
            return (body, response, authenticated.httpMethod ?? "GET")
        }
    }

    /// Runs the middleware chain around the last step, mapping failures to the typed error.
    ///
    /// The chain speaks ``Next``: a ``StreamingMiddleware`` is handed the body as it arrives; a
    /// plain ``Middleware`` is adapted (`adapt`) and sees it buffered.
    private func chain(
        _ request: URLRequest,
        context: RequestContext,
        transport: any HTTPTransport,
        exchange: @escaping Exchange
    ) async throws(Failure) -> (ResponseBody, HTTPURLResponse) {
        if middleware.isEmpty {
            // No chain to build: each closure in it is an allocation and a call on every request.
            do {
                return try await Self.send(request, context: context, transport: transport, exchange: exchange)
            } catch {
                throw Failure(error)
            }
        }
        var next: Next = { request in
            try await Self.send(request, context: context, transport: transport, exchange: exchange)
        }
        let accepted = acceptableStatusCodes
        for middleware in middleware.reversed() {
            let inner = next
            if let middleware = middleware as? any StreamingMiddleware {
                next = { request in try await middleware.intercept(request, context: context, next: inner) }
            } else {
                next = { request in
                    try await Self.adapt(middleware, request, context: context, accepted: accepted, next: inner)
                }
            }
        }
        do {
            return try await next(request)
        } catch {
            throw Failure(error)
        }
    }

    /// Runs a buffered ``Middleware`` in the chain: the body is handed to it in memory.
    ///
    /// A body already in memory (a buffered send's) is handed over as it is, and one whose status
    /// the call does not accept is read whole first, so logging, retries on 503 and refresh on 401
    /// see an error body as always. An accepted streamed body (events, lines, bytes, a download)
    /// is kept aside: the middleware sees the head with an empty body, and the stream goes on to
    /// the caller unless the middleware answered with a response of its own.
    private static func adapt(
        _ middleware: any Middleware,
        _ request: URLRequest,
        context: RequestContext,
        accepted: StatusCodes,
        next: @escaping Next
    ) async throws -> (ResponseBody, HTTPURLResponse) {
        let kept = Locked<(body: ResponseBody, response: HTTPURLResponse)?>(nil)
        let (data, response): (Data, HTTPURLResponse)
        do {
            (data, response) = try await middleware.intercept(request, context: context) { request in
                let (body, response) = try await next(request)
                if let data = body.bufferedData { return (data, response) }
                guard accepted.contains(response.statusCode) else { return (try await body.collect(), response) }
                // A middleware that sends again (a retry) replaces the body of the earlier send.
                let earlier = kept.withLock { kept in
                    defer { kept = (body, response) }
                    return kept
                }
                earlier?.body.cancel()
                return (Data(), response)
            }
        } catch {
            kept.withLock { $0 }?.body.cancel()
            throw error
        }
        let stream = kept.withLock { $0 }
        if let stream, stream.response === response, data.isEmpty { return (stream.body, response) }
        stream?.body.cancel()
        return (ResponseBody(data), response)
    }

    /// The last step before the transport, run for every send (a retrying middleware sends again):
    /// refuse any header that could split the request, send. The transport queues it for a
    /// connection if it limits them (``URLSessionTransport`` does, per host).
    private static func send(
        _ request: URLRequest,
        context: RequestContext,
        transport: any HTTPTransport,
        exchange: Exchange
    ) async throws -> (ResponseBody, HTTPURLResponse) {
        try HeaderValidation.validate(request)
        guard let recorder = context.recorder else { return try await exchange(transport, request, context) }
        recorder.attemptSent(request, context: context)
        let (body, response): (ResponseBody, HTTPURLResponse)
        do {
            (body, response) = try await exchange(transport, request, context)
        } catch {
            recorder.attemptFailed(error)
            throw error
        }
        recorder.headReceived(status: response.statusCode, bufferedBytes: body.bufferedData?.count)
        return (body, response)
    }

    /// Validates the status and decodes the body: the typed response for an accepted status, the
    /// typed error body otherwise.
    func validate(_ data: Data, response: HTTPURLResponse, method: String) throws(Failure) -> Response {
        guard acceptableStatusCodes.contains(response.statusCode) else {
            throw Self.errorBody(data, response: response, method: method, decode: decodeError)
        }
        do {
            return try decodeResponse(data, response)
        } catch {
            throw .responseParseError(httpResponse: response, data: data, error: DecodingFailure(error))
        }
    }

    /// The typed error for a response whose status is not accepted: its body decoded with
    /// `decode` (nothing to decode for ``EmptyCodable``), the raw body riding along.
    static func errorBody(
        _ data: Data,
        response: HTTPURLResponse,
        method: String?,
        decode: (Data) throws -> ErrorResponse
    ) -> Failure {
        if let empty = EmptyCodable() as? ErrorResponse {
            return .errorResponse(
                httpResponse: ErrorHTTPResponse.make(response, body: data, method: method), response: empty)
        }
        do {
            let decoded = try decode(data)
            return .errorResponse(
                httpResponse: ErrorHTTPResponse.make(response, body: data, method: method), response: decoded)
        } catch {
            return .errorResponseParseError(httpResponse: response, data: data, error: DecodingFailure(error))
        }
    }
}

extension PipelineCall {
    /// The call that sends `endpoint`, its events going to `eventDelivery`.
    init<T: Endpoint>(
        _ endpoint: T,
        environment: T.Server.Environments,
        auth: T.Auth,
        middleware: [any Middleware],
        eventDelivery: EventDelivery? = nil
    ) where Response == T.Response, ErrorResponse == T.ErrorResponse {
        SharedInstanceCheck.assertShared(T.self)
        let definition = T.definition
        self.init(
            // `String(describing:)` of a type is this name, reached through dynamic casts (2 µs a request).
            name: _typeName(T.self, qualified: false),
            build: { () throws(EndpointError) in try endpoint.urlRequest(environment: environment) },
            auth: auth,
            middleware: T.middleware + middleware,
            acceptableStatusCodes: definition.acceptedStatusCodes,
            decodeResponse: { data, response in try endpoint.decodeResponse(data, response: response) },
            decodeError: { data in try T.errorDecoder.decodeErrorBody(T.ErrorResponse.self, from: data) },
            mock: { mocks in await mocks.resolve(endpoint) },
            eventDelivery: eventDelivery
        )
        followsRedirects = definition.followsRedirects
    }
}

extension HTTPURLResponse {
    /// What a mocked call reports as its response: 200 with no headers.
    static var mocked: HTTPURLResponse {
        HTTPURLResponse(url: URL(string: "mock:")!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:])!
    }

    /// Whether this is the response a mocked call reports (``mocked``).
    var isMocked: Bool { url?.scheme == "mock" }
}
