import Foundation

/// A value guarded by a lock: the only mutable state shared across threads in the package, and
/// its one lock type (EndpointsMocking and EndpointsTestServer use it too).
///
/// Change it with ``withLock(_:)``; do the work that follows (resuming a continuation, calling
/// back) after the closure returns, outside the lock.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: every access to `value` goes through `lock`.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
