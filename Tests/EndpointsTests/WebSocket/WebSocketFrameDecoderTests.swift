import Foundation
import Testing

@testable import Endpoints

/// The server's frames read back: RFC 6455 §5.7's examples, fragmented messages with control
/// frames between the fragments, the length forms at their edges, close frames, and the same
/// events at every split of the bytes.
@Suite struct WebSocketFrameDecoderTests {
    private typealias Frames = WebSocketFrames
    private typealias Step = WebSocketFrameDecoder.Step

    private func text(_ text: String) -> WebSocketFrameDecoder.Event { .message(.text(text)) }

    @Test func rfcExamples() {
        // A single-frame unmasked text message.
        #expect(Frames.decodeAtEverySplit([0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]) == Step(events: [text("Hello")]))
        // A fragmented unmasked text message.
        #expect(
            Frames.decodeAtEverySplit([0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F])
                == Step(events: [text("Hello")]))
        // An unmasked ping, and an unmasked pong as a server could send it.
        #expect(
            Frames.decodeAtEverySplit([0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
                == Step(events: [.ping(Data("Hello".utf8))]))
        #expect(Frames.decodeAtEverySplit([0x8A, 0x00]) == Step(events: [.pong(Data())]))
        // 256 bytes and 64 KiB of binary in one unmasked frame.
        let bytes256 = (0..<256).map { UInt8($0) }
        #expect(
            Frames.decode([0x82, 0x7E, 0x01, 0x00] + bytes256) == Step(events: [.message(.binary(Data(bytes256)))]))
        let bytes64K = (0..<65536).map { UInt8(($0 * 13) % 256) }
        let frame64K = [0x82, 0x7F, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00] + bytes64K
        let expected64K = Step(events: [.message(.binary(Data(bytes64K)))])
        let limits = WebSocketFrameDecoder.Limits(maximumFrameSize: 65536, maximumMessageSize: 65536)
        for cut in [0, 1, 2, 5, 9, 10, 11, 30_000, 65545, 65546] {
            #expect(Frames.decode(frame64K, cuts: [cut], limits: limits) == expected64K)
        }
    }

    /// A message split into many fragments, with pings and a pong between them, comes out whole,
    /// after the control frames that arrived before its last fragment.
    @Test func controlFramesBetweenFragments() {
        let stream =
            Frames.server(.binary, fin: false, [1, 2]) + Frames.server(.ping, "p1")
            + Frames.server(.continuation, fin: false, []) + Frames.server(.pong, [])
            + Frames.server(.continuation, fin: false, [3]) + Frames.server(.ping, [])
            + Frames.server(.continuation, [4, 5]) + Frames.server(.text, "after")
        #expect(
            Frames.decodeAtEverySplit(stream)
                == Step(events: [
                    .ping(Data("p1".utf8)), .pong(Data()), .ping(Data()), .message(.binary(Data([1, 2, 3, 4, 5]))),
                    text("after"),
                ]))
    }

    /// Empty messages, an empty first fragment, and an empty last one.
    @Test func emptyFramesAndMessages() {
        let stream =
            Frames.server(.text, "") + Frames.server(.binary, []) + Frames.server(.text, fin: false, "")
            + Frames.server(.continuation, "x") + Frames.server(.binary, fin: false, [9])
            + Frames.server(.continuation, [])
        #expect(
            Frames.decodeAtEverySplit(stream)
                == Step(events: [text(""), .message(.binary(Data())), text("x"), .message(.binary(Data([9])))]))
    }

    /// Payloads at the edges of the length forms, in one frame and in fragments, text and binary,
    /// cut around the header and inside the payload.
    @Test(arguments: [125, 126, 127, 65535, 65536])
    func lengthBoundaries(_ count: Int) {
        let text = String(repeating: "é", count: count / 2) + (count % 2 == 1 ? "a" : "")
        let binary = Data((0..<count).map { UInt8(truncatingIfNeeded: $0) })
        let whole = Frames.server(.text, text) + Frames.server(.binary, binary)
        let expected = Step(events: [.message(.text(text)), .message(.binary(binary))])
        let headerSize = count < 126 ? 2 : count <= 0xFFFF ? 4 : 10
        for cut in [0, 1, headerSize - 1, headerSize, headerSize + 1, headerSize + count / 2, headerSize + count] {
            #expect(Frames.decode(whole, cuts: [cut]) == expected)
        }
        // One byte of text per fragment (cutting every "é" in two), then binary in halves.
        let half = count / 2
        let fragmented =
            Frames.server(.text, fin: false, Array(text.utf8.prefix(1)))
            + Frames.server(.continuation, Array(text.utf8.dropFirst()))
            + Frames.server(.binary, fin: false, binary.prefix(half))
            + Frames.server(.continuation, binary.dropFirst(half))
        #expect(Frames.decode(fragmented, cuts: [1, 3, 5, 7]) == expected)
    }

    /// A text message whose fragments each end inside a code point is accepted.
    @Test func codePointsSplitAcrossFragments() {
        let bytes = Array("€😀ü".utf8)  // 3 + 4 + 2
        var stream = Frames.server(.text, fin: false, bytes[0..<1])
        for range in [1..<2, 2..<5, 5..<8] { stream += Frames.server(.continuation, fin: false, bytes[range]) }
        stream += Frames.server(.continuation, bytes[8...])
        #expect(Frames.decodeAtEverySplit(stream) == Step(events: [text("€😀ü")]))
    }

    @Test func closeFrames() {
        #expect(Frames.decodeAtEverySplit(Frames.server(.close, [])) == Step(events: [.close(code: nil, reason: "")]))
        #expect(
            Frames.decodeAtEverySplit(Frames.server(.close, Frames.closePayload(1000)))
                == Step(events: [.close(code: .normalClosure, reason: "")]))
        #expect(
            Frames.decodeAtEverySplit(Frames.server(.close, Frames.closePayload(4999, Array("fin ✓".utf8))))
                == Step(events: [.close(code: WebSocketCloseCode(rawValue: 4999), reason: "fin ✓")]))
        for code: UInt16 in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000] {
            #expect(
                Frames.decode(Frames.server(.close, Frames.closePayload(code)))
                    == Step(events: [.close(code: WebSocketCloseCode(rawValue: code), reason: "")]))
        }
        // A reason of the full 123 bytes.
        let reason = String(repeating: "r", count: 123)
        #expect(
            Frames.decode(Frames.server(.close, Frames.closePayload(1001, Array(reason.utf8))))
                == Step(events: [.close(code: .goingAway, reason: reason)]))
    }

    /// After the close frame, nothing is decoded: what follows, even a fault, is ignored. A close
    /// in the middle of a fragmented message ends it without delivering it.
    @Test func nothingAfterTheCloseFrame() {
        let stream =
            Frames.server(.text, fin: false, "unfinished") + Frames.server(.close, Frames.closePayload(1000))
            + Frames.server(.text, "late") + [0xFF, 0xFF]
        #expect(Frames.decodeAtEverySplit(stream) == Step(events: [.close(code: .normalClosure, reason: "")]))
        var decoder = WebSocketFrameDecoder()
        _ = decoder.feed(stream)
        #expect(decoder.isClosed)
        #expect(decoder.feed(Frames.server(.text, "more")) == Step())
    }

    /// Events completed before a fault come out with it, in the same step.
    @Test func eventsBeforeAFaultAreKept() {
        let stream = Frames.server(.text, "ok") + Frames.server(.ping, "p") + [0x83, 0x00]
        #expect(
            Frames.decodeAtEverySplit(stream)
                == Step(events: [text("ok"), .ping(Data("p".utf8))], failure: .unknownOpcode(3)))
    }

    /// Lengths written in a longer form than needed are read as what they say.
    @Test func nonMinimalLengthsAreAccepted() {
        let stream = [0x81, 0x7E, 0x00, 0x02] + Array("hi".utf8) + [0x82, 0x7F, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x07]
        #expect(Frames.decodeAtEverySplit(stream) == Step(events: [text("hi"), .message(.binary(Data([7])))]))
    }

    /// Many messages in one piece, and a long stream fed in pieces of every size up to 17 bytes.
    @Test func manyMessagesInPiecesOfEverySize() {
        var stream: [UInt8] = []
        var expected: [WebSocketFrameDecoder.Event] = []
        for index in 0..<60 {
            let body = String(repeating: "ß\(index)", count: index % 7)
            stream += Frames.server(.text, body)
            expected.append(text(body))
            if index % 5 == 0 {
                stream += Frames.server(.ping, [UInt8(index)])
                expected.append(.ping(Data([UInt8(index)])))
            }
        }
        for size in 1...17 {
            let cuts = Array(stride(from: size, to: stream.count, by: size))
            #expect(Frames.decode(stream, cuts: cuts) == Step(events: expected))
        }
    }
}
