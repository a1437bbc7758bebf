import Foundation

/// Splits a JSON Lines (NDJSON) stream into its lines, incrementally: feed it bytes as they
/// arrive and it returns each complete line's bytes, ready for a `JSONDecoder`.
///
/// ```swift
/// var splitter = NDJSONSplitter()
/// let lines = splitter.parse(Array("{\"n\":1}\r\n\n{\"n\"".utf8))   // [{"n":1}]
/// let last = splitter.finish()                                   // [] ({"n" is still incomplete…)
/// ```
///
/// - Lines end with LF; a CR before the LF is dropped, so CRLF streams work.
/// - Blank lines (empty, or only spaces and tabs) are skipped.
/// - The last line needs no newline: ``finish()`` returns it.
/// - Bytes are kept as they are; a chunk may end anywhere, also inside a UTF-8 sequence.
///
/// One line may take ``maximumSize`` bytes, 16 MiB unless set: past that the splitter stops, and
/// ``oversized`` holds the line's first bytes.
///
/// A chunk that is contiguous in memory (`Data`, `[UInt8]`, a slice of either) is scanned in
/// place; only a line that a chunk ends inside is kept for the next one.
package struct NDJSONSplitter: Sendable {
    /// The start of a line that the previous chunk ended inside.
    private var line: [UInt8] = []
    /// The most bytes one line may take before it ends.
    package let maximumSize: Int
    /// The first bytes (up to 64 KiB) of a line that passed ``maximumSize``; the splitter reads
    /// nothing more of this stream.
    package private(set) var oversized: Data?

    /// Creates a splitter at the start of a stream, for lines of at most `maximumSize` bytes
    /// (``StreamLimits/maximumValueSize`` unless set).
    package init(maximumSize: Int = StreamLimits.maximumValueSize) {
        self.maximumSize = maximumSize
    }

    /// Reads `bytes`, the next part of the stream, and returns the lines it completed, in order.
    package mutating func parse(_ bytes: some Sequence<UInt8>) -> [Data] {
        var lines: [Data] = []
        let done: Void? = bytes.withContiguousStorageIfAvailable { parse($0, into: &lines) }
        if done == nil {
            Array(bytes).withUnsafeBufferPointer { parse($0, into: &lines) }
        }
        return lines
    }

    /// Ends the stream and returns its last line when it had no newline and is not blank.
    package mutating func finish() -> [Data] {
        var lines: [Data] = []
        if oversized == nil { line.withUnsafeBufferPointer { Self.endLine($0, into: &lines) } }
        line = []
        oversized = nil
        return lines
    }

    private mutating func parse(_ bytes: UnsafeBufferPointer<UInt8>, into lines: inout [Data]) {
        guard let base = bytes.baseAddress, !bytes.isEmpty, oversized == nil else { return }
        let count = bytes.count
        var start = 0
        while start < count {
            var end = start
            while end < count, base[end] != 0x0A { end += 1 }
            let part = UnsafeBufferPointer(start: base + start, count: end - start)
            if end == count {
                // The chunk ends inside this line: keep its start for the next chunk.
                line.append(contentsOf: part)
                if line.count > maximumSize {
                    oversized = Data(line.prefix(StreamLimits.keptPrefix))
                    line = []
                }
                return
            }
            if line.isEmpty {
                Self.endLine(part, into: &lines)
            } else {
                line.append(contentsOf: part)
                line.withUnsafeBufferPointer { Self.endLine($0, into: &lines) }
                line.removeAll(keepingCapacity: true)
            }
            start = end + 1
        }
    }

    /// Appends `line` (without its LF) unless it is blank, dropping a CR that ends it.
    private static func endLine(_ line: UnsafeBufferPointer<UInt8>, into lines: inout [Data]) {
        var count = line.count
        if count > 0, line[count - 1] == 0x0D { count -= 1 }
        let content = UnsafeBufferPointer(rebasing: line[..<count])
        guard content.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
        lines.append(Data(buffer: content))
    }
}
