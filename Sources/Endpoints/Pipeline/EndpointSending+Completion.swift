import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension EndpointSending {
    /// Creates a data task for an unauthenticated endpoint; call `resume()` to send it.
    ///
    /// ```swift
    /// let task = try URLSession.shared.endpointTask(with: StatusEndpoint()) { result in
    ///     switch result {
    ///     case .success(let status): print(status)
    ///     case .failure(let error): print(error)
    ///     }
    /// }
    /// task.resume()
    /// ```
    ///
    /// The request is built when the task is created: a request that cannot be built throws
    /// `.endpointError` here, as Endpoints 0.4's `endpointTask` did, and nothing is sent. Resuming the
    /// task runs the same pipeline as ``response(with:environment:auth:middleware:)`` (middleware,
    /// mocks, the per-host limit, timeouts); `cancel()` cancels it, before or after `resume()`. The
    /// completion handler is called exactly once, on an arbitrary queue; after `cancel()` it gets
    /// `.cancelled` unless it was already called.
    ///
    /// Only endpoints whose `Auth` is ``NoAuth`` can use it: the task is returned synchronously, so
    /// it cannot wait for credentials. Calling it with an authenticated endpoint does not compile;
    /// use ``response(with:environment:auth:middleware:)`` instead.
    public func endpointTask<T: Endpoint>(
        with endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        completion: @escaping @Sendable (Result<T.Response, T.TaskError>) -> Void
    ) throws(T.TaskError) -> URLSessionDataTask where T.Auth == NoAuth {
        let request: URLRequest
        do {
            request = try endpoint.urlRequest(environment: environment)
        } catch {
            throw .endpointError(error)
        }
        let client = endpointClient
        let base = client.call(endpoint, environment: environment, auth: NoAuth(), middleware: [])
        var prebuilt = base
        prebuilt.build = { request }
        return PipelineDataTask(request: request, call: prebuilt, transport: client.transport, completion: completion)
    }
}

/// The data task ``EndpointSending/endpointTask(with:environment:completion:)`` returns: `resume()` runs
/// the pipeline in a task of its own, `cancel()` cancels it, and the completion runs exactly once.
///
/// A subclass rather than a task of the session: a session's data task sends one fixed request,
/// while the pipeline may queue it, pass it through middleware, retry it or answer it from a mock.
final class PipelineDataTask: URLSessionDataTask, @unchecked Sendable {
    // @unchecked Sendable: the mutable state is `lifecycle`, guarded by its `Locked`; the other
    // stored properties are `let`s of Sendable types.
    private struct Lifecycle {
        var phase: URLSessionTask.State = .suspended
        var running: Task<Void, Never>?
        var delivered = false
    }

    private let lifecycle = Locked(Lifecycle())
    private let request: URLRequest
    private let run: @Sendable () async -> Void
    private let deliverCancelled: @Sendable () -> Void

    init<Response: Sendable, ErrorResponse: Sendable>(
        request: URLRequest,
        call: PipelineCall<Response, ErrorResponse>,
        transport: any HTTPTransport,
        completion: @escaping @Sendable (Result<Response, EndpointTaskError<ErrorResponse>>) -> Void
    ) {
        self.request = request
        // Mocks and test transports installed where the task was made apply when it runs.
        let overrides = PipelineOverrides.current
        let box = Delivery<Response, ErrorResponse>(completion: completion)
        self.run = {
            let result = await PipelineOverrides.$current.withValue(overrides) {
                do throws(EndpointTaskError<ErrorResponse>) {
                    return Result<Response, EndpointTaskError<ErrorResponse>>.success(
                        try await call.run(on: transport).0)
                } catch {
                    return .failure(error)
                }
            }
            box.deliver(result)
        }
        self.deliverCancelled = { box.deliver(.failure(.cancelled)) }
        // `URLSessionTask.init()` is deprecated on Apple platforms for tasks meant to be run by a
        // session; this subclass runs itself and never reaches the session.
        super.init()
    }

    override func resume() {
        lifecycle.withLock { lifecycle in
            guard lifecycle.phase == .suspended else { return }
            lifecycle.phase = .running
            let run = self.run
            lifecycle.running = Task {
                await run()
                self.lifecycle.withLock { $0.phase = .completed }
            }
        }
    }

    override func cancel() {
        let running = lifecycle.withLock { lifecycle -> Task<Void, Never>?? in
            guard lifecycle.phase == .suspended || lifecycle.phase == .running else { return nil }
            lifecycle.phase = .canceling
            return .some(lifecycle.running)
        }
        guard let running else { return }
        running?.cancel()
        // Like a session's task: the completion runs on another queue, with the cancellation.
        DispatchQueue.global().async { [deliverCancelled] in deliverCancelled() }
    }

    override var state: URLSessionTask.State { lifecycle.withLock { $0.phase } }
    override var originalRequest: URLRequest? { request }
    override var currentRequest: URLRequest? { request }
}

/// Calls a completion handler once, whichever of the result and a cancellation comes first.
private final class Delivery<Response: Sendable, ErrorResponse: Sendable>: Sendable {
    private let completion: @Sendable (Result<Response, EndpointTaskError<ErrorResponse>>) -> Void
    private let delivered = Locked(false)

    init(completion: @escaping @Sendable (Result<Response, EndpointTaskError<ErrorResponse>>) -> Void) {
        self.completion = completion
    }

    func deliver(_ result: Result<Response, EndpointTaskError<ErrorResponse>>) {
        let first = delivered.withLock { delivered in
            defer { delivered = true }
            return !delivered
        }
        if first { completion(result) }
    }
}
