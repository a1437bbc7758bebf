import Endpoints
import Foundation

/// A task executor whose jobs run on one thread, the one that calls ``run()``: a connection's
/// thread while its route's handler answers, or a thread of a test's own.
///
/// Swift Testing starts every test at once unless told otherwise (about 800 here), and their
/// continuations queue on the cooperative pool, two threads on a 2-core machine: a handler's task
/// waited there long enough for a stream's 8 s idle timeout to expire before its head, and 100
/// cancellations took 2.6 s to come back. Work that prefers this executor waits for nothing but
/// its own thread's share of the machine.
///
/// Once ``close()`` is called, ``run()`` returns when the jobs already queued have run, and a job
/// enqueued later (a task the handler left behind) goes to the global concurrent executor, so
/// nothing is stranded.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
package final class ThreadBoundExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs` and `closed` are read and written only with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var closed = false

    package init() {}

    /// A thread of its own, started now, runs this executor's jobs for the rest of the process.
    package static func onThreadOfItsOwn(named name: String) -> ThreadBoundExecutor {
        let executor = ThreadBoundExecutor()
        let thread = Thread { executor.run() }
        thread.name = name
        thread.start()
        return executor
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        condition.lock()
        guard !closed else {
            condition.unlock()
            globalConcurrentExecutor.enqueue(job)
            return
        }
        jobs.append(UnownedJob(job))
        condition.signal()
        condition.unlock()
    }

    /// Runs the jobs enqueued here, in order, on the calling thread, until ``close()``.
    package func run() {
        while let job = take() {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// No more jobs run here once those queued have; ``run()`` then returns.
    package func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// The next job, waiting for one; `nil` once closed and drained. (A handful wait at a time:
    /// one test's or one handler's.)
    private func take() -> UnownedJob? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty, !closed { condition.wait() }
        return jobs.isEmpty ? nil : jobs.removeFirst()
    }
}

/// Threads of their own for code that measures time (a test whose bound is its behaviour): each
/// caller of ``run(_:)`` gets one, kept for the next caller afterwards and never stopped, so no job
/// left behind is stranded.
///
/// ```swift
/// try await OwnThread.run {
///     let reader = OwnThread.task { try await readAll(body) }   // a Task does not inherit the thread
///     …
/// }
/// ```
package enum OwnThread {
    /// Runs `operation` with a thread of its own as the preferred executor of its task and child
    /// tasks (as before macOS 15 / iOS 18, where task executors do not exist).
    package static func run<T>(_ operation: () async throws -> T) async rethrows -> T {
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return try await operation() }
        return try await OwnThreads.run(operation)
    }

    /// Starts `operation` as `Task { … }` does, on the thread of the ``run(_:)`` that calls it
    /// (anywhere else, as `Task { … }`): a `Task` does not inherit its creator's executor preference.
    package static func task<Success: Sendable>(
        _ operation: sending @escaping () async -> Success
    ) -> Task<Success, Never> {
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return Task(operation: operation) }
        return OwnThreads.task(operation)
    }

    /// Starts the throwing `operation` as `Task { … }` does, on the thread of the ``run(_:)`` that
    /// calls it.
    package static func task<Success: Sendable>(
        _ operation: sending @escaping () async throws -> Success
    ) -> Task<Success, any Error> {
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return Task(operation: operation) }
        return OwnThreads.task(operation)
    }
}

/// The threads behind ``OwnThread``: one per caller running, each kept for the next.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
private enum OwnThreads {
    /// The running caller's thread.
    @TaskLocal static var current: ThreadBoundExecutor?

    private static let idle = Locked([ThreadBoundExecutor]())

    /// `Task { … }` on the running caller's thread, if any.
    static func task<Success: Sendable>(_ operation: sending @escaping () async -> Success) -> Task<Success, Never> {
        Task(executorPreference: current, operation: operation)
    }

    /// `Task { … }`, throwing, on the running caller's thread, if any.
    static func task<Success: Sendable>(
        _ operation: sending @escaping () async throws -> Success
    ) -> Task<Success, any Error> {
        Task(executorPreference: current, operation: operation)
    }

    static func run<T>(_ operation: () async throws -> T) async rethrows -> T {
        let executor = idle.withLock { $0.popLast() } ?? ThreadBoundExecutor.onThreadOfItsOwn(named: "own thread")
        defer { idle.withLock { $0.append(executor) } }
        return try await $current.withValue(executor) {
            try await withTaskExecutorPreference(executor) {
                try await operation()
            }
        }
    }
}
