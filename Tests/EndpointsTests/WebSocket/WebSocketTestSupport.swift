import Foundation
import Testing

@testable import Endpoints

/// Frames as a server sends them (unmasked), and the decoder fed in pieces, for the WebSocket tests.
enum WebSocketFrames {
    /// One unmasked frame, as a server writes it.
    static func server(
        _ opcode: WebSocketOpcode, fin: Bool = true, reservedBits: UInt8 = 0, _ payload: some Collection<UInt8>
    ) -> [UInt8] {
        var output: [UInt8] = []
        Array(payload).withUnsafeBytes {
            WebSocketFrameEncoder.appendFrame(
                opcode: opcode, fin: fin, reservedBits: reservedBits, payload: $0, maskingKey: nil, to: &output)
        }
        return output
    }

    /// One unmasked frame with a text payload.
    static func server(_ opcode: WebSocketOpcode, fin: Bool = true, _ text: String) -> [UInt8] {
        server(opcode, fin: fin, Array(text.utf8))
    }

    /// A close frame's payload: the code, big-endian, then the reason's bytes.
    static func closePayload(_ code: UInt16, _ reason: [UInt8] = []) -> [UInt8] {
        [UInt8(code >> 8), UInt8(code & 0xFF)] + reason
    }

    /// What a decoder with `limits` makes of `bytes` fed in the pieces that end at `cuts`, in
    /// order: the events of every piece, and the failure, if any.
    static func decode(
        _ bytes: [UInt8], cuts: [Int] = [], limits: WebSocketFrameDecoder.Limits = .default
    ) -> WebSocketFrameDecoder.Step {
        var decoder = WebSocketFrameDecoder(limits: limits)
        var result = WebSocketFrameDecoder.Step()
        var start = 0
        for end in cuts + [bytes.count] where end >= start {
            let step = decoder.feed(bytes[start..<end])
            result.events += step.events
            if let failure = step.failure {
                result.failure = failure
                // Later pieces change nothing: the decoder gives the same failure and no event.
                #expect(decoder.feed(bytes[end...]) == WebSocketFrameDecoder.Step(failure: failure))
                return result
            }
            start = end
        }
        return result
    }

    /// The decoding of `bytes` whole; records an issue unless splitting them in two at every byte,
    /// and feeding them one byte at a time, gives the same.
    static func decodeAtEverySplit(
        _ bytes: [UInt8], limits: WebSocketFrameDecoder.Limits = .default,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> WebSocketFrameDecoder.Step {
        let whole = decode(bytes, limits: limits)
        for cut in 0...bytes.count {
            let split = decode(bytes, cuts: [cut], limits: limits)
            if split != whole {
                Issue.record("split at \(cut): \(split), whole: \(whole)", sourceLocation: sourceLocation)
                break
            }
        }
        let single = decode(bytes, cuts: Array(0..<bytes.count), limits: limits)
        if single != whole {
            Issue.record("byte by byte: \(single), whole: \(whole)", sourceLocation: sourceLocation)
        }
        return whole
    }
}
