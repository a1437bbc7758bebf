import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback TCP server that misbehaves on purpose: for every connection it reads the request
/// head, writes exactly the bytes it was given (however malformed), and closes the connection.
///
/// ```swift
/// let server = try RawServer(reply: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort")
/// defer { server.stop() }
/// ```
final class RawServer: Sendable {
    struct Failure: Error { let call: String }

    /// The port the kernel chose.
    let port: UInt16
    private let listener: Int32
    /// Request heads received, in order.
    let heads = Shared<[String]>([])
    /// Set by ``stop()``: the accept loop ends.
    private let stopped = Shared(false)

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    convenience init(reply: String) throws {
        try self.init(bytes: Array(reply.utf8))
    }

    convenience init(bytes: [UInt8]) throws {
        try self.init(replies: [bytes], keepsAlive: false)
    }

    /// A server that keeps each connection, answering its requests with `replies` in turn, and
    /// closes it on reading the request after the last: a keep-alive connection dropped under
    /// the client's next request, as a server that restarts or times it out at that moment does.
    convenience init(keepAliveReplies replies: [String]) throws {
        try self.init(replies: replies.map { Array($0.utf8) }, keepsAlive: true)
    }

    private init(replies: [[UInt8]], keepsAlive: Bool) throws {
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw Failure(call: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw Failure(call: "bind/listen")
        }
        var actual = sockaddr_in()
        var actualLength = length
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
        listener = fd
        port = UInt16(bigEndian: actual.sin_port)
        let heads = heads
        let stopped = stopped
        // The thread owns the listener and closes it when it leaves: closed by `stop()` while the
        // thread was serving, its number could go to the next test's server, whose connections
        // this thread would then accept and answer with this server's bytes.
        let thread = Thread {
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { break }
                guard !stopped.value else {
                    close(connection)
                    break
                }
                if keepsAlive {
                    // A kept-alive connection may wait for a request that never comes (the
                    // client keeps it idle in its pool): the next connection must not wait on it.
                    Thread { RawServer.serve(connection, replies: replies, keepsAlive: true, heads: heads) }.start()
                } else {
                    RawServer.serve(connection, replies: replies, keepsAlive: false, heads: heads)
                }
            }
            close(fd)
        }
        thread.start()
    }

    private static func serve(_ connection: Int32, replies: [[UInt8]], keepsAlive: Bool, heads: Shared<[String]>) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        for index in 0...replies.count {
            // The head; on a connection kept alive a byte at a time, so that nothing of the next
            // request is taken for this one's.
            var received: [UInt8] = []
            let step = keepsAlive ? 1 : 4096
            while !received.ends(with: Array("\r\n\r\n".utf8)) {
                let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, step, 0) }
                guard count > 0 else { break }
                received += buffer[0..<count]
            }
            guard !received.isEmpty else { break }
            heads.update { $0.append(String(decoding: received, as: UTF8.self)) }
            guard index < replies.count else { break }
            if keepsAlive { readBody(of: received, from: connection) }
            let bytes = replies[index]
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, 0) }
                guard written > 0 else { break }
                offset += written
            }
            if !keepsAlive { break }
        }
        #if canImport(Darwin)
            shutdown(connection, SHUT_WR)
        #else
            shutdown(connection, Int32(SHUT_WR))
        #endif
        close(connection)
    }

    /// Reads the body of the request whose head is `head`, by its `Content-Length` or to the end
    /// of its chunks (a keep-alive connection's next request starts after it).
    private static func readBody(of head: [UInt8], from connection: Int32) {
        let fields = String(decoding: head, as: UTF8.self).lowercased()
        var byte: UInt8 = 0
        func next() -> Bool { recv(connection, &byte, 1, 0) == 1 }
        if fields.contains("transfer-encoding: chunked") {
            var tail: [UInt8] = []
            while next() {
                tail.append(byte)
                if tail.ends(with: Array("\r\n0\r\n\r\n".utf8)) || tail == Array("0\r\n\r\n".utf8) { return }
            }
        } else if let line = fields.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            var remaining = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        {
            while remaining > 0, next() { remaining -= 1 }
        }
    }

    /// Stops accepting connections: a waiting `accept` fails at once, and the accept loop closes
    /// the listener once it is out of the connection it may be serving.
    func stop() {
        stopped.value = true
        #if canImport(Darwin)
            shutdown(listener, SHUT_RDWR)
        #else
            shutdown(listener, Int32(SHUT_RDWR))
        #endif
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
