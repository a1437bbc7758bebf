import Dispatch
import Endpoints
import Foundation

/// A route registered with ``TestServer/route(_:_:)``.
struct CustomRoute: Sendable {
    let pattern: String
    let handler: TestServer.Handler

    /// For `"/api/*"` this is `"/api"`; `nil` for exact-match patterns.
    var prefix: String? {
        pattern.hasSuffix("/*") ? String(pattern.dropLast(2)) : nil
    }

    func matches(_ path: String) -> Bool {
        guard let prefix else { return path == pattern }
        return path == prefix || path.hasPrefix(prefix + "/")
    }
}

/// Chooses the custom route for a path: an exact pattern wins, otherwise the longest matching prefix.
func bestRoute(for path: String, in routes: [CustomRoute]) -> CustomRoute? {
    if let exact = routes.first(where: { $0.prefix == nil && $0.pattern == path }) { return exact }
    return routes.filter { $0.prefix != nil && $0.matches(path) }.max { $0.pattern.count < $1.pattern.count }
}

/// Holds an async handler's result until the waiting connection thread picks it up.
private final class ResultSlot: Sendable {
    let value = Locked<TestServer.Response?>(nil)
    let ready = DispatchSemaphore(value: 0)
}

/// Runs an async handler from a connection thread and blocks that thread (only) until it finishes.
///
/// The handler's task prefers an executor that runs its jobs on this connection thread, which
/// waits for the answer anyway: a loopback answer does not wait behind the cooperative pool, which
/// a test run that starts every test at once keeps busy for seconds (see ``ThreadBoundExecutor``).
/// A handler that awaits (for example `Task.sleep`) suspends without holding the thread's jobs up.
/// Where task executors are not available, the handler runs on the global concurrent executor.
func runBlocking(_ handler: @escaping TestServer.Handler, _ request: TestServer.Request) -> TestServer.Response {
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
        return runOnThisThread(handler, request)
    }
    let slot = ResultSlot()
    Task {
        let response = await handler(request)
        slot.value.withLock { $0 = response }
        slot.ready.signal()
    }
    slot.ready.wait()
    return slot.value.withLock { $0 } ?? .status(500)
}

/// Runs `handler` in a task whose jobs run on the calling thread, until it answers.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
private func runOnThisThread(
    _ handler: @escaping TestServer.Handler, _ request: TestServer.Request
) -> TestServer.Response {
    let executor = ThreadBoundExecutor()
    let answer = Locked<TestServer.Response?>(nil)
    Task(executorPreference: executor) {
        let response = await handler(request)
        answer.withLock { $0 = response }
        executor.close()
    }
    executor.run()
    return answer.withLock { $0 } ?? .status(500)
}
