import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transport that sends requests with a `URLSession`, the same way on Linux and Apple platforms.
///
/// - Redirects are followed by the library through a per-task delegate, so credentials never leak to
///   another origin (Linux's URLSession would copy them).
/// - Cancelling the Swift task cancels the data task at once.
/// - `timeoutInterval` is an idle timeout on every platform, as Apple documents it: the request
///   fails with `URLError.timedOut` when no byte arrives for that long. On Linux, where URLSession
///   truncates fractional values (0.5 s would never time out, and a session configured with 0.5 s
///   failed every request at once), the library enforces fractional ones itself. For a limit on
///   the whole exchange, use ``DeadlineMiddleware``.
/// - No hidden retries: a 401 comes back once, with no credential-storage replay.
/// - At most `maximumRequestsPerHost` requests per host are in flight through one session (four against
///   a host that answers within 15 ms, such as loopback); the transport queues the rest in order, so that
///   Linux's URLSession neither opens more connections than the session is configured for nor churns
///   them, and never costs throughput at real latency. A queued request is cancellable while it waits
///   and is never sent once cancelled; one sent by a token refresh
///   (``RequestContext/isCredentialRefresh``) skips the queue; one that waited goes out with the
///   current credentials. The limit holds through a transport of yours that wraps this one.
///
/// Choose it, or your own ``HTTPTransport``, per client with ``EndpointClient``:
///
/// ```swift
/// let configuration = URLSessionConfiguration.default
/// configuration.httpMaximumConnectionsPerHost = 8
/// let client = EndpointClient(transport: URLSessionTransport(session: URLSession(configuration: configuration)))
/// let user = try await client.response(with: UserEndpoint(pathComponents: .init(userId: 42)))
/// ```
public struct URLSessionTransport: HTTPTransport {
    /// The session that sends requests.
    let session: URLSession
    /// The most requests in flight to one host (scheme, host, port) through this transport's
    /// session; `nil` sends everything at once.
    let maximumRequestsPerHost: Int?

    /// The per-host limit for `session`: on Linux, twice the configuration's
    /// `httpMaximumConnectionsPerHost` (6 by default), so that URLSession's own per-host queue always
    /// holds the next request for a connection that frees up; `nil` on Apple platforms, where
    /// URLSession queues requests per host itself. Against a host that answers within 15 ms (loopback,
    /// a local network) the pipeline keeps at most four in flight, because beyond that Linux's
    /// URLSession closes and reopens connections (see `HostLimiter.effectiveLimit`).
    ///
    /// ```swift
    /// let configuration = URLSessionConfiguration.default
    /// configuration.httpMaximumConnectionsPerHost = 8   // 8 in flight per host on this session
    /// let session = URLSession(configuration: configuration)
    /// ```
    static func defaultMaximumRequestsPerHost(for session: URLSession) -> Int? {
        #if canImport(FoundationNetworking)
            let configured = session.configuration.httpMaximumConnectionsPerHost
            return configured > 0 ? configured * 2 : nil
        #else
            return nil
        #endif
    }

    /// Creates a transport over `session`, limited per host as the session is configured: on
    /// Linux, twice the configuration's `httpMaximumConnectionsPerHost` (6 by default), so that
    /// URLSession's own per-host queue always holds the next request for a connection that frees
    /// up; no limit on Apple platforms, where URLSession queues requests per host itself. Against
    /// a host that answers within 15 ms (loopback, a local network) the transport keeps at most
    /// four in flight, because beyond that Linux's URLSession closes and reopens connections.
    public init(session: URLSession) {
        self.init(session: session, maximumRequestsPerHost: Self.defaultMaximumRequestsPerHost(for: session))
    }

    /// Creates a transport over `session` with at most `maximumRequestsPerHost` requests in flight
    /// per host; `nil` for no limit.
    public init(session: URLSession, maximumRequestsPerHost: Int?) {
        self.session = session
        self.maximumRequestsPerHost = maximumRequestsPerHost
    }

    /// corelibs applies a session's `timeoutIntervalForRequest` only to requests left at the
    /// default 60 s, truncated to whole seconds, so 0.5 failed every request at once. A fractional
    /// session timeout is put on the request instead, where the library enforces it.
    static func withSessionTimeout(_ request: URLRequest, session: URLSession) -> URLRequest {
        guard request.timeoutInterval == 60 else { return request }
        let configured = session.configuration.timeoutIntervalForRequest
        guard configured > 0, configured.rounded(.down) != configured else { return request }
        var request = request
        request.timeoutInterval = configured
        return request
    }

    /// corelibs refuses a scheme written in capitals (`HTTP://…`) with `URLError.unsupportedURL`,
    /// which Apple's URLSession and libcurl send (schemes are case-insensitive, RFC 3986 §3.1):
    /// on Linux the scheme is lower-cased, the rest of the URL kept as written.
    static func withLowercaseScheme(_ request: URLRequest) -> URLRequest {
        #if canImport(FoundationNetworking)
            guard let url = request.url, let scheme = url.scheme,
                scheme.utf8.contains(where: { (65...90).contains($0) }),
                let lowered = URL(string: scheme.lowercased() + url.absoluteString.dropFirst(scheme.utf8.count))
            else { return request }
            var request = request
            request.url = lowered
            return request
        #else
            return request
        #endif
    }

    /// ``ResponseFraming``'s check of an answer URLSession received whole. corelibs drops the body
    /// of a 301, 302, 303, 307 or 308 it does not follow (its `Location` missing, empty or not a
    /// URL) and hands over the 3xx with an empty one: that is not a body cut short.
    static func framingViolation(of response: HTTPURLResponse, bodyLength: Int, request: URLRequest) -> URLError? {
        #if canImport(FoundationNetworking)
            if bodyLength == 0, RedirectPolicy.isRedirect(status: response.statusCode) { return nil }
        #endif
        return ResponseFraming.violation(of: response, bodyLength: bodyLength, requestMethod: request.httpMethod)
    }

    /// Sends `request` and returns the body and the HTTP response.
    public func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
        let (request, admission) = try await HostLimiter.admit(request, limit: hostLimit, context: context)
        do {
            let answer = try await sendAdmitted(request, context: context)
            admission.release(answered: true)
            return answer
        } catch {
            admission.release(answered: false)
            throw error
        }
    }

    /// Sends `request`, already admitted under the per-host limit.
    func sendAdmitted(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
        if let conflict = CookieHeader.storeConflict(for: request, session: session) { throw conflict }
        #if canImport(FoundationNetworking)
            let request = Self.withSessionTimeout(request, session: session)
            // corelibs truncates a fractional timeout to whole seconds. A completion-handler task
            // shows no progress to watch, so such a request goes through the streaming task, whose
            // watchdog makes it an idle timeout like Apple's, and is collected.
            let fractionalTimeout =
                request.timeoutInterval > 0 && request.timeoutInterval.rounded(.down) != request.timeoutInterval
        #else
            let fractionalTimeout = false
        #endif
        // An upload from a file is sent by the streaming task too, as an upload task with progress
        // (corelibs would send the request's body stream chunked, which servers refuse).
        if fractionalTimeout || context.transfer.upload != nil {
            let (body, response) = try await openStream(request, context: context)
            context.recorder?.headArrived(status: response.statusCode)  // before the body: its time apart
            let data = try await body.collect()
            if let violation = Self.framingViolation(of: response, bodyLength: data.count, request: request) {
                throw violation
            }
            return (data, response)
        }
        // A completion-handler task, not corelibs' `data(for:)`: cancelling a task that awaits
        // `data(for:)` while its transfer completes deadlocks every session in the process (see
        // ``DataTaskCall``).
        let call = DataTaskCall(request: request, context: context)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                call.start(on: session, continuation: continuation)
            }
        } onCancel: {
            call.cancel()
        }
    }
}

/// One data task: its redirect guard, its deadline, and the single delivery of its outcome. It
/// sends every buffered request.
///
/// Not corelibs' `data(for:)`, which completes without the delegate queue's thread hop (3–9% of
/// the CPU of a loopback request): it resumes its continuation on the session's work queue, and its
/// cancellation handler, which the Swift runtime runs holding the cancelled task's status lock,
/// waits for that queue (`URLSessionTask.cancel()` is a `workQueue.sync`). A task cancelled while
/// its transfer completes leaves each thread waiting for the other, and every session's work
/// queue targets one shared queue, so all of the process's URLSession traffic stops (seen in a
/// test run, in `gdb`). Here the completion runs on the delegate queue, which never waits for the
/// work queue.
///
/// On Linux a redirect that keeps a body (307, 308) is sent as a second data task, because
/// corelibs drops the body of the redirects it follows (see ``RedirectGuard/takeResend()``).
///
/// A timeout or a cancellation completes the call at once, without waiting for the data task's
/// own completion handler: that runs on the session's delegate queue, which is serial and may be
/// busy delivering other requests' results.
///
/// Its state is a ``TransferState``, shared with ``StreamingDataTask``.
final class DataTaskCall: Sendable {
    typealias Outcome = Result<(Data, HTTPURLResponse), any Error>
    private typealias Completion = @Sendable (Outcome) -> Void

    private let request: URLRequest
    private let redirects: RedirectGuard
    private let state: Locked<TransferState<URLSessionDataTask, Completion>>
    private let deadline: TimeInterval

    /// A call for `request` that follows redirects as `context` says, drops its credential headers
    /// on a redirect to another origin and reports its hops (and, on Apple platforms, the system's
    /// metrics) to its recorder.
    convenience init(request: URLRequest, context: RequestContext) {
        self.init(
            request: request,
            redirects: RedirectGuard(
                original: request, credentialHeaders: context.credentialHeaders,
                currentCredentials: context.currentCredentials, recorder: context.recorder,
                follows: context.followsRedirects))
    }

    /// A call that sends `request` under an existing redirect guard (the hops so far count).
    init(request: URLRequest, redirects: RedirectGuard) {
        self.request = request
        self.redirects = redirects
        self.deadline = request.timeoutInterval
        self.state = Locked(TransferState(now: DispatchTime.now().uptimeNanoseconds))
    }

    /// corelibs truncates fractional timeouts to whole seconds (0.5 becomes 0, "no timeout"), so
    /// it gets the next whole second and the library enforces the real deadline with a timer.
    private static func corelibsTimeout(_ request: URLRequest) -> URLRequest {
        var request = request
        #if canImport(FoundationNetworking)
            let timeout = request.timeoutInterval
            if timeout > 0, timeout.rounded(.down) != timeout {
                request.timeoutInterval = timeout.rounded(.up)
            }
        #endif
        return request
    }

    func start(on session: URLSession, continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>) {
        start(on: session) { continuation.resume(with: $0) }
    }

    /// Sends the request and calls `completion` exactly once.
    func start(on session: URLSession, completion: @escaping @Sendable (Outcome) -> Void) {
        switch state.withLock({ $0.start(completion) }) {
        case .fail(let completion, let error):
            // Cancelled before it started: nothing is sent.
            completion(.failure(error))
            return
        case .send:
            break
        }
        #if canImport(FoundationNetworking)
            if deadline > 0, deadline.rounded(.down) != deadline {
                DispatchQueue.global().asyncAfter(deadline: .now() + deadline) { [weak self] in
                    self?.expire()
                }
            }
        #endif
        send(request, on: session)
    }

    private func send(_ request: URLRequest, on session: URLSession) {
        // Stopped (cancelled, expired) before a task exists: the outcome is delivered; send nothing.
        guard state.withLock({ $0.shouldSend }) else { return }
        let task = makeTask(request, on: session)
        switch state.withLock({ $0.sent(task, now: DispatchTime.now().uptimeNanoseconds) }) {
        case .resume(let task):
            task.resume()
        case .cancel(let task):
            // Stopped meanwhile: corelibs ends a task cancelled before it resumes without sending it.
            task.cancel()
            task.resume()
        }
    }

    private func makeTask(_ request: URLRequest, on session: URLSession) -> URLSessionDataTask {
        let task = session.dataTask(with: URLSessionTransport.withLowercaseScheme(Self.corelibsTimeout(request))) {
            [self] data, response, error in
            self.completed(data: data, response: response, error: error, on: session)
        }
        task.delegate = redirects
        return task
    }

    private func completed(data: Data?, response: URLResponse?, error: (any Error)?, on session: URLSession) {
        let next = error == nil ? redirects.takeResend() : nil
        let action = state.withLock { state in
            state.completed(
                error: error, response: response, resend: next != nil, exceededHops: redirects.exceededHops,
                refusedChallenge: redirects.refusedChallenge, failingURL: request.url)
        }
        switch action {
        case .resend:
            if let next { send(next, on: session) }
        case .discard:
            break
        case .fail(let completion, let error):
            completion?(.failure(error))
        case .answer(let completion, let response):
            guard let completion else { return }
            let body = data ?? Data()
            // A refused challenge (Linux) is the answer whatever corelibs made of its body.
            if redirects.refusedChallenge == nil,
                let violation = URLSessionTransport.framingViolation(
                    of: response, bodyLength: body.count, request: request)
            {
                completion(.failure(violation))
            } else {
                completion(.success((body, response)))
            }
        }
    }

    /// Cancels the call: the outcome is `CancellationError`, delivered now.
    func cancel() {
        stop(with: CancellationError())
    }

    private func expire() {
        stop(with: URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: request.url as Any]))
    }

    private func stop(with error: any Error) {
        guard case .stop(let task, let completion, let error) = state.withLock({ $0.stop(with: error) }) else {
            return
        }
        task?.cancel()
        completion?(.failure(error))
    }
}
