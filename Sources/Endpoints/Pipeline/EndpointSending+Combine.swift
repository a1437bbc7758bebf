#if canImport(Combine)
    import Combine
    import Foundation

    extension EndpointSending {
        /// A publisher that sends `endpoint` when subscribed and emits its typed response.
        ///
        /// ```swift
        /// URLSession.shared.endpointPublisher(with: MyEndpoint())
        ///     .sink { completion in
        ///         guard case .failure(let error) = completion else { return }
        ///         // handle error
        ///     } receiveValue: { (response: MyEndpoint.Response) in
        ///         // handle MyEndpoint.Response
        ///     }
        ///     .store(in: &cancellables)
        /// ```
        ///
        /// It is a thin layer over ``response(with:environment:auth:middleware:)``: authentication,
        /// refresh, middleware and mocks apply the same way, and cancelling the subscription cancels
        /// the request.
        public func endpointPublisher<T: Endpoint>(
            with endpoint: T,
            environment: T.Server.Environments = T.Server.defaultEnvironment,
            auth: T.Auth = T.auth,
            middleware: [any Middleware] = []
        ) -> AnyPublisher<T.Response, T.TaskError> {
            let client = endpointClient
            let overrides = PipelineOverrides.current
            return Deferred {
                let running = Locked<Task<Void, Never>?>(nil)
                return Future<T.Response, T.TaskError> { promise in
                    let promise = PromiseBox(fulfil: promise)
                    let task = Task {
                        await PipelineOverrides.$current.withValue(overrides) {
                            do throws(T.TaskError) {
                                let value = try await client.response(
                                    with: endpoint,
                                    environment: environment,
                                    auth: auth,
                                    middleware: middleware
                                )
                                promise.fulfil(.success(value))
                            } catch {
                                promise.fulfil(.failure(error))
                            }
                        }
                    }
                    running.withLock { $0 = task }
                }
                .handleEvents(receiveCancel: { running.withLock { $0 }?.cancel() })
            }
            .eraseToAnyPublisher()
        }

        /// A publisher for `endpoint` with its declared environment and authentication: the same as
        /// ``endpointPublisher(with:environment:auth:middleware:)`` with every parameter omitted.
        ///
        /// A separate overload rather than only default arguments, for the same reason as
        /// ``response(with:)``: default arguments naming the server's associated types break the
        /// compiler inside a server's own `static let auth = JWTAuth(...)`.
        public func endpointPublisher<T: Endpoint>(with endpoint: T) -> AnyPublisher<T.Response, T.TaskError> {
            endpointPublisher(with: endpoint, environment: T.Server.defaultEnvironment, auth: T.auth, middleware: [])
        }
    }

    /// Carries a `Future`'s promise into the task that fulfils it.
    struct PromiseBox<Output, Failure: Error>: @unchecked Sendable {
        // @unchecked Sendable: `Future` serialises calls to its promise with its own lock, and the
        // task calls it exactly once.
        let fulfil: (Result<Output, Failure>) -> Void
    }
#endif
