#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension TestServer {
    /// An error from a POSIX socket call made while starting the server.
    ///
    /// ```swift
    /// do {
    ///     _ = try TestServer(port: 80)
    /// } catch let error as TestServer.SocketError {
    ///     print(error.operation, error.code)  // e.g. "bind" 13 (EACCES)
    /// }
    /// ```
    public struct SocketError: Error, CustomStringConvertible, Sendable {
        /// The call that failed, such as `"bind"` or `"getaddrinfo"`.
        public let operation: String
        /// The `errno` value (or the `getaddrinfo` error code) reported by the failing call.
        public let code: Int32

        /// A human-readable description including the system's error message.
        public var description: String {
            if operation == "getaddrinfo" {
                return "getaddrinfo failed: \(String(cString: gai_strerror(code)))"
            }
            return "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
        }
    }
}

/// Thin wrappers over the POSIX socket calls the server needs.
enum Socket {
    #if canImport(Glibc)
        static let streamType = Int32(SOCK_STREAM.rawValue)
        private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
        static let streamType = SOCK_STREAM
        private static let sendFlags: Int32 = 0
    #endif

    /// Creates a non-blocking listening socket bound to `host:port`; returns it and the bound port.
    ///
    /// With `listening: false` the socket is bound without `SO_REUSEADDR` and never listens: it
    /// holds the port (nothing else can bind it) while every connection to it is refused.
    static func listen(
        host: String,
        port: UInt16,
        listening: Bool = true
    ) throws(TestServer.SocketError) -> (fd: Int32, port: UInt16) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamType
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let info = list?.pointee else {
            throw TestServer.SocketError(operation: "getaddrinfo", code: status)
        }
        defer { freeaddrinfo(list) }

        let fd = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
        guard fd >= 0 else { throw TestServer.SocketError(operation: "socket", code: errno) }
        func fail(_ operation: String) -> TestServer.SocketError {
            let error = TestServer.SocketError(operation: operation, code: errno)
            close(fd)
            return error
        }
        if listening { setOption(fd, SOL_SOCKET, SO_REUSEADDR) }
        guard bind(fd, info.ai_addr, info.ai_addrlen) == 0 else { throw fail("bind") }
        if listening {
            guard startListening(fd) == 0 else { throw fail("listen") }
        }
        guard fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else { throw fail("fcntl") }
        guard let boundPort = localPort(fd) else { throw fail("getsockname") }
        return (fd, boundPort)
    }

    private static func startListening(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
            return Glibc.listen(fd, 1024)
        #else
            return Darwin.listen(fd, 1024)
        #endif
    }

    private static func localPort(_ fd: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard status == 0 else { return nil }
        let isIPv6 = Int32(storage.ss_family) == AF_INET6
        return withUnsafePointer(to: &storage) { pointer in
            if isIPv6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin6_port)
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                UInt16(bigEndian: $0.pointee.sin_port)
            }
        }
    }

    private static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32) {
        var one: Int32 = 1
        _ = setsockopt(fd, level, name, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    enum AcceptResult {
        case connection(Int32)
        case retry
        case failed
    }

    /// Accepts one pending connection and configures it for blocking I/O without SIGPIPE.
    static func accept(_ listener: Int32) -> AcceptResult {
        #if canImport(Glibc)
            let fd = Glibc.accept(listener, nil, nil)
        #else
            let fd = Darwin.accept(listener, nil, nil)
        #endif
        guard fd >= 0 else {
            switch errno {
            case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED, EPROTO: return .retry
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                usleep(10_000)
                return .retry
            default: return .failed
            }
        }
        // Darwin sockets inherit O_NONBLOCK from the listener; connections use blocking I/O.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY)
        #if canImport(Darwin)
            setOption(fd, SOL_SOCKET, SO_NOSIGPIPE)
        #endif
        return .connection(fd)
    }

    /// Blocks until `listener` or `wake` is readable. Returns `false` once `wake` is readable.
    static func waitForConnection(listener: Int32, wake: Int32) -> Bool {
        var fds = [
            pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
        ]
        while poll(&fds, nfds_t(fds.count), -1) < 0 {
            if errno != EINTR { usleep(10_000) }
        }
        return fds[1].revents == 0
    }

    /// Sends every byte, retrying partial writes. Returns `false` if the peer is gone.
    static func sendAll(_ fd: Int32, _ bytes: some Collection<UInt8>) -> Bool {
        let array = Array(bytes)
        return array.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let sent = send(fd, buffer.baseAddress! + offset, buffer.count - offset, sendFlags)
                if sent < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += sent
            }
            return true
        }
    }

    /// Sends a string's UTF-8 bytes.
    static func sendAll(_ fd: Int32, _ text: String) -> Bool {
        sendAll(fd, Array(text.utf8))
    }

    /// Appends up to 16 KiB from the socket to `buffer`; returns the byte count, 0 at EOF, or -1 on error.
    static func receive(_ fd: Int32, appendingTo buffer: inout [UInt8]) -> Int {
        withUnsafeTemporaryAllocation(byteCount: 16_384, alignment: 1) { chunk in
            while true {
                let count = recv(fd, chunk.baseAddress, chunk.count, 0)
                if count < 0 && errno == EINTR { continue }
                if count > 0 { buffer.append(contentsOf: chunk[0..<count]) }
                return count
            }
        }
    }

    /// Wakes any thread blocked on `fd` (reads return EOF, writes fail) without releasing the descriptor.
    static func shutdownBoth(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    static func closeDescriptor(_ fd: Int32) {
        _ = close(fd)
    }

    /// Half-closes `fd` and briefly drains unread input, so closing it does not reset the connection
    /// (a reset can make the peer discard a response it has not read yet).
    static func finishWriting(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
        var timeout = timeval()
        timeout.tv_usec = 200_000
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var discarded: [UInt8] = []
        for _ in 0..<64 {
            discarded.removeAll(keepingCapacity: true)
            guard receive(fd, appendingTo: &discarded) > 0 else { return }
        }
    }

    /// Creates a pipe used to wake the accept loop; returns `(read, write)`.
    static func makePipe() throws(TestServer.SocketError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw TestServer.SocketError(operation: "pipe", code: errno) }
        return (fds[0], fds[1])
    }

    static func writeByte(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = write(fd, &byte, 1)
    }
}
