import Endpoints
import Foundation
import Testing

@Suite struct NDJSONSplitterTests {
    private func lines(_ text: String) -> [String] {
        var splitter = NDJSONSplitter()
        return (splitter.parse(Array(text.utf8)) + splitter.finish()).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func linesEndWithLFOrCRLF() {
        #expect(lines("{\"a\":1}\n{\"b\":2}\r\n[3]\n") == ["{\"a\":1}", "{\"b\":2}", "[3]"])
    }

    @Test func blankLinesAreSkipped() {
        #expect(lines("\n\n1\n \t \r\n\r\n2\n\n") == ["1", "2"])
    }

    @Test func theLastLineNeedsNoNewline() {
        #expect(lines("1\n2") == ["1", "2"])
        #expect(lines("1\n  ") == ["1"])
        #expect(lines("").isEmpty)
    }

    @Test func aLineIsReturnedOnlyWhenItsNewlineArrives() {
        var splitter = NDJSONSplitter()
        #expect(splitter.parse(Array("{\"a\":".utf8)).isEmpty)
        #expect(splitter.parse(Array("1}\r".utf8)).isEmpty)
        #expect(splitter.parse(Array("\n".utf8)) == [Data("{\"a\":1}".utf8)])
        #expect(splitter.finish().isEmpty)
    }

    @Test func aSequenceWithoutContiguousStorageGivesTheSameLines() {
        var splitter = NDJSONSplitter()
        var parsed = splitter.parse("{\"a\":1}\r\n\n{\"b\"".utf8.lazy.map { $0 })
        parsed += splitter.parse(":2}\n3".utf8.lazy.map { $0 }) + splitter.finish()
        #expect(parsed.map { String(decoding: $0, as: UTF8.self) } == ["{\"a\":1}", "{\"b\":2}", "3"])
    }

    @Test func splittingAtEveryByteGivesTheSameLines() {
        let bytes = Array("{\"name\":\"日本語\"}\r\n\n{\"emoji\":\"🎉\"}\n  \n{\"é\":1}".utf8)
        var whole = NDJSONSplitter()
        let expected = whole.parse(bytes) + whole.finish()
        #expect(expected.count == 3)
        for split in 0...bytes.count {
            var splitter = NDJSONSplitter()
            let parsed = splitter.parse(bytes[..<split]) + splitter.parse(bytes[split...]) + splitter.finish()
            #expect(parsed == expected, "split at \(split)")
        }
    }

    /// A line that passes the limit before its newline stops the splitter, which keeps its start
    /// for the error and nothing more: the memory a server can fill is bounded.
    @Test func aLinePastTheLimitStopsTheSplitter() {
        var splitter = NDJSONSplitter(maximumSize: 8)
        #expect(splitter.parse(Array("{\"a\":1}\n{\"b\":".utf8)) == [Data("{\"a\":1}".utf8)])
        #expect(splitter.oversized == nil)
        #expect(splitter.parse(Array("22222".utf8)).isEmpty)
        #expect(splitter.oversized == Data("{\"b\":22222".utf8))
        #expect(splitter.parse(Array("}\n{\"c\":3}\n".utf8)).isEmpty)
        #expect(splitter.finish().isEmpty)
        #expect(splitter.oversized == nil)
        #expect(NDJSONSplitter().maximumSize == 16 << 20)
    }
}
