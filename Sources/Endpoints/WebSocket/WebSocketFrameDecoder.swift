import Foundation

/// Reads the frames a server sends (RFC 6455 §5) from bytes that arrive in pieces of any size, and
/// returns what they complete: whole messages (reassembled from their fragments), pings, pongs and
/// the close frame; or the first fault, with the close code the client must answer it with.
///
/// ```swift
/// var decoder = WebSocketFrameDecoder(limits: .init(maximumFrameSize: 1 << 20, maximumMessageSize: 1 << 20))
/// let step = decoder.feed(bytesFromTheSocket)
/// for event in step.events { … }              // .message(.text("Hello")), .ping(payload), …
/// if let failure = step.failure { … }          // send a close with failure.closeCode, then drop
/// ```
///
/// What it refuses (each a ``WebSocketProtocolError``): a masked frame, reserved bits (no extension
/// is ever negotiated), a reserved opcode, a control frame over 125 bytes or fragmented, a
/// continuation without a message in progress, a new message before the last one ended, a text
/// message that is not UTF-8 (checked as its bytes arrive, so a code point may straddle fragments
/// but a bad byte fails at once), a close frame of 1 byte, a close code not allowed on the wire or a
/// reason not in UTF-8, a 64-bit length with its top bit set, and a frame or a message over the
/// limits. Each check runs on the first byte that decides it, so the same bytes give the same
/// events and the same failure however they are split. A length in a longer form than needed
/// (126 then a 16-bit length under 126) is accepted, as most peers do.
///
/// Memory stays within the limits: a frame's length is checked against them from its header,
/// before any of its payload is kept. The decoder keeps at most the message in progress
/// (``Limits/maximumMessageSize``), one control frame's payload (125 bytes) and a header being
/// read (10 bytes, in fields).
///
/// After a close frame the decoder ignores what follows (a server sends nothing after its close);
/// after a failure, every later ``feed(_:)`` returns the same failure.
struct WebSocketFrameDecoder: Sendable {
    /// The limits, as given when the decoder was made.
    let limits: Limits
    private(set) var phase = Phase.header(read: 0)
    /// The message in progress: its first frame came, its last has not.
    private(set) var message: PartialMessage?

    /// The header fields read so far (meaningful while ``phase`` is `.header`).
    private var first: UInt8 = 0
    private var extendedLengthSize = 0
    private var length: UInt64 = 0
    /// The payload of the control frame being read (at most 125 bytes).
    private var control: [UInt8] = []

    /// A decoder at the start of a connection's frames, after the handshake.
    init(limits: Limits = .default) {
        self.limits = limits
    }

    /// Reads `bytes`, the next part of the stream, and returns the events they completed and the
    /// failure they ended in, if any.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> Step {
        switch phase {
        case .closed: return Step()
        case .failed(let failure): return Step(failure: failure)
        case .header, .payload: break
        }
        var step = Step()
        // The standard library's closures rethrow untyped errors: the failure comes out as a value.
        let failure =
            bytes.withContiguousStorageIfAvailable { read($0, into: &step.events) }
            ?? Array(bytes).withUnsafeBufferPointer { read($0, into: &step.events) }
        if let failure {
            phase = .failed(failure)
            message = nil
            control = []
            step.failure = failure
        }
        return step
    }

    /// Whether the server's close frame arrived.
    var isClosed: Bool { phase == .closed }

    /// Reads one contiguous piece; returns the failure it ended in, if any.
    private mutating func read(_ buffer: UnsafeBufferPointer<UInt8>, into events: inout [Event])
        -> WebSocketProtocolError?
    {
        do throws(WebSocketProtocolError) {
            try readFrames(buffer, into: &events)
            return nil
        } catch {
            return error
        }
    }

    /// Reads one contiguous piece: header bytes one at a time, payload bytes in runs.
    private mutating func readFrames(_ buffer: UnsafeBufferPointer<UInt8>, into events: inout [Event])
        throws(WebSocketProtocolError)
    {
        var index = 0
        while index < buffer.count {
            switch phase {
            case .header(let read):
                let byte = buffer[index]
                index += 1
                if let header = try readHeader(byte, at: read) {
                    try begin(header, into: &events)
                }
            case .payload(let header, let remaining):
                let available = UInt64(buffer.count - index)
                let count = Int(min(remaining, available))
                let run = UnsafeBufferPointer(rebasing: buffer[index..<index + count])
                index += count
                try take(run, of: header)
                if remaining == UInt64(count) {
                    try end(header, into: &events)
                } else {
                    phase = .payload(header, remaining: remaining - UInt64(count))
                }
            case .closed, .failed:
                return
            }
        }
    }

    // MARK: Frames, a step at a time

    /// Reads the header byte at position `read`; returns the header once it is complete.
    private mutating func readHeader(_ byte: UInt8, at read: Int) throws(WebSocketProtocolError) -> FrameHeader? {
        switch read {
        case 0:
            let reserved = byte & 0x70
            guard reserved == 0 else { throw .reservedBitsSet(reserved) }
            guard let opcode = WebSocketOpcode(rawValue: byte & 0x0F) else { throw .unknownOpcode(byte & 0x0F) }
            let fin = byte & 0x80 != 0
            if opcode.isControl {
                guard fin else { throw .fragmentedControlFrame(opcode) }
            } else if opcode == .continuation {
                guard message != nil else { throw .continuationWithoutStart }
            } else if message != nil {
                throw .messageNotFinished(opcode)
            }
            first = byte
            phase = .header(read: 1)
            return nil
        case 1:
            guard byte & 0x80 == 0 else { throw .maskedFrame }
            let short = byte & 0x7F
            let header = FrameHeader(fin: first & 0x80 != 0, opcode: opcode, length: UInt64(short))
            if header.opcode.isControl, short > 125 { throw .controlFrameTooLong(header.opcode) }
            switch short {
            case 126: extendedLengthSize = 2
            case 127: extendedLengthSize = 8
            default: return header
            }
            length = 0
            phase = .header(read: 2)
            return nil
        default:
            // Only a 64-bit length's first byte can have the top bit set that RFC 6455 forbids.
            if read == 2, extendedLengthSize == 8, byte & 0x80 != 0 { throw .lengthOutOfRange }
            length = length << 8 | UInt64(byte)
            guard read - 1 == extendedLengthSize else {
                phase = .header(read: read + 1)
                return nil
            }
            return FrameHeader(fin: first & 0x80 != 0, opcode: opcode, length: length)
        }
    }

    /// The opcode of the header being read (its first byte was checked).
    private var opcode: WebSocketOpcode { WebSocketOpcode(rawValue: first & 0x0F) ?? .continuation }

    /// A frame's header is complete: checks its length against the limits, then reads its payload
    /// (or ends it at once when it has none).
    private mutating func begin(_ header: FrameHeader, into events: inout [Event]) throws(WebSocketProtocolError) {
        if !header.opcode.isControl {
            guard header.length <= UInt64(limits.maximumFrameSize) else {
                throw .frameTooLarge(length: header.length, limit: limits.maximumFrameSize)
            }
            // Below 2⁶⁴: the length is under 2⁶³ and the message so far within an Int.
            let total = UInt64(message?.payload.count ?? 0) + header.length
            guard total <= UInt64(limits.maximumMessageSize) else {
                throw .messageTooLarge(length: total, limit: limits.maximumMessageSize)
            }
            if header.opcode != .continuation {
                message = PartialMessage(opcode: header.opcode)
            }
        }
        if header.length == 0 {
            try end(header, into: &events)
        } else {
            phase = .payload(header, remaining: header.length)
        }
    }

    /// Keeps a run of the frame's payload: a data frame's in the message (text checked as UTF-8 on
    /// the way), a control frame's apart.
    private mutating func take(_ run: UnsafeBufferPointer<UInt8>, of header: FrameHeader) throws(WebSocketProtocolError)
    {
        guard !header.opcode.isControl else {
            control.append(contentsOf: run)
            return
        }
        guard var partial = message else { return }
        // Out of `self` while it grows, so that appending does not copy the payload.
        message = nil
        defer { message = partial }
        if partial.opcode == .text, !partial.validator.validate(buffer: run) { throw .invalidUTF8InText }
        partial.payload.append(run)
    }

    /// The frame's payload is complete: a control frame becomes its event, the last frame of a
    /// message the message.
    private mutating func end(_ header: FrameHeader, into events: inout [Event]) throws(WebSocketProtocolError) {
        phase = .header(read: 0)
        switch header.opcode {
        case .ping:
            events.append(.ping(Data(control)))
        case .pong:
            events.append(.pong(Data(control)))
        case .close:
            events.append(try closeEvent(control))
            phase = .closed
        case .text, .binary, .continuation:
            guard header.fin, let partial = message else { return }
            message = nil
            if partial.opcode == .text {
                guard partial.validator.isAtBoundary else { throw .invalidUTF8InText }
                events.append(.message(.text(String(decoding: partial.payload, as: UTF8.self))))
            } else {
                events.append(.message(.binary(partial.payload)))
            }
        }
        control.removeAll(keepingCapacity: true)
    }

    /// Reads a close frame's payload: nothing, or a code allowed on the wire and a UTF-8 reason.
    private func closeEvent(_ payload: [UInt8]) throws(WebSocketProtocolError) -> Event {
        guard !payload.isEmpty else { return .close(code: nil, reason: "") }
        guard payload.count >= 2 else { throw .closeFrameTooShort }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.mayBeSent else { throw .invalidCloseCode(code) }
        let reason = payload[2...]
        var validator = UTF8Validator()
        guard validator.validate(reason), validator.isAtBoundary else { throw .invalidUTF8InCloseReason }
        return .close(code: code, reason: String(decoding: reason, as: UTF8.self))
    }
}
