import Foundation

/// Reads structured values from the fuzzer's bytes: each read takes what it needs from the front,
/// and reads past the end return empty or zero values, so every input is a valid test case.
public struct FuzzInput {
    private let bytes: [UInt8]
    private var offset = 0

    public init(_ start: UnsafeRawPointer, _ count: Int) {
        bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    }

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var isAtEnd: Bool { offset >= bytes.count }

    /// One byte, or 0 past the end.
    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A length byte, then that many bytes (or what is left).
    public mutating func chunk() -> [UInt8] {
        let count = Int(byte())
        let end = min(bytes.count, offset + count)
        defer { offset = end }
        return offset < end ? Array(bytes[offset..<end]) : []
    }

    /// A chunk read as UTF-8 (invalid sequences become U+FFFD, as `String(decoding:)` does).
    public mutating func string() -> String {
        String(decoding: chunk(), as: UTF8.self)
    }

    /// Eight bytes as an integer.
    public mutating func uint64() -> UInt64 {
        (0..<8).reduce(UInt64(0)) { value, _ in value << 8 | UInt64(byte()) }
    }

    /// Everything not read yet.
    public mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return offset < bytes.count ? Array(bytes[offset...]) : []
    }
}

/// Stops the fuzzer with a message when a property does not hold; libFuzzer saves the input.
public func require(
    _ condition: @autoclosure () -> Bool,
    _ message: @autoclosure () -> String,
    file: StaticString = #fileID,
    line: UInt = #line
) {
    if !condition() {
        FileHandle.standardError.write(Data("property failed at \(file):\(line): \(message())\n".utf8))
        abort()
    }
}

/// Decodes `%XX` escapes (and `+` as a space when `plusIsSpace`), as a server would; `nil` for a
/// malformed escape or bytes that are not UTF-8.
public func percentDecode(_ text: Substring, plusIsSpace: Bool) -> String? {
    var bytes: [UInt8] = []
    var iterator = Array(text.utf8)[...]
    while let byte = iterator.popFirst() {
        if byte == UInt8(ascii: "%") {
            guard iterator.count >= 2, let high = hexValue(iterator.removeFirst()),
                let low = hexValue(iterator.removeFirst())
            else { return nil }
            bytes.append(high << 4 | low)
        } else if byte == UInt8(ascii: "+") && plusIsSpace {
            bytes.append(UInt8(ascii: " "))
        } else {
            bytes.append(byte)
        }
    }
    return String(bytes: bytes, encoding: .utf8)
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    default: nil
    }
}

/// Byte-for-byte equality: `==` on `String` is canonical equivalence, which would hide a value
/// that came back normalised.
public func identical(_ lhs: String?, _ rhs: String?) -> Bool {
    lhs.map { Array($0.utf8) } == rhs.map { Array($0.utf8) }
}

/// A small generator of numbers (a linear congruential one), so that one input always cuts and
/// pauses the same way.
public struct Generator {
    private var state: UInt64

    /// A generator from `seed` (made odd).
    public init(seed: UInt64) { state = seed | 1 }

    /// The next number, 31 bits of it.
    public mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }
}
