import Foundation

/// A value that is only ever touched while holding an `NSLock`.
///
/// `@unchecked Sendable` is sound here because every read and write of `value` happens inside
/// `lock` (an `NSLock`) via `withLock`, and `Value` is itself `Sendable`, so nothing non-`Sendable`
/// escapes the critical section.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
