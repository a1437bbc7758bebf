import Endpoints
import Foundation

extension TestServer.Response {
    /// Accepts `request` as a WebSocket handshake (RFC 6455: a 101 with its
    /// `Sec-WebSocket-Accept`) and then, on the connection's own thread, answers each text
    /// message the client sends with the text messages `reply` returns, in order, until the
    /// client closes (its close is echoed) or the server stops. Pings are answered; binary
    /// messages are echoed. A request that is not a handshake gets a 400.
    ///
    /// ```swift
    /// server.route("/ticker") { request in
    ///     .webSocket(request) { text in (1...3).map { #"{"tick":\#($0)}"# } }
    /// }
    /// ```
    ///
    /// Small on purpose, for the demo and tests: no subprotocol or extension is chosen, messages
    /// (fragmented or not) of up to 1 MiB are read, and every reply goes out as one frame.
    public static func webSocket(
        _ request: TestServer.Request, reply: @escaping @Sendable (_ text: String) -> [String]
    ) -> TestServer.Response {
        guard request.header("Upgrade")?.lowercased() == "websocket", let key = request.header("Sec-WebSocket-Key")
        else { return BuiltinRoutes.error(400, "not a WebSocket handshake") }
        var response = TestServer.Response(
            status: 101,
            headers: [
                ("Upgrade", "websocket"), ("Connection", "Upgrade"),
                ("Sec-WebSocket-Accept", webSocketAccept(for: key)),
            ])
        response.behavior = .webSocket(reply: reply)
        return response
    }
}

/// The server's side of an upgraded connection: frames read from the blocking socket, replies
/// written unmasked.
struct WebSocketSession {
    let fd: Int32
    let reply: @Sendable (String) -> [String]
    private var buffer: [UInt8] = []

    init(fd: Int32, reply: @escaping @Sendable (String) -> [String]) {
        self.fd = fd
        self.reply = reply
    }

    /// Runs until the client closes or the socket ends.
    mutating func run() {
        var message: [UInt8] = []
        var messageOpcode: UInt8 = 0
        while let (fin, opcode, payload) = readFrame() {
            switch opcode {
            case 0x0, 0x1, 0x2:
                if opcode != 0 { messageOpcode = opcode }
                message += payload
                guard message.count <= 1 << 20 else { return close(code: 1009) }
                guard fin else { continue }
                defer { message = [] }
                if messageOpcode == 0x2 {
                    guard send(0x2, message) else { return }
                } else {
                    for text in reply(String(decoding: message, as: UTF8.self)) {
                        guard send(0x1, Array(text.utf8)) else { return }
                    }
                }
            case 0x8:
                // Echo the close code, then end.
                _ = send(0x8, Array(payload.prefix(2)))
                return
            case 0x9:
                guard send(0xA, payload) else { return }
            case 0xA:
                continue
            default:
                return close(code: 1002)
            }
        }
    }

    private func close(code: UInt16) {
        _ = send(0x8, [UInt8(code >> 8), UInt8(code & 0xFF)])
    }

    private func send(_ opcode: UInt8, _ payload: [UInt8]) -> Bool {
        var frame: [UInt8] = [0x80 | opcode]
        switch payload.count {
        case ..<126: frame.append(UInt8(payload.count))
        case ..<65536: frame += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: frame += [127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
        }
        return Socket.sendAll(fd, frame + payload)
    }

    /// The next frame, unmasked; `nil` at the socket's end or a frame over 1 MiB.
    private mutating func readFrame() -> (fin: Bool, opcode: UInt8, payload: [UInt8])? {
        guard let head = read(2) else { return nil }
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            guard let extended = read(2) else { return nil }
            length = Int(extended[0]) << 8 | Int(extended[1])
        } else if length == 127 {
            guard let extended = read(8) else { return nil }
            guard extended[0] & 0x80 == 0 else { return nil }
            length = extended.reduce(0) { $0 << 8 | Int($1) }
        }
        guard length <= 1 << 20 else { return nil }
        let masked = head[1] & 0x80 != 0
        guard let mask = masked ? read(4) : [0, 0, 0, 0], var payload = read(length) else { return nil }
        for index in payload.indices { payload[index] ^= mask[index % 4] }
        return (head[0] & 0x80 != 0, head[0] & 0x0F, payload)
    }

    private mutating func read(_ count: Int) -> [UInt8]? {
        while buffer.count < count {
            guard Socket.receive(fd, appendingTo: &buffer) > 0 else { return nil }
        }
        defer { buffer.removeFirst(count) }
        return Array(buffer.prefix(count))
    }
}
