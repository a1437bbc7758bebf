/// A small, fast, seedable random number generator (SplitMix64), so a run that used random choices
/// can be repeated exactly by reusing its seed.
///
/// ```swift
/// var generator = SplitMix64(seed: 42)
/// let roll = Double.random(in: 0..<1, using: &generator)   // the same on every run and platform
/// ```
///
/// Not for cryptography. Internal: it is how ``ChaosMiddleware`` and ``RetryMiddleware`` replay a seed.
struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    /// The generator's state; two generators with the same state produce the same numbers.
    private(set) var state: UInt64

    /// Creates a generator that starts from `seed`.
    init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// A uniformly distributed number in `0..<1` with 53 random bits, computed the same way
    /// everywhere (unlike `Double.random(in:using:)`, whose algorithm the standard library may change).
    mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
