/// An incremental parser for the WHATWG `text/event-stream` format: feed it bytes as they arrive,
/// in chunks of any size, and it returns the events they complete.
///
/// ```swift
/// var parser = ServerSentEventParser()
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
/// - `retry` sets ``reconnectionTime`` when its value is ASCII digits only, and is ignored otherwise.
/// - At the end of the stream, the standard discards an event that no blank line ended ("If the
///   file ends in the middle of an event, before the final empty line, the incomplete event is not
///   dispatched"). ``finish()`` does that unless the parser was created with
///   `dispatchesUnterminatedEvent: true`, for servers that end the last event with the connection.
///
/// Splitting the input differently never changes the events: the parser keeps an incomplete line
/// as bytes and decodes only whole lines, so a chunk may end inside a UTF-8 sequence.
public struct ServerSentEventParser: Sendable {
    /// Whether ``finish()`` dispatches an event that the stream ended before its blank line.
    public let dispatchesUnterminatedEvent: Bool
    /// The reconnection time in milliseconds the stream asked for with `retry:`, if any.
    public private(set) var reconnectionTime: Int?
    /// The last event ID the stream set with `id:`; `nil` when none was set or it was set empty.
    /// A client reconnecting sends it as `Last-Event-ID`.
    public var lastEventID: String? { lastEventIDBytes.isEmpty ? nil : Self.text(lastEventIDBytes) }

    private var line: [UInt8] = []
    private var afterCR = false
    private var atStart = true
    private var data: [UInt8] = []
    private var hasData = false
    private var eventType: [UInt8] = []
    private var lastEventIDBytes: [UInt8] = []
    private var retryForEvent: Int?

    /// Creates a parser at the start of a stream.
    /// - Parameter dispatchesUnterminatedEvent: Whether ``finish()`` dispatches a last event that
    ///   no blank line ended, instead of discarding it as the standard says; `false` by default.
    public init(dispatchesUnterminatedEvent: Bool = false) {
        self.dispatchesUnterminatedEvent = dispatchesUnterminatedEvent
    }

    /// Reads `bytes`, the next part of the stream, and returns the events it completed, in order.
    public mutating func parse(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            switch byte {
            case 0x0A where afterCR:
                afterCR = false
            case 0x0A, 0x0D:
                afterCR = byte == 0x0D
                endLine(into: &events)
            default:
                afterCR = false
                line.append(byte)
            }
        }
        return events
    }

    /// Ends the stream and returns what is left: nothing, unless the parser dispatches an
    /// unterminated last event. The parser is then ready for a new stream (a reconnection) and
    /// keeps ``lastEventID`` and ``reconnectionTime``.
    public mutating func finish() -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        if dispatchesUnterminatedEvent {
            if !line.isEmpty { endLine(into: &events) }
            dispatch(into: &events)
        }
        line = []
        afterCR = false
        atStart = true
        data = []
        hasData = false
        eventType = []
        retryForEvent = nil
        return events
    }

    private mutating func endLine(into events: inout [ServerSentEvent]) {
        defer { line.removeAll(keepingCapacity: true) }
        var start = 0
        if atStart {
            atStart = false
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        }
        let content = line[start...]
        guard let first = content.first else {
            dispatch(into: &events)
            return
        }
        if first == 0x3A { return }  // a comment
        let field: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = content.firstIndex(of: 0x3A) {
            field = content[..<colon]
            value = content[(colon + 1)...]
            if value.first == 0x20 { value = value.dropFirst() }
        } else {
            field = content
            value = []
        }
        process(field: field, value: value)
    }

    private mutating func process(field: ArraySlice<UInt8>, value: ArraySlice<UInt8>) {
        if field.elementsEqual("data".utf8) {
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
        } else if field.elementsEqual("event".utf8) {
            eventType = Array(value)
        } else if field.elementsEqual("id".utf8) {
            if !value.contains(0) { lastEventIDBytes = Array(value) }
        } else if field.elementsEqual("retry".utf8) {
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
    }

    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            eventType = []
        }
        guard hasData else { return }
        let type = eventType.isEmpty ? "message" : Self.text(eventType)
        events.append(ServerSentEvent(type: type, data: Self.text(data), id: lastEventID, retry: retryForEvent))
        retryForEvent = nil
    }

    private static func text(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
