import Foundation
import Testing

@testable import Endpoints

/// The WHATWG event-stream rules, one at a time, and the same input split at every byte.
@Suite struct EventStreamParserTests {
    /// Every event of `text`, read in one piece and then finished.
    private func events(_ text: String, unterminated: Bool = false) -> [ServerSentEvent] {
        events(Array(text.utf8), unterminated: unterminated)
    }

    private func events(_ bytes: [UInt8], unterminated: Bool = false) -> [ServerSentEvent] {
        var parser = EventStreamParser(dispatchesUnterminatedEvent: unterminated)
        return parser.parse(bytes) + parser.finish()
    }

    @Test func dataLinesAreJoinedWithNewlines() {
        #expect(events("data: one\ndata: two\ndata\ndata:three\n\n") == [ServerSentEvent(data: "one\ntwo\n\nthree")])
    }

    @Test func onlyOneSpaceAfterTheColonIsRemoved() {
        #expect(events("data:  two spaces \n\n") == [ServerSentEvent(data: " two spaces ")])
        #expect(events("data:\tx\n\n") == [ServerSentEvent(data: "\tx")])
    }

    @Test func eventSetsTheTypeForOneEventOnly() {
        let parsed = events("event: add\ndata: 1\n\ndata: 2\n\nevent:\ndata: 3\n\n")
        #expect(parsed.map(\.type) == ["add", "message", "message"])
    }

    @Test func anEventWithoutDataIsNotDispatched() {
        #expect(events("event: ping\n\n: just a comment\n\nid: 5\n\n").isEmpty)
        // An empty data line is data.
        #expect(events("data\n\n") == [ServerSentEvent(data: "")])
        #expect(events("data:\n\n") == [ServerSentEvent(data: "")])
    }

    @Test func idCarriesOverAndAnEmptyIdClearsIt() {
        let parsed = events("id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: 7\n\ndata: d\n\n")
        #expect(parsed.map(\.id) == ["1", "1", nil, "7"])
    }

    @Test func anIdContainingNULIsIgnored() {
        var parser = EventStreamParser()
        let parsed = parser.parse(Array("id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\n".utf8))
        #expect(parsed.map(\.id) == ["1", "1"])
        #expect(parser.lastEventID == "1")
    }

    @Test func retryTakesDigitsOnly() {
        var parser = EventStreamParser()
        let parsed = parser.parse(
            Array("retry: 1500\ndata: a\n\nretry: 2s\ndata: b\n\nretry: -1\nretry:\nretry: 1 0\n\n".utf8))
        #expect(parsed.map(\.retry) == [1500, nil])
        #expect(parser.reconnectionTime == 1500)
        _ = parser.parse(Array("retry: 99999999999999999999999999\n".utf8))
        #expect(parser.reconnectionTime == Int.max)
    }

    @Test func commentsAndUnknownFieldsAreIgnored() {
        #expect(events(":comment\ndata: x\n: another\nfoo: bar\nDATA: no\n\n") == [ServerSentEvent(data: "x")])
    }

    @Test func aLineWithoutAColonIsAFieldWithAnEmptyValue() {
        #expect(events("data\ndata\n\n") == [ServerSentEvent(data: "\n")])
        #expect(events("event\ndata: x\n\n").map(\.type) == ["message"])
    }

    @Test(arguments: ["\n", "\r", "\r\n"])
    func everyLineEndWorks(_ end: String) {
        let text = ["event: e", "data: a", "data: b", "", "data: c", "", ""].joined(separator: end)
        #expect(events(text) == [ServerSentEvent(type: "e", data: "a\nb"), ServerSentEvent(data: "c")])
    }

    @Test func mixedLineEndsAndCRBeforeLFAcrossChunks() {
        var parser = EventStreamParser()
        var parsed = parser.parse(Array("data: a\r".utf8))
        parsed += parser.parse(Array("\ndata: b\r".utf8))
        parsed += parser.parse(Array("\r\n".utf8))
        // "a\r" + "\n" is one line end; "b\r" + "\r\n" is a line end then a blank line.
        #expect(parsed == [ServerSentEvent(data: "a\nb")])
        // CR CR is two line ends.
        #expect(events("data: x\r\r") == [ServerSentEvent(data: "x")])
    }

    @Test func aLeadingByteOrderMarkIsSkippedOnce() {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(events(bom + Array("data: x\n\n".utf8)) == [ServerSentEvent(data: "x")])
        // Only at the very start; a second one is part of the field name, so the line is ignored.
        #expect(events(bom + bom + Array("data: x\n\n".utf8)).isEmpty)
        var parser = EventStreamParser()
        var parsed = parser.parse([0xEF])
        parsed += parser.parse([0xBB])
        parsed += parser.parse([0xBF] + Array("data: y\n\n".utf8))
        #expect(parsed == [ServerSentEvent(data: "y")])
    }

    @Test func theEndOfTheStreamDiscardsAnUnterminatedEvent() {
        #expect(events("data: a\n\ndata: b\n") == [ServerSentEvent(data: "a")])
        #expect(events("data: a\n\ndata: b") == [ServerSentEvent(data: "a")])
    }

    @Test func theParserCanDispatchAnUnterminatedEventAtTheEnd() {
        #expect(events("data: a\n\ndata: b\n", unterminated: true).map(\.data) == ["a", "b"])
        #expect(events("id: 3\ndata: b", unterminated: true) == [ServerSentEvent(data: "b", id: "3")])
        #expect(events("data: a\n\n", unterminated: true).map(\.data) == ["a"])
    }

    @Test func finishStartsANewStreamAndKeepsTheLastEventID() {
        var parser = EventStreamParser()
        _ = parser.parse(Array("id: 9\nretry: 10\ndata: a\n\ndata: half".utf8))
        #expect(parser.finish().isEmpty)
        #expect(parser.lastEventID == "9")
        #expect(parser.reconnectionTime == 10)
        let again = parser.parse([0xEF, 0xBB, 0xBF] + Array("data: b\n\n".utf8))
        #expect(again == [ServerSentEvent(data: "b", id: "9")])
    }

    @Test func invalidUTF8BecomesReplacementCharacters() {
        let parsed = events(Array("data: a".utf8) + [0xFF, 0xC3] + Array("\n\n".utf8))
        #expect(parsed == [ServerSentEvent(data: "a\u{FFFD}\u{FFFD}")])
    }

    /// The spec's own examples, from "Interpreting an event stream".
    @Test func theStandardsExamples() {
        let first = events("data: YHOO\ndata: +2\ndata: 10\n\n")
        #expect(first == [ServerSentEvent(data: "YHOO\n+2\n10")])
        let second = events(
            ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n")
        #expect(second == [ServerSentEvent(data: "first event", id: "1"), ServerSentEvent(data: "second event")])
        let third = events("data\n\ndata\ndata\n\ndata:")
        #expect(third == [ServerSentEvent(data: ""), ServerSentEvent(data: "\n")])
        let fourth = events("data:test\n\ndata: test\n\n")
        #expect(fourth == [ServerSentEvent(data: "test"), ServerSentEvent(data: "test")])
    }

    /// A sequence without contiguous storage is read like the same bytes in an array.
    @Test func aSequenceWithoutContiguousStorageGivesTheSameEvents() {
        let text = "\u{FEFF}data: a\r\ndata: b\r\n\r\nid: 1\nevent: e\ndata: c\r"
        var parser = EventStreamParser()
        var parsed = parser.parse(text.utf8.lazy.map { $0 })
        parsed += parser.parse("\n\r\n".utf8.lazy.map { $0 }) + parser.finish()
        #expect(parsed == events(text + "\n\r\n"))
        #expect(parsed.count == 2)
    }

    /// One input with every rule, BOM and multi-byte characters, split in two at every byte and
    /// fed one byte at a time: always the same events.
    @Test func splittingAtEveryByteGivesTheSameEvents() {
        let text =
            "\u{FEFF}: comment\r\nevent: größe\r\ndata: 日本語 ✓\rdata:𝄞 emoji 🎉\n\nid: 4\nretry: 250\n"
            + "data\r\n\r\nevent:x\ndata: é\r\r:tail\ndata: last\n\n"
        let bytes = Array(text.utf8)
        let whole = events(bytes)
        #expect(whole.count == 4)
        #expect(whole.first?.type == "größe")
        #expect(whole.first?.data == "日本語 ✓\n𝄞 emoji 🎉")
        for split in 0...bytes.count {
            var parser = EventStreamParser()
            let parsed = parser.parse(bytes[..<split]) + parser.parse(bytes[split...]) + parser.finish()
            #expect(parsed == whole, "split at \(split)")
        }
        var parser = EventStreamParser()
        var oneByOne: [ServerSentEvent] = []
        for byte in bytes { oneByOne += parser.parse([byte]) }
        #expect(oneByOne + parser.finish() == whole)
    }

    /// An event that passes the limit, in one unfinished line or in its data lines together,
    /// stops the parser, which keeps its start for the error and nothing more.
    @Test func anEventPastTheLimitStopsTheParser() {
        var endless = EventStreamParser(maximumSize: 12)
        #expect(endless.parse(Array("data: 1\n\ndata: 1234".utf8)) == [ServerSentEvent(data: "1")])
        #expect(endless.oversized == nil)
        #expect(endless.parse(Array("5678".utf8)).isEmpty)
        #expect(endless.oversized == Data("data: 12345678".utf8))
        #expect(endless.parse(Array("\n\ndata: 2\n\n".utf8)).isEmpty)

        var unended = EventStreamParser(maximumSize: 8)
        #expect(unended.parse(Array("data: 12345\ndata: 678\n".utf8)).isEmpty)
        #expect(unended.oversized == Data("12345\n678".utf8))
        #expect(unended.finish().isEmpty)
        #expect(unended.oversized == nil)
        #expect(EventStreamParser().maximumSize == 16 << 20)
    }
}
