/// The system's random numbers, for WebSocket keys and masks, as a generator with a stored property.
///
/// `SystemRandomNumberGenerator` has none, and ThreadSanitizer takes an `inout` access to an empty
/// value inside generic code (the frame encoder's `using:`) for a write to one address that every
/// thread shares: it reported a race between any two connections opening or sending at once
/// (swiftlang/swift#66099; the compiler skips the instrumentation only where it knows the type is
/// empty). Apps that run their tests under ThreadSanitizer would see it too.
struct SystemRandom: RandomNumberGenerator {
    /// The last number drawn: a stored property gives the value an address of its own.
    private var last: UInt64 = 0

    mutating func next() -> UInt64 {
        var system = SystemRandomNumberGenerator()
        last = system.next()
        return last
    }
}
