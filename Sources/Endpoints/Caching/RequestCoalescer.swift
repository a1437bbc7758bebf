import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Shares one transport call among identical requests in flight (``HTTPCache``'s `coalescing`).
///
/// The first caller of a key starts the call in a task of its own; later callers of the same key
/// wait for its result. A caller cancelled while waiting leaves with `CancellationError` and the
/// others still get the result; the call itself is cancelled when no caller is left waiting.
final class RequestCoalescer: Sendable {
    typealias Answer = (Data, HTTPURLResponse)

    /// One call in flight: its waiters, and the task that runs it.
    final class Flight: Sendable {
        let state = Locked(FlightState())
    }

    /// The state of a call in flight, changed only through its actions.
    struct FlightState: Sendable {
        var waiters: [UInt64: CheckedContinuation<Answer, any Error>] = [:]
        /// Waiters cancelled before they were registered.
        var cancelledEarly: Set<UInt64> = []
        var result: Result<Answer, any Error>?
        var task: Task<Void, Never>?

        /// What to do once a waiter registers or a result arrives.
        enum Action {
            case none
            case resume([CheckedContinuation<Answer, any Error>], Result<Answer, any Error>)
            case cancel(CheckedContinuation<Answer, any Error>?, Task<Void, Never>?)
        }

        mutating func register(_ id: UInt64, _ continuation: CheckedContinuation<Answer, any Error>) -> Action {
            if let result { return .resume([continuation], result) }
            if cancelledEarly.remove(id) != nil { return .cancel(continuation, nil) }
            waiters[id] = continuation
            return .none
        }

        mutating func finish(_ result: Result<Answer, any Error>) -> Action {
            self.result = result
            defer { waiters = [:] }
            return .resume(Array(waiters.values), result)
        }

        /// A waiter is cancelled: it leaves; when nobody waits any more, the call is cancelled.
        mutating func cancel(_ id: UInt64) -> Action {
            guard result == nil else { return .none }
            guard let continuation = waiters.removeValue(forKey: id) else {
                cancelledEarly.insert(id)
                return .none
            }
            return .cancel(continuation, waiters.isEmpty ? task : nil)
        }
    }

    private let flights = Locked<(next: UInt64, byKey: [String: Flight])>((0, [:]))

    /// Runs `operation` for `key`, or waits for the run already in flight.
    func run(_ key: String, _ operation: @escaping @Sendable () async throws -> Answer) async throws -> Answer {
        let (id, flight, isNew) = flights.withLock { flights -> (UInt64, Flight, Bool) in
            flights.next += 1
            if let flight = flights.byKey[key] { return (flights.next, flight, false) }
            let flight = Flight()
            flights.byKey[key] = flight
            return (flights.next, flight, true)
        }
        if isNew {
            let task = Task {
                let result: Result<Answer, any Error>
                do {
                    result = .success(try await operation())
                } catch {
                    result = .failure(error)
                }
                self.flights.withLock { flights in
                    if flights.byKey[key] === flight { flights.byKey[key] = nil }
                }
                Self.perform(flight.state.withLock { $0.finish(result) })
            }
            flight.state.withLock { $0.task = task }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                Self.perform(flight.state.withLock { $0.register(id, continuation) })
            }
        } onCancel: {
            let action = flight.state.withLock { $0.cancel(id) }
            if case .cancel(_, let task?) = action {
                // Nobody waits: later callers start afresh.
                self.flights.withLock { flights in
                    if flights.byKey[key] === flight { flights.byKey[key] = nil }
                }
                task.cancel()
            }
            Self.perform(action)
        }
    }

    /// How many callers wait on calls in flight (for tests).
    var waiting: Int {
        flights.withLock { Array($0.byKey.values) }.reduce(0) { $0 + $1.state.withLock { $0.waiters.count } }
    }

    private static func perform(_ action: FlightState.Action) {
        switch action {
        case .none: break
        case .resume(let continuations, let result):
            for continuation in continuations { continuation.resume(with: result) }
        case .cancel(let continuation, _):
            continuation?.resume(throwing: CancellationError())
        }
    }
}
