import Dispatch
import Foundation

/// Serialises ``TestServer/Response`` values onto a connected socket.
enum ResponseWriter {
    /// Writes `response`. Returns `false` when the connection must be closed afterwards
    /// (write failure, deliberate truncation, or the server stopped during a delay).
    static func write(
        _ response: TestServer.Response, to fd: Int32, isHead: Bool, keepAlive: Bool, isStopped: () -> Bool
    ) -> Bool {
        if let delay = response.delayNanoseconds, !sleep(nanoseconds: delay, isStopped: isStopped) { return false }

        let bodyAllowed = !(100...199).contains(response.status) && response.status != 204 && response.status != 304
        let chunked = response.chunked && bodyAllowed
        var head = "HTTP/1.1 \(response.status) \(reasonPhrase(response.status))\r\n"
        for header in response.headers where !isFramingHeader(header.name) {
            head += "\(header.name): \(header.value)\r\n"
        }
        if chunked {
            head += "Transfer-Encoding: chunked\r\n"
        } else if bodyAllowed {
            let length =
                switch response.behavior {
                case .truncate(let declared): declared
                case .generated(let count): count
                case .paced(let chunks, _): chunks.reduce(0) { $0 + $1.count }
                default: response.body.count
                }
            head += "Content-Length: \(length)\r\n"
        }
        if !keepAlive && !response.headers.contains(where: { $0.name.lowercased() == "connection" }) {
            head += "Connection: close\r\n"
        }
        head += "\r\n"

        if case .webSocket(let reply) = response.behavior {
            guard Socket.sendAll(fd, head) else { return false }
            var session = WebSocketSession(fd: fd, reply: reply)
            session.run()
            return false
        }
        guard bodyAllowed, !isHead else { return Socket.sendAll(fd, head) }
        switch response.behavior {
        case .standard where chunked:
            return Socket.sendAll(fd, head) && writeChunks(response.body, to: fd)
        case .standard:
            return Socket.sendAll(fd, Array(head.utf8) + response.body)
        case .trickle(let interval):
            guard Socket.sendAll(fd, head) else { return false }
            for byte in response.body {
                guard sleep(nanoseconds: interval, isStopped: isStopped), Socket.sendAll(fd, [byte]) else {
                    return false
                }
            }
            return true
        case .truncate:
            _ = Socket.sendAll(fd, Array(head.utf8) + response.body)
            return false
        case .stream(let chunks, let pause, let ending):
            return Socket.sendAll(fd, head)
                && writeStream(chunks, chunked: chunked, pause: pause, ending: ending, to: fd, isStopped: isStopped)
        case .generated(let count):
            return Socket.sendAll(fd, head) && writeGenerated(count, to: fd)
        case .paced(let chunks, let proceed):
            guard Socket.sendAll(fd, head) else { return false }
            for (index, chunk) in chunks.enumerated() {
                proceed(index)
                guard !isStopped(), Socket.sendAll(fd, Array(chunk)) else { return false }
            }
            return true
        case .webSocket:
            return false
        }
    }

    /// Writes a short error response that closes the connection.
    static func writeError(status: Int, message: String, to fd: Int32) {
        let response = BuiltinRoutes.error(status, message)
        _ = write(response, to: fd, isHead: false, keepAlive: false, isStopped: { false })
    }

    /// Whether the header is one the writer controls (message framing and connection management).
    static func isFramingHeader(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return lowered == "content-length" || lowered == "transfer-encoding"
    }

    /// Sends `body` as up to four separately-written chunks plus the terminating zero-size chunk.
    private static func writeChunks(_ body: Data, to fd: Int32) -> Bool {
        let chunkSize = max(1, (body.count + 3) / 4)
        var offset = body.startIndex
        while offset < body.endIndex {
            let end = min(offset + chunkSize, body.endIndex)
            let chunk = Array(String(end - offset, radix: 16).utf8) + [13, 10] + body[offset..<end] + [13, 10]
            guard Socket.sendAll(fd, chunk) else { return false }
            offset = end
        }
        return Socket.sendAll(fd, "0\r\n\r\n")
    }

    /// Sleeps in short slices so `stop()` is noticed; returns `false` if the server stopped meanwhile.
    static func sleep(nanoseconds: UInt64, isStopped: () -> Bool) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds &+ nanoseconds
        while true {
            if isStopped() { return false }
            let now = DispatchTime.now().uptimeNanoseconds
            if now >= deadline { return true }
            let slice = min(deadline - now, 20_000_000)
            Thread.sleep(forTimeInterval: Double(slice) / 1_000_000_000)
        }
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}
