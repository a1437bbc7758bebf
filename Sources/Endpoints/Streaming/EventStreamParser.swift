/// An incremental parser for the WHATWG `text/event-stream` format: feed it bytes as they arrive,
/// in chunks of any size, and it returns the events they complete.
///
/// ```swift
/// var parser = EventStreamParser()
/// let events = parser.parse(Array("data: hello\n\n".utf8))   // [ServerSentEvent(data: "hello")]
/// let rest = parser.finish()                                  // []
/// ```
///
/// What it implements (HTML Living Standard, "Server-sent events", "Interpreting an event stream"):
/// - Lines end with CR, LF or CRLF, also when a CR ends one chunk and its LF starts the next.
/// - One leading UTF-8 byte order mark is skipped; invalid UTF-8 becomes U+FFFD.
/// - A line starting with `:` is a comment. `field: value` loses one space after the colon; a line
///   without a colon is a field with an empty value. Unknown fields are ignored.
/// - `data` lines are joined with `\n`; an event with no `data` line is not dispatched.
/// - `event` sets the type (`"message"` when empty or absent), for the event being read only.
/// - `id` sets the last event ID, which later events keep; an `id` containing NUL is ignored.
/// - `retry` sets `reconnectionTime` when its value is ASCII digits only, and is ignored otherwise.
/// - At the end of the stream, the standard discards an event that no blank line ended ("If the
///   file ends in the middle of an event, before the final empty line, the incomplete event is not
///   dispatched"). ``finish()`` does that unless the parser was created with
///   `dispatchesUnterminatedEvent: true`, for servers that end the last event with the connection.
///
/// One event may take ``maximumSize`` bytes (its unfinished line and its data so far), 16 MiB
/// unless set: past that the parser stops, and ``oversized`` holds the event's first bytes, so a
/// server that never ends a line or an event cannot grow the client's memory without end.
///
/// Splitting the input differently never changes the events: the parser keeps an incomplete line
/// as bytes and decodes only whole lines, so a chunk may end inside a UTF-8 sequence.
///
/// It works on the bytes in place: a chunk that is contiguous in memory (`Data`, `[UInt8]`, a
/// slice of either) is scanned for line ends without copying, and only a line that a chunk ends
/// inside is kept for the next one. Each dispatched event costs its `data` string (and its `id`
/// when it sets one); there is no per-line allocation.
package struct EventStreamParser: Sendable {
    /// Whether ``finish()`` dispatches an event that the stream ended before its blank line.
    let dispatchesUnterminatedEvent: Bool
    /// The most bytes one event may take before it ends.
    package let maximumSize: Int
    /// The first bytes (up to 64 KiB) of an event that passed ``maximumSize``; the parser reads
    /// nothing more of this stream.
    package private(set) var oversized: Data?
    /// The reconnection time in milliseconds the stream asked for with `retry:`, if any; the
    /// event it came with carries it as ``ServerSentEvent/retry``.
    private(set) var reconnectionTime: Int?
    /// The last event ID the stream set with `id:`; `nil` when none was set or it was set empty.
    /// Each event carries it as ``ServerSentEvent/id``, which a reconnection sends as `Last-Event-ID`.
    private(set) var lastEventID: String?

    /// The start of a line that the previous chunk ended inside.
    private var line: [UInt8] = []
    /// The previous chunk ended with CR, so an LF starting this one ends no line.
    private var afterCR = false
    /// No line has ended yet: the first one may start with a byte order mark.
    private var atStart = true
    /// The data buffer: the event's `data` lines joined with LF.
    private var data: [UInt8] = []
    private var hasData = false
    /// The event type buffer; empty means `message`.
    private var eventType = ""
    private var retryForEvent: Int?

    /// Creates a parser at the start of a stream.
    /// - Parameters:
    ///   - dispatchesUnterminatedEvent: Whether ``finish()`` dispatches a last event that no blank
    ///     line ended, instead of discarding it as the standard says; `false` by default.
    ///   - maximumSize: The most bytes one event may take; ``StreamLimits/maximumValueSize``.
    package init(dispatchesUnterminatedEvent: Bool = false, maximumSize: Int = StreamLimits.maximumValueSize) {
        self.dispatchesUnterminatedEvent = dispatchesUnterminatedEvent
        self.maximumSize = maximumSize
    }

    /// Reads `bytes`, the next part of the stream, and returns the events it completed, in order.
    package mutating func parse(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        let done: Void? = bytes.withContiguousStorageIfAvailable { parse($0, into: &events) }
        if done == nil {
            Array(bytes).withUnsafeBufferPointer { parse($0, into: &events) }
        }
        return events
    }

    /// Ends the stream and returns what is left: nothing, unless the parser dispatches an
    /// unterminated last event. The parser is then ready for a new stream (a reconnection) and
    /// keeps the last event ID, which the next events carry as ``ServerSentEvent/id``.
    package mutating func finish() -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        if dispatchesUnterminatedEvent, oversized == nil {
            if !line.isEmpty { endCarriedLine(with: UnsafeBufferPointer(start: nil, count: 0), into: &events) }
            dispatch(into: &events)
        }
        line = []
        oversized = nil
        afterCR = false
        atStart = true
        data = []
        hasData = false
        eventType = ""
        retryForEvent = nil
        return events
    }

    /// Splits `bytes` into lines: a tight scan for CR or LF, each whole line read where it lies.
    private mutating func parse(_ bytes: UnsafeBufferPointer<UInt8>, into events: inout [ServerSentEvent]) {
        guard let base = bytes.baseAddress, !bytes.isEmpty, oversized == nil else { return }
        let count = bytes.count
        var start = 0
        if afterCR {
            afterCR = false
            if base[0] == 0x0A { start = 1 }  // the LF of a CRLF split across chunks
        }
        while start < count {
            var end = start
            while end < count {
                let byte = base[end]
                if byte <= 0x0D, byte == 0x0A || byte == 0x0D { break }
                end += 1
            }
            if end == count {
                // The chunk ends inside this line: keep its start for the next chunk.
                line.append(contentsOf: UnsafeBufferPointer(start: base + start, count: end - start))
                if line.count + data.count > maximumSize { overflow(line) }
                return
            }
            let content = UnsafeBufferPointer(start: base + start, count: end - start)
            if line.isEmpty {
                readLine(content, into: &events)
            } else {
                endCarriedLine(with: content, into: &events)
            }
            if oversized != nil { return }
            if base[end] == 0x0D {
                if end + 1 == count {
                    afterCR = true
                } else if base[end + 1] == 0x0A {
                    end += 1
                }
            }
            start = end + 1
        }
    }

    /// Ends the line the previous chunks began, with `rest`, its last part.
    private mutating func endCarriedLine(with rest: UnsafeBufferPointer<UInt8>, into events: inout [ServerSentEvent]) {
        var whole: [UInt8] = []
        swap(&whole, &line)
        whole.append(contentsOf: rest)
        whole.withUnsafeBufferPointer { readLine($0, into: &events) }
        whole.removeAll(keepingCapacity: true)
        swap(&whole, &line)
    }

    /// Reads one line, without its line end.
    private mutating func readLine(_ line: UnsafeBufferPointer<UInt8>, into events: inout [ServerSentEvent]) {
        var start = 0
        let count = line.count
        if atStart {
            atStart = false
            if count >= 3, line[0] == 0xEF, line[1] == 0xBB, line[2] == 0xBF { start = 3 }
        }
        guard start < count else {
            dispatch(into: &events)
            return
        }
        if line[start] == 0x3A { return }  // a comment
        var colon = start
        while colon < count, line[colon] != 0x3A { colon += 1 }
        var valueStart = colon < count ? colon + 1 : count
        if valueStart < count, line[valueStart] == 0x20 { valueStart += 1 }
        let value = UnsafeBufferPointer(rebasing: line[valueStart..<count])
        let field = UnsafeBufferPointer(rebasing: line[start..<colon])
        switch field.count {
        case 4 where field[0] == 0x64 && field[1] == 0x61 && field[2] == 0x74 && field[3] == 0x61:  // data
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
            if data.count > maximumSize { overflow(data) }
        case 5 where field[0] == 0x65 && field[1] == 0x76 && field[2] == 0x65 && field[3] == 0x6E && field[4] == 0x74:
            // event
            eventType = Self.text(value)
        case 2 where field[0] == 0x69 && field[1] == 0x64:  // id
            if !value.contains(0) { lastEventID = value.isEmpty ? nil : Self.text(value) }
        case 5 where field[0] == 0x72 && field[1] == 0x65 && field[2] == 0x74 && field[3] == 0x72 && field[4] == 0x79:
            // retry
            readRetry(value)
        default:
            break  // an unknown field
        }
    }

    /// Stops reading: the event being read passed ``maximumSize``.
    private mutating func overflow(_ bytes: [UInt8]) {
        oversized = Data(bytes.prefix(StreamLimits.keptPrefix))
        line = []
        data = []
        hasData = false
    }

    private mutating func readRetry(_ value: UnsafeBufferPointer<UInt8>) {
        guard !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }) else { return }
        // Digits beyond Int's range keep the largest time rather than wrapping.
        var milliseconds = 0
        for digit in value {
            let (times10, overflow1) = milliseconds.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(digit - 0x30))
            if overflow1 || overflow2 {
                milliseconds = .max
                break
            }
            milliseconds = sum
        }
        reconnectionTime = milliseconds
        retryForEvent = milliseconds
    }

    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            eventType = ""
        }
        guard hasData else { return }
        let type = eventType.isEmpty ? "message" : eventType
        events.append(ServerSentEvent(type: type, data: Self.text(data), id: lastEventID, retry: retryForEvent))
        retryForEvent = nil
    }

    private static func text(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
