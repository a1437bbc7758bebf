import Foundation

/// A value guarded by a lock: the mutable state of registries, recorders and fakes.
///
/// Change it with ``withLock(_:)``; do the work that follows (running an action, resuming a
/// continuation) after the closure returns, outside the lock.
final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: every access to `value` goes through `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
