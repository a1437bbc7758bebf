import Foundation
import FuzzDriver
import FuzzSupport

// What a hostile WebSocket server sends, read by the client's frame decoder: the same bytes give
// the same events and the same failure however they are split (whole, one byte at a time, in
// random pieces), as the decoder promises; no message is over the limits; a text message and a
// close reason are what the standard library reads as UTF-8; a close code is one allowed on the
// wire; and nothing comes after a close or a failure. The UTF-8 validator alone agrees with the
// standard library's on any bytes, however they are split.
@testable import Endpoints

/// Every event and the failure, the bytes fed in `pieces`.
func decode(_ pieces: [ArraySlice<UInt8>], limits: WebSocketFrameDecoder.Limits) -> WebSocketFrameDecoder.Step {
    var decoder = WebSocketFrameDecoder(limits: limits)
    var all = WebSocketFrameDecoder.Step()
    for piece in pieces {
        let step = decoder.feed(piece)
        require(all.failure == nil || (step.events.isEmpty && step.failure == all.failure), "events after a failure")
        if decoder.isClosed, all.events.contains(where: { if case .close = $0 { true } else { false } }) {
            require(step.events.isEmpty, "events after the close")
        }
        all.events += step.events
        all.failure = all.failure ?? step.failure
    }
    return all
}

func pieces(of bytes: [UInt8], seed: UInt64) -> [ArraySlice<UInt8>] {
    var random = Generator(seed: seed)
    var result: [ArraySlice<UInt8>] = []
    var offset = 0
    while offset < bytes.count {
        let size = Int(random.next() % 40)  // empty pieces too
        let end = min(bytes.count, offset + size)
        result.append(bytes[offset..<end])
        offset = end
    }
    return result
}

func checkFrames(_ bytes: [UInt8], limits: WebSocketFrameDecoder.Limits, seed: UInt64) {
    let whole = decode([bytes[...]], limits: limits)
    let single = decode(bytes.indices.map { bytes[$0...$0] }, limits: limits)
    let random = decode(pieces(of: bytes, seed: seed), limits: limits)
    require(whole == single, "one byte at a time: \(single) against \(whole)")
    require(whole == random, "in pieces: \(random) against \(whole)")
    for event in whole.events {
        switch event {
        case .message(.text(let text)):
            require(text.utf8.count <= limits.maximumMessageSize, "a text of \(text.utf8.count) bytes")
        case .message(.binary(let data)):
            require(data.count <= limits.maximumMessageSize, "a message of \(data.count) bytes")
        case .ping(let payload), .pong(let payload):
            require(payload.count <= 125, "a control payload of \(payload.count) bytes")
        case .close(let code, let reason):
            require(reason.utf8.count <= 123, "a close reason of \(reason.utf8.count) bytes")
            if let code { require(![1005, 1006, 1015].contains(code.rawValue), "close code \(code.rawValue)") }
        }
    }
}

func checkUTF8(_ bytes: [UInt8], seed: UInt64) {
    let reference = String(validating: bytes, as: UTF8.self) != nil
    var whole = UTF8Validator()
    let wholeValid = whole.validate(bytes) && whole.isAtBoundary
    require(wholeValid == reference, "validator says \(wholeValid), the standard library \(reference)")
    var split = UTF8Validator()
    var valid = true
    for piece in pieces(of: bytes, seed: seed) where valid { valid = split.validate(piece) }
    require((valid && split.isAtBoundary) == reference, "split, the validator says \(valid)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let flags = input.byte()
    let seed = UInt64(input.byte())
    if flags & 1 == 1 {
        checkUTF8(input.rest(), seed: seed)
        return 0
    }
    // Small limits as often as the default ones, so that both are reached.
    let limits =
        flags & 2 == 0
        ? WebSocketFrameDecoder.Limits.default
        : WebSocketFrameDecoder.Limits(maximumFrameSize: Int(input.byte()), maximumMessageSize: Int(input.byte()) * 2)
    checkFrames(input.rest(), limits: limits, seed: seed)
    return 0
}

/// The executable's entry point (see FuzzDriver.h).
@_cdecl("FuzzWebSocket_main")
func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    endpoints_fuzz_main(argc, argv)
}
