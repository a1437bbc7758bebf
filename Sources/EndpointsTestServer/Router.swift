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
/// The handler runs in an unstructured `Task` on the global concurrent executor, so a handler that
/// awaits (for example `Task.sleep`) never ties up a thread, and a blocked connection thread never
/// ties up the cooperative pool.
func runBlocking(_ handler: @escaping TestServer.Handler, _ request: TestServer.Request) -> TestServer.Response {
    let slot = ResultSlot()
    Task {
        let response = await handler(request)
        slot.value.withLock { $0 = response }
        slot.ready.signal()
    }
    slot.ready.wait()
    return slot.value.withLock { $0 } ?? .status(500)
}
