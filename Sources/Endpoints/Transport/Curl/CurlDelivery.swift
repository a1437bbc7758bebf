#if canImport(FoundationNetworking)
    import Foundation

    /// Who waits for an exchange, and whether it ended: the state both the caller's side (a cancel)
    /// and the loop thread (the head, the end, a timeout) change, under the exchange's lock. Each
    /// change returns what to do once the lock is released.
    struct CurlDelivery {
        typealias Continuation = CheckedContinuation<CurlAnswer, any Error>

        enum Phase {
            /// Made, not handed to the loop yet.
            case initialized
            /// The caller waits for the answer (or, streamed, the head).
            case waiting(Continuation)
            /// The head went to the caller; the body is arriving.
            case streaming
            /// Over: answered, failed or stopped.
            case finished
        }

        private(set) var phase = Phase.initialized
        /// Why it was stopped before the caller started waiting.
        private var stoppedEarly: (any Error)?
        /// A streamed exchange's body, made with the exchange and handed over with the head (see
        /// ``ResponseBody/init(buffer:)`` for why it is made there).
        private var streamedBody: ResponseBody?

        init(streamedBody: ResponseBody? = nil) {
            self.streamedBody = streamedBody
        }

        enum StartAction {
            /// Hand the exchange to the loop.
            case send
            /// Stopped before it started: fail at once, send nothing.
            case fail(any Error)
        }

        mutating func start(_ continuation: Continuation) -> StartAction {
            guard case .initialized = phase else { return .fail(stoppedEarly ?? CancellationError()) }
            phase = .waiting(continuation)
            return .send
        }

        var isWaiting: Bool {
            if case .waiting = phase { return true }
            return false
        }

        enum StopAction {
            /// Over already.
            case none
            /// Stopped before it was sent: ``start(_:)`` fails.
            case notStarted
            /// Fail the caller who waits.
            case fail(Continuation)
            /// End the body with the error.
            case endBody
        }

        mutating func stop(with error: any Error) -> StopAction {
            switch phase {
            case .initialized:
                phase = .finished
                stoppedEarly = error
                return .notStarted
            case .waiting(let continuation):
                phase = .finished
                return .fail(continuation)
            case .streaming:
                phase = .finished
                return .endBody
            case .finished:
                return .none
            }
        }

        /// A streamed exchange's head arrived: the caller to hand it to, if still waiting, and the
        /// body to hand over with it.
        mutating func headArrived() -> (continuation: Continuation, body: ResponseBody)? {
            guard case .waiting(let continuation) = phase, let body = streamedBody.take() else { return nil }
            phase = .streaming
            return (continuation, body)
        }

        enum FinishAction {
            case none
            /// Give the caller the outcome.
            case resume(Continuation)
            /// End the body with the outcome.
            case endBody
        }

        /// The transfer ended.
        mutating func finish() -> FinishAction {
            switch phase {
            case .waiting(let continuation):
                phase = .finished
                return .resume(continuation)
            case .streaming:
                phase = .finished
                return .endBody
            case .initialized, .finished:
                return .none
            }
        }
    }
#endif
