/// Writes the frames a client sends (RFC 6455 §5.2): FIN, the opcode, the payload length in its
/// shortest form (7 bits, 16 bits after 126, 64 bits after 127) and the payload, masked with a
/// fresh key drawn from the caller's random source for every frame (§5.3).
///
/// ```swift
/// var random = SystemRandom()
/// let hello = WebSocketFrameEncoder.message(.text("Hello"), using: &random)
/// let pong = try WebSocketFrameEncoder.control(.pong, payload: pingPayload, using: &random)
/// let bye = try WebSocketFrameEncoder.close(code: .normalClosure, reason: "done", using: &random)
/// ```
///
/// The payload is copied once, into the frame, and masked there in place, eight bytes at a time.
enum WebSocketFrameEncoder {
    /// The most bytes a frame's header takes: 2, 8 of extended length, 4 of masking key.
    static let maximumHeaderSize = 14

    /// Encodes `message` as one frame, or, when its payload is over `maximumFrameSize` bytes, as a
    /// first frame and continuation frames of at most that many bytes each (a text message may be
    /// split inside a code point: only the whole message must be UTF-8).
    ///
    /// - Parameters:
    ///   - message: The text or binary message.
    ///   - maximumFrameSize: The most payload bytes in one frame (at least 1); unbounded by default.
    ///   - generator: Where each frame's masking key comes from.
    /// - Returns: The frames, one after the other, ready to send.
    static func message(
        _ message: WebSocketMessage, maximumFrameSize: Int = .max, using generator: inout some RandomNumberGenerator
    ) -> [UInt8] {
        let fragment = max(1, maximumFrameSize)
        var output: [UInt8] = []
        func encode(_ payload: UnsafeRawBufferPointer) {
            let count = payload.count
            output.reserveCapacity(count + (count / fragment + 1) * maximumHeaderSize)
            var start = 0
            repeat {
                let end = count - start > fragment ? start + fragment : count
                appendFrame(
                    opcode: start == 0 ? message.opcode : .continuation, fin: end == count,
                    payload: UnsafeRawBufferPointer(rebasing: payload[start..<end]),
                    maskingKey: WebSocketMaskingKey(using: &generator), to: &output)
                start = end
            } while start < count
        }
        switch message {
        case .text(let text): withBytes(of: text.utf8, encode)
        case .binary(let data): withBytes(of: data, encode)
        }
        return output
    }

    /// Encodes a ping or a pong (a close goes through ``close(code:reason:using:)``).
    ///
    /// - Throws: ``WebSocketEncodingError/controlPayloadTooLong(_:length:)`` for a payload over
    ///   125 bytes.
    static func control(
        _ opcode: WebSocketOpcode, payload: some Collection<UInt8>, using generator: inout some RandomNumberGenerator
    ) throws(WebSocketEncodingError) -> [UInt8] {
        precondition(opcode == .ping || opcode == .pong, "control(_:payload:using:) encodes pings and pongs")
        guard payload.count <= 125 else { throw .controlPayloadTooLong(opcode, length: payload.count) }
        return frame(opcode: opcode, payload: payload, using: &generator)
    }

    /// Encodes a close frame: the code (none: an empty payload, which the server reads as 1005),
    /// then the reason in UTF-8.
    ///
    /// - Throws: ``WebSocketEncodingError`` for a code that may not be sent, a reason without a
    ///   code, or a reason over 123 bytes.
    static func close(
        code: WebSocketCloseCode?, reason: String = "", using generator: inout some RandomNumberGenerator
    ) throws(WebSocketEncodingError) -> [UInt8] {
        guard let code else {
            guard reason.isEmpty else { throw .closeReasonWithoutCode }
            return frame(opcode: .close, payload: EmptyCollection(), using: &generator)
        }
        guard code.mayBeSent else { throw .invalidCloseCode(code) }
        let reasonLength = reason.utf8.count
        guard reasonLength <= 123 else { throw .closeReasonTooLong(length: reasonLength) }
        var payload: [UInt8] = [UInt8(code.rawValue >> 8), UInt8(truncatingIfNeeded: code.rawValue)]
        payload.append(contentsOf: reason.utf8)
        return frame(opcode: .close, payload: payload, using: &generator)
    }

    /// Encodes one masked frame with FIN set (or not), with no check of the payload's size.
    static func frame(
        opcode: WebSocketOpcode, fin: Bool = true, payload: some Collection<UInt8>,
        using generator: inout some RandomNumberGenerator
    ) -> [UInt8] {
        var output: [UInt8] = []
        let key = WebSocketMaskingKey(using: &generator)
        withBytes(of: payload) { bytes in
            output.reserveCapacity(bytes.count + maximumHeaderSize)
            appendFrame(opcode: opcode, fin: fin, payload: bytes, maskingKey: key, to: &output)
        }
        return output
    }

    /// Appends one frame to `output`: masked with `maskingKey`, or unmasked when it is `nil`, as
    /// only a server sends (tests use that to play the server). `reservedBits` (0x70 at most) are
    /// set as given, for tests of a decoder that must refuse them.
    static func appendFrame(
        opcode: WebSocketOpcode, fin: Bool, reservedBits: UInt8 = 0, payload: UnsafeRawBufferPointer,
        maskingKey: WebSocketMaskingKey?, to output: inout [UInt8]
    ) {
        output.append((fin ? 0x80 : 0) | (reservedBits & 0x70) | opcode.rawValue)
        let mask: UInt8 = maskingKey == nil ? 0 : 0x80
        let count = payload.count
        if count < 126 {
            output.append(mask | UInt8(count))
        } else if count <= 0xFFFF {
            output.append(mask | 126)
            output.append(UInt8(count >> 8))
            output.append(UInt8(truncatingIfNeeded: count))
        } else {
            output.append(mask | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                output.append(UInt8(truncatingIfNeeded: UInt64(count) >> UInt64(shift)))
            }
        }
        guard let maskingKey else {
            output.append(contentsOf: payload)
            return
        }
        for index in 0..<4 { output.append(maskingKey[index]) }
        let start = output.count
        output.append(contentsOf: payload)
        output.withUnsafeMutableBytes { maskingKey.apply(to: UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
    }

    /// Runs `body` on `bytes` where they lie when they are contiguous, on a copy otherwise.
    private static func withBytes<Result>(
        of bytes: some Collection<UInt8>, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result {
        if let result = bytes.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(bytes).withUnsafeBytes(body)
    }
}
