/// The one byte range of a `Range` header (RFC 9110 §14.1.2, §14.2) that the cache answers from
/// its store: `bytes=first-last`, `bytes=first-` or `bytes=-suffix`. Several ranges, another
/// unit or a malformed value read as `nil`, and such a request goes to the server.
struct ByteRangeSpec: Sendable, Equatable {
    /// The first byte, `nil` for a suffix.
    var first: Int?
    /// The last byte (for a suffix: how many bytes), `nil` for "to the end".
    var last: Int?

    init?(_ header: String) {
        let text = CacheControl.trimmed(header)
        guard let equals = text.firstIndex(of: "="), text[..<equals].lowercased() == "bytes" else { return nil }
        let spec = CacheControl.trimmed(text[text.index(after: equals)...])
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let suffix = number(parts[1]) else { return nil }
            (first, last) = (nil, suffix)
        } else {
            guard let start = number(parts[0]) else { return nil }
            let end = parts[1].isEmpty ? nil : number(parts[1])
            guard parts[1].isEmpty || end.map({ $0 >= start }) == true else { return nil }
            (first, last) = (start, end)
        }
    }

    /// The bytes asked for of a representation of `length` bytes; `nil` when none of them exist
    /// (unsatisfiable: the server's 416 to give).
    func resolved(length: Int) -> ClosedRange<Int>? {
        guard length > 0 else { return nil }
        guard let first else {
            guard let suffix = last, suffix > 0 else { return nil }
            return max(0, length - suffix)...(length - 1)
        }
        guard first < length else { return nil }
        return first...min(last ?? (length - 1), length - 1)
    }
}

/// A `Content-Range` of a 206 (RFC 9110 §14.4): `bytes first-last/length`, the length `*` when
/// unknown. An unsatisfied range (`bytes */length`) or one past the length reads as `nil`.
struct ContentRange: Sendable, Equatable {
    var range: ClosedRange<Int>
    var completeLength: Int?

    init(range: ClosedRange<Int>, completeLength: Int?) {
        self.range = range
        self.completeLength = completeLength
    }

    init?(_ header: String) {
        let text = CacheControl.trimmed(header)
        guard let space = text.firstIndex(of: " "), text[..<space].lowercased() == "bytes" else { return nil }
        let rest = text[text.index(after: space)...]
        let halves = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = number(bounds[0]), let last = number(bounds[1]), last >= first
        else { return nil }
        if halves[1] == "*" {
            completeLength = nil
        } else {
            guard let length = number(halves[1]), last < length else { return nil }
            completeLength = length
        }
        range = first...last
    }

    /// The header value.
    var headerValue: String {
        "bytes \(range.lowerBound)-\(range.upperBound)/\(completeLength.map(String.init) ?? "*")"
    }
}

/// A non-negative decimal integer of ASCII digits only; `nil` for anything else or an overflow.
private func number(_ text: Substring) -> Int? {
    guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
    return Int(text)
}
