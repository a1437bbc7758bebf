import Endpoints
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sends to the origin over a plain HTTP/1.1 connection of its own, one request a connection
/// (`Connection: close`), and hands back the body's bytes as they came: no redirect followed, no
/// cookie, no cache, and no content coding undone.
///
/// URLSession (libcurl on Linux) fails a transfer whose `Content-Encoding` or
/// `Transfer-Encoding` names a coding it does not know, which the suite sends to check that a
/// cache stores such fields; a browser passes those bodies through, so the proxy does too. It
/// reads chunked and `Content-Length` bodies and bodies that end with the connection, and skips
/// interim (1xx) responses. Each exchange runs on a thread of its own: a test that pauses the
/// origin for seconds must not hold one of the few threads Swift's tasks run on.
struct RawOriginTransport: HTTPTransport {
    func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try Self.exchange(request) }) }.start()
        }
    }

    static func exchange(_ request: URLRequest) throws -> (Data, HTTPURLResponse) {
        guard let url = request.url, let host = url.host, let port = url.port else { throw URLError(.badURL) }
        let descriptor = try connect(host: host, port: port)
        defer { close(descriptor) }
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        let method = request.httpMethod ?? "GET"
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        for (name, value) in request.allHTTPHeaderFields ?? [:]
        where !["host", "connection", "content-length"].contains(name.lowercased()) {
            head += "\(name): \(value)\r\n"
        }
        let body = request.httpBody ?? Data()
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) { head += "Content-Length: \(body.count)\r\n" }
        try write(Data((head + "\r\n").utf8) + body, to: descriptor)
        let received = try readToEnd(descriptor)
        return try parse(received, url: url, isHead: method == "HEAD")
    }

    static func connect(host: String, port: Int) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list?.pointee else {
            throw URLError(.cannotFindHost)
        }
        defer { freeaddrinfo(list) }
        let descriptor = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
        guard descriptor >= 0 else { throw URLError(.cannotConnectToHost) }
        #if canImport(Glibc)
            let connected = Glibc.connect(descriptor, info.ai_addr, info.ai_addrlen)
        #else
            let connected = Darwin.connect(descriptor, info.ai_addr, info.ai_addrlen)
        #endif
        guard connected == 0 else {
            close(descriptor)
            throw URLError(.cannotConnectToHost)
        }
        return descriptor
    }

    static func write(_ data: Data, to descriptor: Int32) throws {
        try data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                #if canImport(Glibc)
                    let sent = Glibc.send(
                        descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                #else
                    let sent = Darwin.send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, 0)
                #endif
                if sent < 0, errno == EINTR { continue }
                guard sent > 0 else { throw URLError(.networkConnectionLost) }
                offset += sent
            }
        }
    }

    static func readToEnd(_ descriptor: Int32) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw URLError(.networkConnectionLost) }
            if count == 0 { return bytes }
            bytes += buffer[0..<count]
        }
    }

    /// The final response in `bytes`: its head, and its body as the framing says.
    static func parse(_ bytes: [UInt8], url: URL, isHead: Bool) throws -> (Data, HTTPURLResponse) {
        var rest = bytes[...]
        while true {
            guard let end = headEnd(rest) else { throw URLError(.networkConnectionLost) }
            let lines = String(decoding: rest[rest.startIndex..<end], as: UTF8.self).components(separatedBy: "\r\n")
            rest = rest[(end + 4)...]
            let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) }
            guard let status else { throw URLError(.cannotParseResponse) }
            if (100..<200).contains(status) { continue }  // interim: the final response follows
            var fields: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let name = String(line[..<colon])
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                if let existing = fields.keys.first(where: { $0.lowercased() == name.lowercased() }) {
                    fields[existing]! += ", " + value
                } else {
                    fields[name] = value
                }
            }
            func field(_ name: String) -> String? { fields.first { $0.key.lowercased() == name }?.value }
            var body = Data()
            if !isHead, status != 204, status != 304 {
                let codings = field("transfer-encoding")?.lowercased().split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                if codings?.last == "chunked" {
                    body = try dechunk(rest)
                } else if codings == nil, let length = field("content-length").flatMap({ Int($0) }) {
                    guard rest.count >= length else { throw URLError(.networkConnectionLost) }
                    body = Data(rest.prefix(length))
                } else {
                    body = Data(rest)
                }
            }
            guard
                let response = HTTPURLResponse(
                    url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)
            else { throw URLError(.cannotParseResponse) }
            return (body, response)
        }
    }

    static func headEnd(_ bytes: ArraySlice<UInt8>) -> Int? {
        var index = bytes.startIndex
        while index + 3 < bytes.endIndex {
            if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 {
                return index
            }
            index += 1
        }
        return nil
    }

    static func dechunk(_ bytes: ArraySlice<UInt8>) throws -> Data {
        var body = Data()
        var rest = bytes
        while true {
            guard let lineEnd = rest.firstIndex(of: 13), lineEnd + 1 < rest.endIndex else {
                throw URLError(.networkConnectionLost)
            }
            let sizeText = String(decoding: rest[rest.startIndex..<lineEnd], as: UTF8.self).split(separator: ";").first
            guard let size = sizeText.flatMap({ Int($0.trimmingCharacters(in: .whitespaces), radix: 16) }) else {
                throw URLError(.cannotParseResponse)
            }
            rest = rest[(lineEnd + 2)...]
            if size == 0 { return body }
            guard rest.count >= size + 2 else { throw URLError(.networkConnectionLost) }
            body.append(contentsOf: rest.prefix(size))
            rest = rest.dropFirst(size + 2)
        }
    }
}
