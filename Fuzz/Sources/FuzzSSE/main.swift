// The server-sent-events parser: the same bytes give the same events however they are split, fed
// whole, in fuzzer-chosen chunks (as `Data` slices, through the pipeline's `StreamDecoder`), one
// byte at a time, and split in two at a fuzzer-chosen byte; each event comes out as soon as its
// blank line has arrived (checked after one of the first chunks); and the events, the last event ID
// and the reconnection time are exactly what a reference written from the WHATWG algorithm gives
// (decode the whole stream, split it into lines, interpret each line). A second stream after
// `finish()` (a reconnection) obeys the same rules.
import Foundation
import FuzzDriver
import FuzzSupport

@testable import Endpoints

/// What the reference gives for one stream.
struct Expected {
    var events: [ServerSentEvent] = []
    /// The last event ID buffer at the end (the parser's `lastEventID`, `nil` when empty).
    var lastEventID = ""
    var reconnectionTime: Int?
}

/// The event-stream interpretation of HTML's "Interpreting an event stream", written from the
/// standard's text: `bytes` is decoded as UTF-8 as a whole (one leading BOM removed), split into
/// lines at CRLF, LF or CR, and each complete line processed; at the end, the last (incomplete)
/// line and event are processed and dispatched only when `unterminated`.
func reference(
    _ bytes: [UInt8], unterminated: Bool, lastEventID: String = "", reconnectionTime: Int? = nil
) -> Expected {
    var expected = Expected(lastEventID: lastEventID, reconnectionTime: reconnectionTime)
    var body = bytes[...]
    if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
    let text = String(decoding: body, as: UTF8.self)
    // CR and LF are always graphemes of their own (or CRLF together, one grapheme), so splitting
    // the Characters splits the lines.
    let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
    var data = String.UnicodeScalarView()
    var eventType = String.UnicodeScalarView()
    var retrySinceLastEvent: Int?

    func dispatch() {
        defer {
            data = .init()
            eventType = .init()
        }
        guard !data.isEmpty else { return }
        if data.last == "\n" { data.removeLast() }
        let type = eventType.isEmpty ? "message" : String(eventType)
        let id = expected.lastEventID.isEmpty ? nil : expected.lastEventID
        expected.events.append(ServerSentEvent(type: type, data: String(data), id: id, retry: retrySinceLastEvent))
        retrySinceLastEvent = nil
    }

    func process(_ line: Substring) {
        let scalars = line.unicodeScalars
        guard let first = scalars.first else { return dispatch() }
        if first == ":" { return }
        let field: String
        var value: Substring.UnicodeScalarView
        if let colon = scalars.firstIndex(of: ":") {
            field = String(scalars[..<colon])
            value = scalars[scalars.index(after: colon)...]
            if value.first == " " { value.removeFirst() }
        } else {
            field = String(line)
            value = Substring.UnicodeScalarView()
        }
        // Byte-wise: `==` on String is canonical equivalence.
        if identical(field, "data") {
            data.append(contentsOf: value)
            data.append("\n")
        } else if identical(field, "event") {
            eventType = String.UnicodeScalarView(value)
        } else if identical(field, "id") {
            if !value.contains("\u{0}") { expected.lastEventID = String(value) }
        } else if identical(field, "retry") {
            if !value.isEmpty, value.allSatisfy({ ("0"..."9").contains($0) }) {
                let milliseconds = Int(String(value)) ?? .max
                expected.reconnectionTime = milliseconds
                retrySinceLastEvent = milliseconds
            }
        }
    }

    for line in lines.dropLast() { process(line) }
    if unterminated {
        if let last = lines.last, !last.isEmpty { process(last) }
        dispatch()
    }
    return expected
}

/// Byte-for-byte equality of two lists of events.
func same(_ lhs: [ServerSentEvent], _ rhs: [ServerSentEvent]) -> Bool {
    lhs.count == rhs.count
        && zip(lhs, rhs).allSatisfy { left, right in
            identical(left.type, right.type) && identical(left.data, right.data) && identical(left.id, right.id)
                && left.retry == right.retry
        }
}

func describe(_ events: [ServerSentEvent]) -> String {
    events.map {
        "[\($0.type.debugDescription) \($0.data.debugDescription) \(String(describing: $0.id)) \(String(describing: $0.retry))]"
    }
    .joined(separator: ", ")
}

/// Requires `parser`'s events and state to be `expected`.
func requireSame(
    _ events: [ServerSentEvent], _ parser: EventStreamParser, _ expected: Expected, _ how: @autoclosure () -> String
) {
    require(same(events, expected.events), "\(how()): \(describe(events)), expected \(describe(expected.events))")
    require(
        identical(parser.lastEventID, expected.lastEventID.isEmpty ? nil : expected.lastEventID),
        "\(how()): last event ID \(String(describing: parser.lastEventID)), expected \(expected.lastEventID.debugDescription)"
    )
    require(parser.reconnectionTime == expected.reconnectionTime, "\(how()): reconnection time")
}

/// The events of one decoding step, which never fails: an event is never decoded further.
func delivered(_ step: StreamDecoder<ServerSentEvent>.Step) -> [ServerSentEvent] {
    require(step.failure == nil, "an event failed to decode: \(String(describing: step.failure))")
    return step.values
}

/// Feeds `bytes` to `parser` in chunks of the sizes in `sizes` (repeated; 0 is an empty chunk),
/// as `Data` slices through the pipeline's decoder, checking after chunk number `checkedStep` (if
/// any) that exactly the events completed so far came out.
func chunked(
    _ bytes: [UInt8], sizes: [Int], parser: EventStreamParser, checkedStep: Int? = nil, lastEventID: String = "",
    reconnectionTime: Int? = nil
) -> [ServerSentEvent] {
    let data = Data(bytes)
    let decoder = StreamDecoder<ServerSentEvent>.events(parser)
    var events: [ServerSentEvent] = []
    var offset = 0
    var step = 0
    while offset < bytes.count || step == 0 {
        let end = min(bytes.count, offset + sizes[step % sizes.count])
        events += delivered(decoder.feed(data[offset..<end]))
        offset = end
        step += 1
        if step == checkedStep {
            let prefix = reference(
                Array(bytes[..<end]), unterminated: false, lastEventID: lastEventID, reconnectionTime: reconnectionTime)
            require(
                same(events, prefix.events),
                "after \(end) of \(bytes.count) bytes: \(describe(events)), expected \(describe(prefix.events))")
        }
    }
    return events + delivered(decoder.finish())
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let flags = input.byte()
    let unterminated = flags & 1 != 0
    let splitByte = input.byte()
    let sizes = input.chunk().map { Int($0 % 64) }
    let bytes = input.rest()

    let expected = reference(bytes, unterminated: unterminated)

    // Whole.
    var whole = EventStreamParser(dispatchesUnterminatedEvent: unterminated)
    let wholeEvents = whole.parse(bytes) + whole.finish()
    requireSame(wholeEvents, whole, expected, "whole")
    for event in wholeEvents {
        require(
            !event.type.isEmpty && !event.type.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }),
            "type \(event.type.debugDescription)")
        require(!event.data.utf8.contains(0x0D), "CR in data \(event.data.debugDescription)")
        require(
            !(event.id ?? "").utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }),
            "id \(String(describing: event.id))")
        require((event.retry ?? 0) >= 0, "retry \(String(describing: event.retry))")
    }

    // One byte at a time.
    var single = EventStreamParser(dispatchesUnterminatedEvent: unterminated)
    var singleEvents: [ServerSentEvent] = []
    for byte in bytes { singleEvents += single.parse(CollectionOfOne(byte)) }
    singleEvents += single.finish()
    requireSame(singleEvents, single, expected, "byte by byte")

    // In two, at a byte the fuzzer chose.
    let split = bytes.isEmpty ? 0 : Int(splitByte) * 4 % (bytes.count + 1)
    var two = EventStreamParser(dispatchesUnterminatedEvent: unterminated)
    let twoEvents = two.parse(bytes[..<split]) + two.parse(bytes[split...]) + two.finish()
    requireSame(twoEvents, two, expected, "split at \(split)")

    // In the fuzzer's chunks through the pipeline's decoder, checking the events after one of
    // the first chunks; then again as a reconnection: the parser after `finish()` keeps the last
    // event ID and the reconnection time.
    let chunkSizes = sizes.contains(where: { $0 > 0 }) ? sizes : sizes + [7]  // some chunk must hold a byte
    var parser = EventStreamParser(dispatchesUnterminatedEvent: unterminated)
    let events = chunked(bytes, sizes: chunkSizes, parser: parser, checkedStep: Int(flags >> 1) % 16 + 1)
    require(
        same(events, expected.events),
        "chunks \(chunkSizes): \(describe(events)), expected \(describe(expected.events))")
    // The decoder worked on its own copy; bring this one to the same state.
    _ = parser.parse(bytes)
    _ = parser.finish()
    let again = reference(
        bytes, unterminated: unterminated, lastEventID: expected.lastEventID,
        reconnectionTime: expected.reconnectionTime)
    let second = chunked(bytes, sizes: chunkSizes.reversed(), parser: parser)
    require(same(second, again.events), "reconnection: \(describe(second)), expected \(describe(again.events))")
    return 0
}

/// The executable's entry point (see FuzzDriver.h).
@_cdecl("FuzzSSE_main")
func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    endpoints_fuzz_main(argc, argv)
}
