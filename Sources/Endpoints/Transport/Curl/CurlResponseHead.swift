import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response head as libcurl's header callback hands it over, one line at a time, checked as it
/// arrives: the status line, the fields, the blank line that ends it.
///
/// libcurl alone accepts about 300 KB of header lines, folded lines, and a head cut off by a
/// closed connection as a complete, empty 200. Here a head is refused when it passes
/// ``maximumBytes``, when a line is folded (obs-fold, RFC 9112 §5.2), holds a bare CR or a NUL,
/// a field name is not a token, or the final head's `Transfer-Encoding` names a coding other than
/// `chunked` (a transfer coding the client never offered in `TE`, RFC 9112 §6.1, whose body would
/// otherwise arrive still encoded); and it counts as received only once its blank line came
/// (``isComplete``). Interim heads (1xx but 101) are checked and dropped; lines after the final
/// head (trailers) are ignored.
///
/// Only what the transport's thread must know is worked out per line (size, status, validity);
/// the fields are kept as bytes and turned into strings by ``response(url:)`` on the caller's
/// thread.
struct CurlResponseHead: Sendable {
    /// 64 KiB: the most bytes a head's lines may take, interim heads included.
    static let maximumBytes = 64 * 1024

    /// Why a head was refused.
    enum Problem: Error, Equatable, Sendable {
        case tooLarge
        case malformedStatusLine
        case foldedLine
        case invalidFieldName
        case invalidFieldValue
        case unsupportedTransferCoding
    }

    enum Step: Equatable {
        /// More lines belong to this head.
        case more
        /// The final head ended with this line.
        case ended
        /// An interim (1xx) head ended; the next line starts another head.
        case interimEnded
        /// The line came after the final head (a trailer) and was ignored.
        case ignored
        /// The head is refused.
        case invalid(Problem)
    }

    /// The status code of the head being read (0 before its status line).
    private(set) var statusCode = 0
    /// The major and minor version of the status line: 1.1, 2.0 (libcurl writes `HTTP/2`).
    private(set) var version = (major: 1, minor: 1)
    /// Whether the final head's blank line arrived.
    private(set) var isComplete = false
    /// The bytes of every line so far, interim heads included.
    private(set) var size = 0
    /// The field lines of the head being read, each without its line ending, one after the other.
    private var fieldBytes: [UInt8] = []
    /// Where each field line ends in ``fieldBytes``.
    private var fieldEnds: [Int] = []

    /// Forgets the head read so far, to read the next response's: libcurl answered a proxy's
    /// `407` itself and sent the request again. Its lines still count toward ``maximumBytes``.
    mutating func startOver() {
        self = CurlResponseHead(size: size)
    }

    private init(size: Int) { self.size = size }

    init() {}

    /// Whether `line` is a status line (`HTTP/1.1 200 OK`), which after a complete head starts the
    /// head of another response: a field or trailer line never is (it holds a colon first).
    static func isStatusLine(_ line: UnsafeRawBufferPointer) -> Bool {
        var head = CurlResponseHead()
        var content = line[...]
        while let last = content.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") {
            content = content.dropLast()
        }
        return head.parseStatusLine(UnsafeRawBufferPointer(rebasing: content))
    }

    /// Takes one line, its line ending included.
    mutating func consume(_ line: UnsafeRawBufferPointer) -> Step {
        if isComplete { return .ignored }
        size += line.count
        guard size <= Self.maximumBytes else { return .invalid(.tooLarge) }
        var content = line[...]
        if content.last == UInt8(ascii: "\n") { content = content.dropLast() }
        if content.last == UInt8(ascii: "\r") { content = content.dropLast() }
        if statusCode == 0 {
            return parseStatusLine(UnsafeRawBufferPointer(rebasing: content)) ? .more : .invalid(.malformedStatusLine)
        }
        if content.isEmpty {
            if (100..<200).contains(statusCode), statusCode != 101 {
                statusCode = 0
                fieldBytes.removeAll(keepingCapacity: true)
                fieldEnds.removeAll(keepingCapacity: true)
                return .interimEnded
            }
            if let codings = value(of: "Transfer-Encoding"), !Self.onlyChunked(codings) {
                return .invalid(.unsupportedTransferCoding)
            }
            isComplete = true
            return .ended
        }
        if let problem = Self.check(field: UnsafeRawBufferPointer(rebasing: content)) { return .invalid(problem) }
        fieldBytes.append(contentsOf: content)
        fieldEnds.append(fieldBytes.count)
        return .more
    }

    /// `HTTP/1.1 200 OK`, `HTTP/2 200`: the version and a three-digit status. The name is read in
    /// any case (`http/1.1`), as libcurl and Linux's URLSession read it.
    private mutating func parseStatusLine(_ text: UnsafeRawBufferPointer) -> Bool {
        let digit = { (byte: UInt8) -> Int? in (48...57).contains(byte) ? Int(byte - 48) : nil }
        let lower = { (index: Int) -> UInt8 in text[index] | 0x20 }
        guard text.count >= 10, lower(0) == 0x68, lower(1) == 0x74, lower(2) == 0x74, lower(3) == 0x70,  // http
            text[4] == UInt8(ascii: "/"), let major = digit(text[5])
        else { return false }
        var index = 6
        var minor = 0
        if text[index] == UInt8(ascii: ".") {
            guard index + 1 < text.count, let value = digit(text[index + 1]) else { return false }
            minor = value
            index += 2
        }
        guard index + 4 <= text.count, text[index] == UInt8(ascii: " "),
            let hundreds = digit(text[index + 1]), let tens = digit(text[index + 2]), let ones = digit(text[index + 3]),
            index + 4 == text.count || text[index + 4] == UInt8(ascii: " "), hundreds >= 1
        else { return false }
        version = (major, minor)
        statusCode = hundreds * 100 + tens * 10 + ones
        return true
    }

    /// Why a field line is refused, or `nil`: `name: value`, the name a token, the value free of
    /// CR, LF and NUL; a line that starts with a space or a tab continues the one before
    /// (obs-fold), which RFC 9112 §5.2 lets a client refuse.
    static func check(field line: UnsafeRawBufferPointer) -> Problem? {
        guard let first = line.first else { return .invalidFieldName }
        if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { return .foldedLine }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return .invalidFieldName }
        for byte in line[..<colon] where !HTTPToken.isTokenByte(byte) { return .invalidFieldName }
        for byte in line[(colon + 1)...] where byte == 0 || byte == 13 || byte == 10 { return .invalidFieldValue }
        return nil
    }

    /// Whether a `Transfer-Encoding` value names only `chunked` (and the obsolete `identity`, which
    /// means none), in any case: the codings libcurl takes off. libcurl passes any other coding's
    /// bytes on as the body.
    static func onlyChunked(_ codings: String) -> Bool {
        codings.split(separator: ",").allSatisfy { coding in
            let name = coding.trimmingCharacters(in: .whitespaces)
            return sameName(name.utf8, "chunked".utf8) || sameName(name.utf8, "identity".utf8)
        }
    }

    /// Calls `body` with each field line's name and value (without surrounding spaces), as bytes.
    private func forEachField(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Void) {
        var start = 0
        fieldBytes.withUnsafeBufferPointer { bytes in
            for end in fieldEnds {
                let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
                start = end
                guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
                var valueStart = colon + 1
                var valueEnd = line.count
                while valueStart < valueEnd, line[valueStart] == 32 || line[valueStart] == 9 { valueStart += 1 }
                while valueEnd > valueStart, line[valueEnd - 1] == 32 || line[valueEnd - 1] == 9 { valueEnd -= 1 }
                body(
                    UnsafeBufferPointer(rebasing: line[..<colon]),
                    UnsafeBufferPointer(rebasing: line[valueStart..<valueEnd]))
            }
        }
    }

    /// The value of the field `name` (any case), the values of a repeated field joined with `, `.
    ///
    /// Compares the bytes as they came: only a matching field's value becomes a string (the loop
    /// asks for three fields of every head).
    func value(of name: String) -> String? {
        var found: String?
        forEachField { fieldName, value in
            guard Self.sameName(fieldName, name.utf8) else { return }
            let text = Self.text(of: value)
            found = found.map { $0 + ", " + text } ?? text
        }
        return found
    }

    /// The value of each field `name` (any case), in order: for `Set-Cookie`, whose values cannot
    /// be joined.
    func values(of name: String) -> [String] {
        var found: [String] = []
        forEachField { fieldName, value in
            guard Self.sameName(fieldName, name.utf8) else { return }
            found.append(Self.text(of: value))
        }
        return found
    }

    /// Whether two field names are the same, ASCII letters in any case. Names are tokens (ASCII),
    /// so this is `caseInsensitiveCompare` without Foundation's Unicode work.
    static func sameName(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) where x != y {
            let lower = x | 0x20
            guard lower == y | 0x20, lower >= UInt8(ascii: "a"), lower <= UInt8(ascii: "z") else { return false }
        }
        return true
    }

    /// `HTTP/1.1`, or `HTTP/2` for a major version of 2 and up, as URLSession writes them.
    var versionText: String {
        switch (version.major, version.minor) {
        case (1, 1): "HTTP/1.1"
        case (1, 0): "HTTP/1.0"
        case (2, _): "HTTP/2"
        case (let major, _) where major >= 2: "HTTP/\(major)"
        case (let major, let minor): "HTTP/\(major).\(minor)"
        }
    }

    /// The head as an `HTTPURLResponse` for `url`: repeated fields are joined with `, ` under the
    /// first one's name, as URLSession does.
    ///
    /// Names are compared by their ASCII letters (they are tokens), without `lowercased()`'s
    /// Unicode work: corelibs' initializer, which capitalizes every name again, is already the
    /// costliest step of a small response on Linux.
    func response(url: URL) -> HTTPURLResponse? {
        var headers: [String: String] = Dictionary(minimumCapacity: fieldEnds.count)
        var keys: [String: String] = [:]  // ASCII-lower-cased name → the name used as key
        forEachField { name, value in
            let key = String(decoding: name, as: UTF8.self)
            let text = Self.text(of: value)
            let lowered = Self.asciiLowercased(name)
            if let first = keys[lowered] {
                headers[first] = headers[first].map { $0 + ", " + text } ?? text
            } else {
                keys[lowered] = key
                headers[key] = text
            }
        }
        return HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: versionText, headerFields: headers)
    }

    /// A field value as text: UTF-8 when its bytes are valid UTF-8 (ASCII, most often), else
    /// ISO-8859-1, HTTP's historical charset (RFC 9110 §5.5), one character per byte, so that no
    /// byte is lost or replaced: each character's scalar value is its byte.
    static func text(of value: UnsafeBufferPointer<UInt8>) -> String {
        let text = String(decoding: value, as: UTF8.self)
        guard value.contains(where: { $0 >= 0x80 }) else { return text }
        if text.utf8.elementsEqual(value) { return text }
        var latin1 = ""
        latin1.unicodeScalars.append(contentsOf: value.lazy.map { Unicode.Scalar($0) })
        return latin1
    }

    /// `name` with its ASCII capitals made small, the other bytes as they are.
    private static func asciiLowercased(_ name: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: name.count) { buffer in
            for (index, byte) in name.enumerated() {
                buffer[index] = byte >= 65 && byte <= 90 ? byte | 0x20 : byte
            }
            return name.count
        }
    }
}
