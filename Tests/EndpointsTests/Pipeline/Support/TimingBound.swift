import EndpointsTestServer
import Testing

/// Runs each test of a suite whose bound is its behaviour (100 cancels end within 1 s, a stream's
/// bytes arrive within an idle timeout) on a thread of its own (`OwnThread`), as the preferred
/// executor of its task and of its child tasks: what it measures then waits for the machine, not
/// for the cooperative pool. A `Task { … }` it starts does not inherit that thread: start one with
/// `OwnThread.task { … }`.
///
/// Plain `swift test` starts every test at once (about 800; `scripts/test.sh` runs sixteen at a
/// time): their continuations queue on the pool's two threads, where 100 cancels took 2.6 s to
/// come back while the library's own work took milliseconds. The test server answers from its
/// connection threads the same way (see `ThreadBoundExecutor`), so a stream's head does not wait
/// for the pool either. The tests do not wait for one another: each running one has a thread.
///
/// ```swift
/// @Suite(.timingBound) struct TimeoutTests { … }
/// ```
struct TimingBoundTrait: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        try await OwnThread.run { try await function() }
    }
}

extension Trait where Self == TimingBoundTrait {
    /// Each test runs on a thread of its own (see ``TimingBoundTrait``).
    static var timingBound: Self { TimingBoundTrait() }
}
