import Foundation

/// The decoder's limits, its results and its state's parts.
extension WebSocketFrameDecoder {
    /// How large a server's frames and messages may be.
    struct Limits: Sendable, Hashable {
        /// The most payload bytes one data frame may declare.
        var maximumFrameSize: Int
        /// The most payload bytes a message may reach, all its fragments together.
        var maximumMessageSize: Int

        /// Limits of the given sizes (a negative one counts as 0).
        init(maximumFrameSize: Int = Self.default.maximumFrameSize, maximumMessageSize: Int) {
            self.maximumFrameSize = max(0, maximumFrameSize)
            self.maximumMessageSize = max(0, maximumMessageSize)
        }

        /// 1 MiB per frame and per message: `URLSessionWebSocketTask`'s default
        /// `maximumMessageSize`, so both platforms refuse the same messages.
        static let `default` = Limits(maximumFrameSize: 1 << 20, maximumMessageSize: 1 << 20)
    }

    /// What the bytes fed so far completed.
    enum Event: Sendable, Hashable {
        /// A whole text or binary message.
        case message(WebSocketMessage)
        /// A ping: answer it with a pong carrying the same payload.
        case ping(Data)
        /// A pong: the answer to a ping, or an unsolicited heartbeat.
        case pong(Data)
        /// The server's close frame: its code (`nil` when the frame had none, which stands for
        /// 1005) and reason. Answer with a close frame (echoing the code), then end the connection.
        case close(code: WebSocketCloseCode?, reason: String)
    }

    /// The result of one ``feed(_:)``: the events completed, in order, then the failure that
    /// stopped decoding, if any (the events came before it and are sound).
    struct Step: Sendable, Hashable {
        var events: [Event] = []
        var failure: WebSocketProtocolError?
    }

    /// The header of the frame being read.
    struct FrameHeader: Sendable, Hashable {
        var fin: Bool
        var opcode: WebSocketOpcode
        var length: UInt64
    }

    /// Where the decoder is in the stream.
    enum Phase: Sendable, Hashable {
        /// Reading a frame header: `read` of its bytes so far.
        case header(read: Int)
        /// Reading the payload of `frame`, `remaining` bytes of it still to come.
        case payload(FrameHeader, remaining: UInt64)
        /// The server's close frame arrived: nothing more is decoded.
        case closed
        /// The stream broke the protocol: nothing more is decoded.
        case failed(WebSocketProtocolError)
    }

    /// The message whose fragments are arriving.
    struct PartialMessage: Sendable {
        var opcode: WebSocketOpcode
        var payload = Data()
        /// Text only: the UTF-8 read so far.
        var validator = UTF8Validator()
    }
}
