// The JSON-lines splitter: the same bytes give the same lines however they are split, fed whole, in
// fuzzer-chosen chunks (as `Data` slices), one byte at a time, and split in two at a fuzzer-chosen
// byte; each line comes out as soon as its LF has arrived (checked after one of the first chunks);
// and the lines are exactly those of a reference (split at LF, one CR before it dropped, blank
// lines skipped). And values written by `JSONEncoder`, one a line with LF or CRLF and blank lines
// between, read back exactly through the pipeline's decoder, whatever the chunks.
import Foundation
import FuzzDriver
import FuzzSupport

@testable import Endpoints

/// The lines of `bytes`, written from the splitter's documentation: split at every LF, a CR at
/// the end of a line dropped, lines of only spaces and tabs skipped; the last line, after the
/// last LF, only when `includingLast` (the end of the stream).
func reference(_ bytes: ArraySlice<UInt8>, includingLast: Bool = true) -> [Data] {
    var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
    if !includingLast { lines.removeLast() }
    return lines.map { $0.last == 0x0D ? Data($0.dropLast()) : Data($0) }
        .filter { !$0.allSatisfy { $0 == 0x20 || $0 == 0x09 } }
}

func describe(_ lines: [Data]) -> String {
    lines.map { String(decoding: $0, as: UTF8.self).debugDescription }.joined(separator: ", ")
}

/// Feeds `bytes` in chunks of the sizes in `sizes` (repeated; 0 is an empty chunk) as `Data`
/// slices, through `feed`, calling `check` with what came out after chunk number `checkedStep`.
func chunked<Element>(
    _ bytes: [UInt8], sizes: [Int], checkedStep: Int = 0, check: (([Element], Int) -> Void)? = nil,
    feed: (Data) -> [Element],
    finish: () -> [Element]
) -> [Element] {
    let data = Data(bytes)
    var elements: [Element] = []
    var offset = 0
    var step = 0
    while offset < bytes.count || step == 0 {
        let end = min(bytes.count, offset + sizes[step % sizes.count])
        elements += feed(data[offset..<end])
        offset = end
        step += 1
        if step == checkedStep { check?(elements, end) }
    }
    return elements + finish()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let flags = input.byte()
    let splitByte = input.byte()
    let sizes = input.chunk().map { Int($0 % 64) }
    let chunkSizes = sizes.contains(where: { $0 > 0 }) ? sizes : sizes + [7]  // some chunk must hold a byte
    let bytes = input.rest()

    // Arbitrary bytes.
    let expected = reference(bytes[...])
    for line in expected {
        require(!line.contains(0x0A), "LF in \(describe([line]))")
        require(line.contains(where: { $0 != 0x20 && $0 != 0x09 }), "blank line \(describe([line]))")
    }
    var whole = NDJSONSplitter()
    let wholeLines = whole.parse(bytes) + whole.finish()
    require(wholeLines == expected, "whole: \(describe(wholeLines)), expected \(describe(expected))")

    var single = NDJSONSplitter()
    var singleLines: [Data] = []
    for byte in bytes { singleLines += single.parse(CollectionOfOne(byte)) }
    singleLines += single.finish()
    require(singleLines == expected, "byte by byte: \(describe(singleLines))")

    let split = bytes.isEmpty ? 0 : Int(splitByte) * 4 % (bytes.count + 1)
    var two = NDJSONSplitter()
    let twoLines = two.parse(bytes[..<split]) + two.parse(bytes[split...]) + two.finish()
    require(twoLines == expected, "split at \(split): \(describe(twoLines))")

    var splitter = NDJSONSplitter()
    let lines = chunked(
        bytes, sizes: chunkSizes, checkedStep: Int(flags >> 4) + 1,
        check: { (lines: [Data], end: Int) in
            let prefix = reference(bytes[..<end], includingLast: false)
            require(lines == prefix, "after \(end) bytes: \(describe(lines)), expected \(describe(prefix))")
        },
        feed: { splitter.parse($0) }, finish: { splitter.finish() })
    require(lines == expected, "chunks \(chunkSizes): \(describe(lines))")

    // Values written by JSONEncoder: each LF-separated piece of the input (up to 16) as a string, each
    // written on its own line (or as `{"v": …}` with spaces around), with LF, CRLF and blank
    // lines between as the flags say, read through the pipeline's JSON-lines decoder.
    let values = bytes.split(separator: 0x0A, maxSplits: 15, omittingEmptySubsequences: false)
        .map { String(decoding: $0, as: UTF8.self) }
    let encoder = JSONEncoder()
    let wrapped = flags & 1 != 0
    let separators = ["\n", "\r\n", "\n\n", "\r\n \t\r\n"]
    var stream: [UInt8] = []
    for (index, value) in values.enumerated() {
        let json = wrapped ? try! encoder.encode(["v": value]) : try! encoder.encode(value)
        if wrapped { stream += Array(" \t".utf8) }
        stream += json
        if wrapped { stream += Array("  ".utf8) }
        if index < values.count - 1 || flags & 2 != 0 {
            stream += Array(separators[Int(flags >> 2 &+ UInt8(truncatingIfNeeded: index)) % separators.count].utf8)
        }
    }
    let jsonDecoder = JSONDecoder()
    let decoder = StreamDecoder<String>.jsonLines { line in
        wrapped
            ? try jsonDecoder.decode([String: String].self, from: line)["v"]!
            : try jsonDecoder.decode(String.self, from: line)
    }
    func delivered(_ step: StreamDecoder<String>.Step) -> [String] {
        if let failure = step.failure {
            require(
                false,
                "\(String(decoding: failure.data, as: UTF8.self).debugDescription) did not decode: \(failure.error)")
        }
        return step.values
    }
    let decoded = chunked(
        stream, sizes: chunkSizes, feed: { delivered(decoder.feed($0)) }, finish: { delivered(decoder.finish()) })
    require(decoded.count == values.count, "\(decoded.count) values read, \(values.count) written")
    for (read, written) in zip(decoded, values) {
        require(identical(read, written), "\(written.debugDescription) read as \(read.debugDescription)")
    }
    return 0
}

/// The executable's entry point (see FuzzDriver.h).
@_cdecl("FuzzJSONLines_main")
func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    endpoints_fuzz_main(argc, argv)
}
