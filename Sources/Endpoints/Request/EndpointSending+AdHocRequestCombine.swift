#if canImport(Combine)
    import Combine
    import Foundation

    extension EndpointSending {
        /// A publisher that sends `request` when subscribed and emits its typed response.
        ///
        /// ```swift
        /// let subscription = URLSession.shared.endpointPublisher(for: .estimatedAge(forName: "Zaid"))
        ///     .sink { completion in
        ///         // Handle errors
        ///     } receiveValue: { person in
        ///         print("\(person.name) is probably \(person.age) years old.")
        ///     }
        /// ```
        ///
        /// A thin layer over `response(for:)`: the same pipeline runs, and cancelling the
        /// subscription cancels the request.
        public func endpointPublisher<Response, ErrorResponse>(
            for request: AdHocRequest<Response, ErrorResponse>
        ) -> AnyPublisher<Response, EndpointTaskError<ErrorResponse>> {
            publisher(sending: request)
        }

        /// A publisher for a ``Request`` (no typed error body), so that static members resolve
        /// without naming the type.
        public func endpointPublisher<Response>(
            for request: Request<Response>
        ) -> AnyPublisher<Response, EndpointTaskError<EmptyCodable>> {
            publisher(sending: request)
        }

        private func publisher<Response, ErrorResponse>(
            sending request: AdHocRequest<Response, ErrorResponse>
        ) -> AnyPublisher<Response, EndpointTaskError<ErrorResponse>> {
            let client = endpointClient
            let overrides = PipelineOverrides.current
            return Deferred {
                let running = Locked<Task<Void, Never>?>(nil)
                return Future<Response, EndpointTaskError<ErrorResponse>> { promise in
                    let promise = PromiseBox(fulfil: promise)
                    let task = Task {
                        await PipelineOverrides.$current.withValue(overrides) {
                            do throws(EndpointTaskError<ErrorResponse>) {
                                promise.fulfil(.success(try await client.response(for: request)))
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
    }
#endif
