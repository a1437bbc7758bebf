import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSession {
    /// Creates a data task for an unauthenticated endpoint; call `resume()` to send it.
    ///
    /// ```swift
    /// let task = URLSession.shared.endpointTask(with: StatusEndpoint()) { result in
    ///     switch result {
    ///     case .success(let status): print(status)
    ///     case .failure(let error): print(error)
    ///     }
    /// }
    /// task.resume()
    /// ```
    ///
    /// Only endpoints whose `Auth` is ``NoAuth`` can use it: the task is returned synchronously, so
    /// it cannot wait for credentials. Calling it with an authenticated endpoint does not compile;
    /// use ``response(with:environment:auth:middleware:)`` instead.
    ///
    /// The completion handler is called once, on an arbitrary queue, with the same results and
    /// errors as the async API. A request that cannot be built completes with
    /// `.endpointError` once the task is resumed. When the endpoint has middleware, or a mock scope
    /// is active, the task starts the full async pipeline when it is resumed.
    public func endpointTask<T: Endpoint>(
        with endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        completion: @escaping @Sendable (Result<T.Response, T.TaskError>) -> Void
    ) -> URLSessionDataTask where T.Auth == NoAuth {
        let overrides = PipelineOverrides.current
        let middleware = T.middleware
        let request: URLRequest
        do {
            request = try endpoint.urlRequest(environment: environment)
        } catch {
            return deferredTask { completion(.failure(.endpointError(error))) }
        }
        guard overrides.isEmpty, middleware.isEmpty else {
            let pipeline = Pipeline(
                endpoint: endpoint,
                environment: environment,
                auth: NoAuth(),
                middleware: middleware,
                transport: URLSessionTransport(session: self)
            )
            return deferredTask {
                Task {
                    let result = await PipelineOverrides.$current.withValue(overrides) {
                        do throws(T.TaskError) {
                            return Result<T.Response, T.TaskError>.success(try await pipeline.run())
                        } catch {
                            return .failure(error)
                        }
                    }
                    completion(result)
                }
            }
        }
        let call = DataTaskCall(request: request, credentialHeaders: RequestContext.standardCredentialHeaders)
        return call.makeTask(on: self) { outcome in
            switch outcome {
            case .success(let (data, response)):
                do throws(T.TaskError) {
                    completion(.success(try Pipeline<T>.decode(data, response: response, for: endpoint)))
                } catch {
                    completion(.failure(error))
                }
            case .failure(let error):
                completion(.failure(T.TaskError(error)))
            }
        }
    }

    /// A task that does no network work: resuming it fails at once with an unsupported URL, and
    /// its completion runs `work` instead. It lets ``endpointTask(with:environment:completion:)``
    /// hand back a real, not-yet-resumed task when the result comes from somewhere else.
    private func deferredTask(_ work: @escaping @Sendable () -> Void) -> URLSessionDataTask {
        dataTask(with: URL(string: "endpoints-deferred:task")!) { _, _, _ in work() }
    }
}
