import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value guarded by a lock: the only mutable state shared across threads in the package, and
/// its one lock type (EndpointsMocking and EndpointsTestServer use it too).
///
/// Change it with ``withLock(_:)``; do the work that follows (resuming a continuation, calling
/// back) after the closure returns, outside the lock.
///
/// The value and its lock live in one allocation (a `ManagedBuffer` whose header is the value and
/// whose one element is the lock: `os_unfair_lock` on Apple platforms, a `pthread_mutex_t`
/// elsewhere), so making one costs a single allocation, where a class holding an `NSLock` cost
/// three on Linux (itself, the `NSLock`, and the mutex the `NSLock` allocates). Every request
/// makes one, for its metrics. A copy of a `Locked` shares its value and lock.
package struct Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: every access to the value goes through the lock stored beside it
    // (`Storage`'s element), taken in `withLock`.
    private let storage: Storage

    package init(_ value: consuming Value) {
        storage = Storage.make(value)
    }

    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try storage.withLock(body)
    }

    #if canImport(Darwin)
        fileprivate typealias Primitive = os_unfair_lock
    #else
        fileprivate typealias Primitive = pthread_mutex_t
    #endif

    /// The value (the buffer's header) and its lock (the buffer's one element), in one allocation.
    private final class Storage: ManagedBuffer<Value, Primitive> {
        static func make(_ value: consuming Value) -> Storage {
            // Moved in, not copied: a request's recorder is made with a value of a dozen fields.
            var value = Optional(value)
            let buffer = unsafeDowncast(create(minimumCapacity: 1) { _ in value.take()! }, to: Storage.self)
            buffer.withUnsafeMutablePointerToElements { lock in
                #if canImport(Darwin)
                    lock.initialize(to: os_unfair_lock())
                #else
                    lock.initialize(to: pthread_mutex_t())
                    pthread_mutex_init(lock, nil)
                #endif
            }
            return buffer
        }

        deinit {
            withUnsafeMutablePointerToElements { lock in
                #if !canImport(Darwin)
                    pthread_mutex_destroy(lock)
                #endif
                _ = lock.deinitialize(count: 1)
            }
        }

        @inline(__always)
        func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
            try withUnsafeMutablePointers { value, lock in
                #if canImport(Darwin)
                    os_unfair_lock_lock(lock)
                    defer { os_unfair_lock_unlock(lock) }
                #else
                    pthread_mutex_lock(lock)
                    defer { pthread_mutex_unlock(lock) }
                #endif
                return try body(&value.pointee)
            }
        }
    }
}
