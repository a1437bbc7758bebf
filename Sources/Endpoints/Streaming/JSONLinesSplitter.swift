import Foundation

/// Splits a JSON Lines (NDJSON) stream into its lines, incrementally: feed it bytes as they
/// arrive and it returns each complete line's bytes, ready for a `JSONDecoder`.
///
/// ```swift
/// var splitter = JSONLinesSplitter()
/// let lines = splitter.parse(Array("{\"n\":1}\r\n\n{\"n\"".utf8))   // [{"n":1}]
/// let last = splitter.finish()                                   // [] ({"n" is still incomplete…)
/// ```
///
/// - Lines end with LF; a CR before the LF is dropped, so CRLF streams work.
/// - Blank lines (empty, or only spaces and tabs) are skipped.
/// - The last line needs no newline: ``finish()`` returns it.
/// - Bytes are kept as they are; a chunk may end anywhere, also inside a UTF-8 sequence.
public struct JSONLinesSplitter: Sendable {
    private var line: [UInt8] = []

    /// Creates a splitter at the start of a stream.
    public init() {}

    /// Reads `bytes`, the next part of the stream, and returns the lines it completed, in order.
    public mutating func parse(_ bytes: some Sequence<UInt8>) -> [Data] {
        var lines: [Data] = []
        for byte in bytes {
            if byte == 0x0A {
                endLine(into: &lines)
            } else {
                line.append(byte)
            }
        }
        return lines
    }

    /// Ends the stream and returns its last line when it had no newline and is not blank.
    public mutating func finish() -> [Data] {
        var lines: [Data] = []
        endLine(into: &lines)
        return lines
    }

    private mutating func endLine(into lines: inout [Data]) {
        defer { line.removeAll(keepingCapacity: true) }
        var end = line.endIndex
        if end > 0, line[end - 1] == 0x0D { end -= 1 }
        let content = line[..<end]
        guard content.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
        lines.append(Data(content))
    }
}
