import Foundation

/// The bounded queue between whoever produces a response body (a data task's delegate, a mock)
/// and the one task that reads it.
///
/// The producer appends chunks without waiting; once more than ``limit`` bytes wait unread, the
/// buffer calls its `pause` hook (a data task suspends itself) and calls `resume` when the reader
/// has drained it to half the limit. An async producer can instead ``write(_:)``, which waits for
/// room. When the reader goes away (it was cancelled, or dropped the body unread), `terminate`
/// runs once, and the transfer stops.
final class BodyBuffer: Sendable {
    /// What the buffer calls outside its lock: suspend, resume, cancel the transfer.
    struct Hooks: Sendable {
        var pause: @Sendable () -> Void = {}
        var resume: @Sendable () -> Void = {}
        var terminate: @Sendable () -> Void = {}
    }

    private struct State {
        var chunks: [Data] = []
        var first = 0
        var buffered = 0
        var end: Result<Void, any Error>?
        var terminated = false
        var paused = false
        var reader: CheckedContinuation<Data?, any Error>?
        var writers: [CheckedContinuation<Void, any Error>] = []
        var hooks = Hooks()
    }

    /// The most bytes that wait unread before the producer is paused.
    let limit: Int
    private let state = Locked(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    func setHooks(_ hooks: Hooks) {
        state.withLock { $0.hooks = hooks }
    }

    /// Whether the reader is gone, so producing more is pointless.
    var isTerminated: Bool { state.withLock { $0.terminated } }

    /// Queues `chunk` for the reader, or hands it over at once when the reader waits.
    func append(_ chunk: Data) {
        guard !chunk.isEmpty else { return }
        let (reader, pause) = state.withLock {
            state -> (CheckedContinuation<Data?, any Error>?, (@Sendable () -> Void)?) in
            guard !state.terminated, state.end == nil else { return (nil, nil) }
            if let reader = state.reader {
                state.reader = nil
                return (reader, nil)
            }
            state.chunks.append(chunk)
            state.buffered += chunk.count
            guard state.buffered > limit, !state.paused else { return (nil, nil) }
            state.paused = true
            return (nil, state.hooks.pause)
        }
        reader?.resume(returning: chunk)
        pause?()
    }

    /// Appends `chunk`, then waits while the buffer is over its limit; throws `CancellationError`
    /// when the reader is gone.
    func write(_ chunk: Data) async throws {
        append(chunk)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome: Result<Void, any Error>? = state.withLock { state in
                if state.terminated { return .failure(CancellationError()) }
                if state.buffered <= limit || state.end != nil { return .success(()) }
                state.writers.append(continuation)
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// Ends the body: the reader gets what is queued, then the end (or `error`).
    func finish(throwing error: (any Error)? = nil) {
        let (reader, writers) = state.withLock {
            state -> (CheckedContinuation<Data?, any Error>?, [CheckedContinuation<Void, any Error>]) in
            guard state.end == nil, !state.terminated else { return (nil, []) }
            // A waiting reader gets the error now; otherwise the next read does.
            state.end = state.reader == nil ? (error.map { .failure($0) } ?? .success(())) : .success(())
            defer {
                state.reader = nil
                state.writers = []
            }
            return (state.reader, state.writers)
        }
        for writer in writers { writer.resume() }
        if let error { reader?.resume(throwing: error) } else { reader?.resume(returning: nil) }
    }

    /// The next chunk, `nil` at the end; throws the producer's error, or `CancellationError` when
    /// the reading task is cancelled (which also stops the transfer).
    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                let (outcome, resume) = take(orWait: continuation)
                if let outcome { continuation.resume(with: outcome) }
                resume?()
            }
        } onCancel: {
            terminate(with: CancellationError())
        }
    }

    /// The next chunk, `nil` at the end, without stopping the transfer when the reading task is
    /// cancelled: for a reader that handles cancellation itself (a WebSocket sends its close frame
    /// first, and the end follows).
    func nextIgnoringCancellation() async throws -> Data? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
            let (outcome, resume) = take(orWait: continuation)
            if let outcome { continuation.resume(with: outcome) }
            resume?()
        }
    }

    private func take(
        orWait continuation: CheckedContinuation<Data?, any Error>
    ) -> (Result<Data?, any Error>?, (@Sendable () -> Void)?) {
        var writers: [CheckedContinuation<Void, any Error>] = []
        let result = state.withLock { state -> (Result<Data?, any Error>?, (@Sendable () -> Void)?) in
            if state.terminated { return (.failure(CancellationError()), nil) }
            if state.first < state.chunks.count {
                let chunk = state.chunks[state.first]
                state.chunks[state.first] = Data()
                state.first += 1
                if state.first == state.chunks.count || state.first > 64 {
                    state.chunks.removeFirst(state.first)
                    state.first = 0
                }
                state.buffered -= chunk.count
                var resume: (@Sendable () -> Void)?
                if state.paused, state.buffered <= limit / 2 {
                    state.paused = false
                    resume = state.hooks.resume
                }
                if state.buffered <= limit {
                    writers = state.writers
                    state.writers = []
                }
                return (.success(chunk), resume)
            }
            switch state.end {
            case .some(.success): return (.success(nil), nil)
            case .some(.failure(let error)):
                state.end = .success(())
                return (.failure(error), nil)
            case nil:
                state.reader = continuation
                return (nil, nil)
            }
        }
        for writer in writers { writer.resume() }
        return result
    }

    /// The reader is gone: drop what is queued, fail a waiting read with `error`, stop the producer.
    func terminate(with error: any Error = CancellationError()) {
        let (reader, writers, hook) = state.withLock {
            state -> (
                CheckedContinuation<Data?, any Error>?, [CheckedContinuation<Void, any Error>], (@Sendable () -> Void)?
            ) in
            guard !state.terminated else { return (nil, [], nil) }
            state.terminated = true
            state.chunks = []
            state.first = 0
            state.buffered = 0
            defer {
                state.reader = nil
                state.writers = []
            }
            return (state.reader, state.writers, state.end == nil ? state.hooks.terminate : nil)
        }
        reader?.resume(throwing: error)
        for writer in writers { writer.resume(throwing: CancellationError()) }
        hook?()
    }
}
