import Foundation
import Testing

@testable import Endpoints

/// Every fault a hostile server can commit in its frames, each a typed error with the close code
/// the client must send, found at the same byte however the stream is split, after the events
/// that came before it.
@Suite struct WebSocketFrameDecoderHostileTests {
    private typealias Frames = WebSocketFrames
    private typealias Step = WebSocketFrameDecoder.Step

    /// A text message and a ping, so each fault is found after events that stand.
    private let prelude = Frames.server(.text, "ok") + Frames.server(.ping, "p")
    private let preludeEvents: [WebSocketFrameDecoder.Event] = [.message(.text("ok")), .ping(Data("p".utf8))]

    /// Checks that `bytes`, after the prelude and followed by a valid frame, fail with `failure`
    /// (at every split) after the prelude's events and `events`, and that the failure asks for
    /// `closeCode`.
    private func expectFailure(
        _ bytes: [UInt8], _ failure: WebSocketProtocolError, closeCode: WebSocketCloseCode,
        after events: [WebSocketFrameDecoder.Event] = [], limits: WebSocketFrameDecoder.Limits = .default,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let stream = prelude + bytes + Frames.server(.text, "never")
        #expect(
            Frames.decodeAtEverySplit(stream, limits: limits, sourceLocation: sourceLocation)
                == Step(events: preludeEvents + events, failure: failure), sourceLocation: sourceLocation)
        #expect(failure.closeCode == closeCode, sourceLocation: sourceLocation)
    }

    @Test func aMaskedFrame() {
        expectFailure([0x81, 0x82, 1, 2, 3, 4, 0x69, 0x6B], .maskedFrame, closeCode: .protocolError)
        expectFailure([0x89, 0x80, 1, 2, 3, 4], .maskedFrame, closeCode: .protocolError)
    }

    @Test(arguments: [0x40, 0x20, 0x10, 0x70] as [UInt8])
    func reservedBits(_ bits: UInt8) {
        expectFailure(
            Frames.server(.text, reservedBits: bits, Array("x".utf8)), .reservedBitsSet(bits), closeCode: .protocolError
        )
        expectFailure(Frames.server(.ping, reservedBits: bits, []), .reservedBitsSet(bits), closeCode: .protocolError)
    }

    @Test(arguments: [3, 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF] as [UInt8])
    func unknownOpcodes(_ opcode: UInt8) {
        expectFailure([0x80 | opcode, 0x00], .unknownOpcode(opcode), closeCode: .protocolError)
        // Also as a frame without FIN, and in the middle of a fragmented message.
        expectFailure([opcode, 0x01, 0x61], .unknownOpcode(opcode), closeCode: .protocolError)
        expectFailure(
            Frames.server(.text, fin: false, "a") + [0x80 | opcode, 0x00], .unknownOpcode(opcode),
            closeCode: .protocolError)
    }

    @Test(arguments: [WebSocketOpcode.ping, .pong, .close])
    func controlFramesOver125Bytes(_ opcode: WebSocketOpcode) {
        expectFailure(
            Frames.server(opcode, [UInt8](repeating: 0x61, count: 126)), .controlFrameTooLong(opcode),
            closeCode: .protocolError)
        // A 64-bit length, refused before its extended length arrives.
        expectFailure([0x80 | opcode.rawValue, 127, 0, 0], .controlFrameTooLong(opcode), closeCode: .protocolError)
        // 125 bytes are allowed.
        let payload =
            opcode == .close
            ? Frames.closePayload(1000, [UInt8](repeating: 0x61, count: 123)) : [UInt8](repeating: 0x61, count: 125)
        #expect(Frames.decode(Frames.server(opcode, payload)).failure == nil)
    }

    @Test(arguments: [WebSocketOpcode.ping, .pong, .close])
    func fragmentedControlFrames(_ opcode: WebSocketOpcode) {
        expectFailure(
            Frames.server(opcode, fin: false, "a"), .fragmentedControlFrame(opcode), closeCode: .protocolError)
    }

    @Test func aContinuationWithoutAStart() {
        expectFailure(Frames.server(.continuation, "x"), .continuationWithoutStart, closeCode: .protocolError)
        expectFailure(
            Frames.server(.continuation, fin: false, "x"), .continuationWithoutStart, closeCode: .protocolError)
        // After a message that ended.
        expectFailure(
            Frames.server(.text, fin: false, "a") + Frames.server(.continuation, "b")
                + Frames.server(.continuation, "c"),
            .continuationWithoutStart, closeCode: .protocolError, after: [.message(.text("ab"))])
    }

    @Test(arguments: [WebSocketOpcode.text, .binary])
    func aNewMessageWhileOneIsInProgress(_ opcode: WebSocketOpcode) {
        expectFailure(
            Frames.server(.binary, fin: false, [1]) + Frames.server(opcode, [2]), .messageNotFinished(opcode),
            closeCode: .protocolError)
        expectFailure(
            Frames.server(.text, fin: false, "a") + Frames.server(.ping, []) + Frames.server(opcode, fin: false, [2]),
            .messageNotFinished(opcode), closeCode: .protocolError, after: [.ping(Data())])
    }

    /// Invalid UTF-8 fails at the byte that decides, even in the middle of a frame whose rest has
    /// not arrived, and in a later fragment; a message that ends inside a code point fails at its end.
    @Test(
        arguments: [
            [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF], [0x80],
            [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80, 0x65, 0x64],
        ] as [[UInt8]])
    func invalidUTF8InText(_ bad: [UInt8]) {
        expectFailure(Frames.server(.text, Array("ab".utf8) + bad), .invalidUTF8InText, closeCode: .invalidPayloadData)
        expectFailure(
            Frames.server(.text, fin: false, "ab") + Frames.server(.ping, [])
                + Frames.server(.continuation, bad + [0x61]),
            .invalidUTF8InText, closeCode: .invalidPayloadData, after: [.ping(Data())])
        // Found before the rest of the frame arrives.
        var decoder = WebSocketFrameDecoder()
        let frame = Frames.server(.text, bad + [UInt8](repeating: 0x61, count: 1000))
        let headerSize = 4
        #expect(decoder.feed(frame.prefix(headerSize + bad.count)).failure == .invalidUTF8InText)
    }

    @Test func textEndingInsideACodePoint() {
        expectFailure(Frames.server(.text, [0x61, 0xE2, 0x82]), .invalidUTF8InText, closeCode: .invalidPayloadData)
        expectFailure(
            Frames.server(.text, fin: false, [0xF0, 0x9F]) + Frames.server(.continuation, [0x98]), .invalidUTF8InText,
            closeCode: .invalidPayloadData)
        // Binary is not checked.
        #expect(Frames.decode(Frames.server(.binary, [0xFF, 0xC0])).failure == nil)
    }

    @Test func aCloseFrameOfOneByte() {
        expectFailure(Frames.server(.close, [0x03]), .closeFrameTooShort, closeCode: .protocolError)
    }

    @Test(arguments: [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] as [UInt16])
    func closeCodesNotAllowedOnTheWire(_ code: UInt16) {
        expectFailure(
            Frames.server(.close, Frames.closePayload(code)), .invalidCloseCode(WebSocketCloseCode(rawValue: code)),
            closeCode: .protocolError)
    }

    @Test(arguments: [[0xFF], [0xED, 0xA0, 0x80], [0x61, 0xE2, 0x82]] as [[UInt8]])
    func aCloseReasonThatIsNotUTF8(_ reason: [UInt8]) {
        expectFailure(
            Frames.server(.close, Frames.closePayload(1000, reason)), .invalidUTF8InCloseReason,
            closeCode: .invalidPayloadData)
    }

    /// 2⁶³ and more: refused at the length's first byte.
    @Test(arguments: [0x80, 0xFF] as [UInt8])
    func aLengthWithTheTopBitSet(_ top: UInt8) {
        expectFailure([0x82, 0x7F, top, 0, 0, 0, 0, 0, 0, 0], .lengthOutOfRange, closeCode: .protocolError)
    }

    /// Over a limit: refused from the header, before any payload is kept.
    @Test func framesAndMessagesOverTheLimits() {
        let limits = WebSocketFrameDecoder.Limits(maximumFrameSize: 100, maximumMessageSize: 250)
        expectFailure(
            Frames.server(.binary, [UInt8](repeating: 0, count: 101)), .frameTooLarge(length: 101, limit: 100),
            closeCode: .messageTooBig, limits: limits)
        // 2⁶³ - 1: the largest legal length.
        expectFailure(
            [0x82, 0x7F, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
            .frameTooLarge(length: UInt64(Int64.max), limit: 100), closeCode: .messageTooBig, limits: limits)
        let fragment = [UInt8](repeating: 0x61, count: 100)
        expectFailure(
            Frames.server(.text, fin: false, fragment) + Frames.server(.continuation, fin: false, fragment)
                + Frames.server(.continuation, fragment.prefix(51)),
            .messageTooLarge(length: 251, limit: 250), closeCode: .messageTooBig, limits: limits)
        // Exactly at the limits is fine; control frames count against neither.
        let exact =
            Frames.server(.binary, fin: false, fragment) + Frames.server(.ping, fragment)
            + Frames.server(.continuation, fin: false, fragment) + Frames.server(.continuation, fragment.prefix(50))
        #expect(
            Frames.decode(exact, limits: limits)
                == Step(events: [
                    .ping(Data(fragment)), .message(.binary(Data(fragment + fragment + fragment.prefix(50)))),
                ]))
    }

    /// The limit is checked from the header: a decoder fed only a header announcing 1 GiB fails at
    /// once, and a decoder that accepted a frame keeps no more of it than arrived.
    @Test func aHugeFrameIsRefusedFromItsHeader() {
        var decoder = WebSocketFrameDecoder()
        #expect(
            decoder.feed([0x82, 0x7F, 0, 0, 0, 0, 0x40, 0, 0, 0]).failure
                == .frameTooLarge(length: 1 << 30, limit: 1 << 20))
        var accepting = WebSocketFrameDecoder()
        #expect(accepting.feed([0x82, 0x7F, 0, 0, 0, 0, 0, 0x10, 0, 0] + [UInt8](repeating: 1, count: 10)) == Step())
        #expect(accepting.message?.payload.count == 10)
    }

    /// A failure is final: later bytes give the same failure and no events.
    @Test func aFailureIsFinal() {
        var decoder = WebSocketFrameDecoder()
        #expect(decoder.feed([0x81, 0x81]).failure == .maskedFrame)
        #expect(decoder.feed(Frames.server(.text, "x")) == Step(failure: .maskedFrame))
        #expect(decoder.message == nil)
    }

    @Test func descriptionsNameTheFaultAndLeakNoPayload() {
        #expect(WebSocketProtocolError.unknownOpcode(0xB).description.contains("0xb"))
        #expect(WebSocketProtocolError.controlFrameTooLong(.ping).description.contains("ping"))
        #expect(
            WebSocketProtocolError.invalidCloseCode(.noStatusReceived).description.contains("1005 (no status received)")
        )
        #expect(WebSocketProtocolError.messageTooLarge(length: 251, limit: 250).description.contains("250 bytes"))
    }
}
