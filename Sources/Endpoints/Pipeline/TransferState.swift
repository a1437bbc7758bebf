import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The life of one URLSession transfer — buffered, streamed, upload or download — as one state
/// that only its events change, each returning what to do once the lock is released (resume a
/// task, cancel it, deliver to the waiting caller, send again).
///
/// ``DataTaskCall`` (buffered requests) and ``StreamingDataTask`` (streams, uploads, downloads)
/// each keep one under their lock; the watchdog's decisions, the redirect resend and how a
/// finished task maps to an outcome are here, once, and unit-tested alone. `Handle` is the task
/// (`URLSessionTask`), `Delivery` what the caller waits on (a continuation or a completion).
struct TransferState<Handle, Delivery> {
    enum Phase {
        /// Not started: nobody waits yet.
        case initialized
        /// The caller waits for the outcome (buffered) or the head (streamed); `task` is the one
        /// transferring, `nil` before the first send and between a refused redirect and its resend.
        case waiting(Delivery, task: Handle?)
        /// The head went to the caller and the body is arriving (streamed calls only).
        case streaming(task: Handle?)
        /// Over: the outcome went to the caller, or the call was stopped (``stopReason``).
        case finished
    }

    private(set) var phase = Phase.initialized
    /// Why the call was stopped (a cancellation, a timeout), once it was.
    private(set) var stopReason: (any Error)?
    /// When a byte, a head or a send was last seen (uptime nanoseconds), for the idle watchdog.
    private(set) var lastActivity: UInt64
    /// Whether the reader fell behind and the task is suspended (Apple platforms).
    private(set) var paused = false
    /// Linux: the redirect just refused is one the call resends itself (a 307/308 with a body), so
    /// the head that arrives with it is not the answer.
    private(set) var resendPending = false

    init(now: UInt64) {
        lastActivity = now
    }

    // MARK: Starting and sending

    enum StartAction {
        /// Send the request.
        case send
        /// Stopped before it started: deliver the failure now and send nothing.
        case fail(Delivery, any Error)
    }

    /// The caller starts waiting on `delivery`.
    mutating func start(_ delivery: Delivery) -> StartAction {
        guard case .initialized = phase else {
            // Stopped before it started (a cancelled task runs its cancellation handler first).
            return .fail(delivery, stopReason ?? CancellationError())
        }
        phase = .waiting(delivery, task: nil)
        return .send
    }

    /// Whether to make a task for the next send: not once the call is over.
    var shouldSend: Bool {
        if case .finished = phase { return false }
        return true
    }

    enum SentAction {
        /// Start the task.
        case resume(Handle)
        /// Stopped while the task was made: cancel it (then resume it, so URLSession ends it
        /// without sending it).
        case cancel(Handle)
    }

    /// A task was made for a send (the first, or a redirect's resend).
    mutating func sent(_ task: Handle, now: UInt64) -> SentAction {
        resendPending = false
        lastActivity = now
        switch phase {
        case .waiting(let delivery, _):
            phase = .waiting(delivery, task: task)
        case .streaming:
            phase = .streaming(task: task)
        case .initialized, .finished:
            return .cancel(task)
        }
        return .resume(task)
    }

    // MARK: Stopping

    enum StopAction {
        case none
        /// Cancel `task` (if any), give the caller still waiting (if any) `error`, and end the
        /// body with it.
        case stop(task: Handle?, waiting: Delivery?, error: any Error)
    }

    /// Stops the call with `error` (a cancellation, a timeout, a reader that went away); nothing
    /// when it is over already.
    mutating func stop(with error: any Error) -> StopAction {
        switch phase {
        case .initialized:
            phase = .finished
            stopReason = error
            return .none
        case .waiting(let delivery, let task):
            phase = .finished
            stopReason = error
            return .stop(task: task, waiting: delivery, error: error)
        case .streaming(let task):
            phase = .finished
            stopReason = error
            return .stop(task: task, waiting: nil, error: error)
        case .finished:
            return .none
        }
    }

    // MARK: The head and the body

    /// Something arrived (bytes, a head, a progress report).
    mutating func noteActivity(now: UInt64) {
        lastActivity = now
    }

    /// The next redirect is one the call resends itself: its head is not the answer.
    mutating func resendAhead() {
        resendPending = true
    }

    /// A response head arrived: the caller who waits for it gets it now, unless it is a redirect
    /// the call resends itself or the call is over.
    mutating func headArrived(now: UInt64) -> Delivery? {
        lastActivity = now
        guard !resendPending, case .waiting(let delivery, let task) = phase else { return nil }
        phase = .streaming(task: task)
        return delivery
    }

    /// Whether the head went to the caller, so the body's bytes are the answer's.
    var isStreaming: Bool {
        if case .streaming = phase { return true }
        return false
    }

    enum PauseAction {
        case none
        case suspend(Handle)
        case resume(Handle)
    }

    /// The reader fell behind (`true`) or caught up (`false`).
    mutating func setPaused(_ paused: Bool, now: UInt64) -> PauseAction {
        guard self.paused != paused, let task else { return .none }
        self.paused = paused
        lastActivity = now
        return paused ? .suspend(task) : .resume(task)
    }

    /// The task transferring, while the call goes on.
    var task: Handle? {
        switch phase {
        case .waiting(_, let task), .streaming(let task): task
        case .initialized, .finished: nil
        }
    }

    // MARK: The idle watchdog

    enum WatchdogAction {
        /// The call is over: the watchdog stops.
        case none
        /// Look again after this many seconds.
        case check(after: TimeInterval)
        /// Nothing arrived for `timeout`: stop the call with `URLError.timedOut`.
        case expire
    }

    /// The watchdog looks at the call `now`, for an idle timeout of `timeout` seconds. A call
    /// suspended for backpressure is not idle: it waits for its reader.
    func watchdog(now: UInt64, timeout: TimeInterval) -> WatchdogAction {
        guard shouldSend else { return .none }
        if paused { return .check(after: timeout) }
        let limit = UInt64(timeout * 1_000_000_000)
        let idle = now &- lastActivity
        if idle >= limit { return .expire }
        return .check(after: Double(limit - idle) / 1_000_000_000)
    }

    // MARK: The end of a task

    enum CompletionAction {
        /// Send the redirect's next request (the call goes on).
        case resend
        /// The call was over before this task ended: only clean up after it.
        case discard
        /// The call failed: give the caller still waiting (if any) `error`, end the body with it.
        case fail(waiting: Delivery?, error: any Error)
        /// The answer is `response`: give the caller still waiting (if any) its head, end the body.
        case answer(waiting: Delivery?, response: HTTPURLResponse)
    }

    /// What the end of a task means for the call.
    ///
    /// - Parameters:
    ///   - error: What the task ended with.
    ///   - response: The task's response.
    ///   - resend: Whether the redirect guard has a request to send again (a 307/308 on Linux).
    ///   - exceededHops: Whether the redirect guard stopped a chain that was too long.
    ///   - refusedChallenge: The 401 whose challenge the guard refused (Linux ends that task with
    ///     an error but it is the answer).
    ///   - failingURL: The request's URL, for the errors made here.
    mutating func completed(
        error: (any Error)?,
        response: URLResponse?,
        resend: Bool,
        exceededHops: Bool,
        refusedChallenge: HTTPURLResponse?,
        failingURL: URL?
    ) -> CompletionAction {
        let waiting: Delivery?
        switch phase {
        case .initialized, .finished: return .discard
        case .waiting(let delivery, _): waiting = delivery
        case .streaming: waiting = nil
        }
        if error == nil, resend {
            if case .waiting(let delivery, _) = phase { phase = .waiting(delivery, task: nil) }
            return .resend
        }
        phase = .finished
        if exceededHops {
            return .fail(waiting: waiting, error: RedirectPolicy.tooManyRedirects(from: failingURL))
        }
        if let error {
            if let refusedChallenge { return .answer(waiting: waiting, response: refusedChallenge) }
            // corelibs' -1 for a body cut off part-way, a malformed answer, a TLS failure: typed.
            return .fail(waiting: waiting, error: URLError.normalizingCorelibsFailure(error))
        }
        guard let response = response as? HTTPURLResponse else {
            return .fail(waiting: waiting, error: URLError(.badServerResponse))
        }
        return .answer(waiting: waiting, response: response)
    }
}
