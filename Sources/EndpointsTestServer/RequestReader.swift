import Foundation

/// Why a request could not be read.
enum ReadError: Error {
    /// The peer closed the connection (or it failed); close quietly.
    case closed
    /// The request is invalid; answer with this status, then close.
    case rejected(status: Int, message: String)

    static func bad(_ message: String) -> ReadError { .rejected(status: 400, message: message) }
}

/// Parses HTTP/1.x requests from one connected socket.
///
/// Each connection has its own reader, used only by that connection's thread, so it needs no locking.
final class RequestReader {
    static let maxLineLength = 16 * 1024
    static let maxHeaderCount = 200
    static let maxBodyLength = 64 * 1024 * 1024

    private let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0

    init(fd: Int32) {
        self.fd = fd
    }

    /// Reads the next request. Throws ``ReadError/closed`` when the peer hangs up, even between requests.
    func readRequest() throws(ReadError) -> TestServer.Request {
        var requestLine = try readLine(tooLong: 414)
        while requestLine.isEmpty { requestLine = try readLine(tooLong: 414) }  // RFC 9112 §2.2
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, isToken(parts[0]), !parts[1].isEmpty else { throw .bad("invalid request line") }
        let version = parts[2]
        guard version.count == 8, version.hasPrefix("HTTP/"), version.dropFirst(6).first == ".",
            let major = version.dropFirst(5).first?.wholeNumberValue, version.last?.isNumber == true
        else { throw .bad("invalid HTTP version") }
        guard major == 1 else { throw .rejected(status: 505, message: "HTTP version not supported") }

        let (rawPath, rawQuery) = try splitTarget(parts[1])
        let headers = try readHeaders()
        let request = TestServer.Request(
            method: String(parts[0]), rawPath: rawPath, rawQuery: rawQuery, headers: headers, body: Data(),
            version: String(version))
        let body = try readBody(for: request)
        return TestServer.Request(
            method: request.method, rawPath: rawPath, rawQuery: rawQuery, headers: headers, body: body,
            version: request.version)
    }

    private func splitTarget(_ target: Substring) throws(ReadError) -> (String, String?) {
        var target = target
        if let scheme = target.range(of: "://"), !target.hasPrefix("/") {  // absolute-form
            let afterAuthority = target[scheme.upperBound...]
            target = afterAuthority.firstIndex { $0 == "/" || $0 == "?" }.map { afterAuthority[$0...] } ?? "/"
            if target.hasPrefix("?") { target = "/" + target }
        }
        guard target.hasPrefix("/") || target == "*" else { throw .bad("invalid request target") }
        guard let mark = target.firstIndex(of: "?") else { return (String(target), nil) }
        return (String(target[..<mark]), String(target[target.index(after: mark)...]))
    }

    private func readHeaders() throws(ReadError) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        while true {
            let line = try readLine(tooLong: 431)
            if line.isEmpty { return headers }
            guard headers.count < Self.maxHeaderCount else {
                throw .rejected(status: 431, message: "too many header fields")
            }
            guard let colon = line.firstIndex(of: ":"), isToken(line[..<colon]) else {
                throw .bad("invalid header field")  // also rejects obsolete line folding
            }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: [" ", "\t"])
            headers.append((String(line[..<colon]), value))
        }
    }

    private func readBody(for request: TestServer.Request) throws(ReadError) -> Data {
        let encodings = request.headers.filter { $0.name.lowercased() == "transfer-encoding" }
            .flatMap { $0.value.split(separator: ",") }
            .map { $0.trimmingCharacters(in: [" ", "\t"]).lowercased() }
        let lengths = request.headers.filter { $0.name.lowercased() == "content-length" }
            .flatMap { $0.value.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: [" ", "\t"]) }

        if !encodings.isEmpty {
            guard lengths.isEmpty else { throw .bad("both Content-Length and Transfer-Encoding") }
            guard encodings == ["chunked"] else {
                throw .rejected(status: 501, message: "unsupported transfer coding")
            }
            sendContinueIfExpected(request)
            return try readChunkedBody()
        }
        guard let first = lengths.first else { return Data() }
        guard lengths.allSatisfy({ $0 == first }), !first.isEmpty, first.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            let length = Int(first)
        else { throw .bad("invalid Content-Length") }
        guard length <= Self.maxBodyLength else { throw .rejected(status: 413, message: "body too large") }
        if length > 0 { sendContinueIfExpected(request) }
        return Data(try readExactly(length))
    }

    private func sendContinueIfExpected(_ request: TestServer.Request) {
        guard request.version == "HTTP/1.1", request.header("expect")?.lowercased() == "100-continue" else { return }
        _ = Socket.sendAll(fd, "HTTP/1.1 100 Continue\r\n\r\n")
    }

    private func readChunkedBody() throws(ReadError) -> Data {
        var body = Data()
        while true {
            let line = try readLine(tooLong: 400)
            let sizeText = line.prefix { $0 != ";" }.trimmingCharacters(in: [" ", "\t"])
            guard !sizeText.isEmpty, sizeText.count <= 15, let size = Int(sizeText, radix: 16), size >= 0 else {
                throw .bad("invalid chunk size")
            }
            if size == 0 { break }
            guard body.count + size <= Self.maxBodyLength else {
                throw .rejected(status: 413, message: "body too large")
            }
            body.append(contentsOf: try readExactly(size))
            guard try readLine(tooLong: 400).isEmpty else { throw .bad("missing CRLF after chunk data") }
        }
        while try !readLine(tooLong: 431).isEmpty {}  // trailer fields are read and ignored
        return body
    }

    /// Reads one line terminated by LF (an optional preceding CR is dropped).
    private func readLine(tooLong status: Int) throws(ReadError) -> String {
        var scanned = 0
        while true {
            if let newline = buffer[(start + scanned)...].firstIndex(of: UInt8(ascii: "\n")) {
                var end = newline
                if end > start && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = String(decoding: buffer[start..<end], as: UTF8.self)
                start = newline + 1
                return line
            }
            scanned = buffer.count - start
            guard scanned <= Self.maxLineLength else { throw .rejected(status: status, message: "line too long") }
            try fill()
        }
    }

    private func readExactly(_ count: Int) throws(ReadError) -> ArraySlice<UInt8> {
        while buffer.count - start < count { try fill() }
        defer { start += count }
        return buffer[start..<(start + count)]
    }

    /// Receives more bytes, first discarding consumed ones so the buffer does not grow without bound.
    private func fill() throws(ReadError) {
        if start > 0 && (start == buffer.count || start >= 64 * 1024) {
            buffer.removeFirst(start)
            start = 0
        }
        guard Socket.receive(fd, appendingTo: &buffer) > 0 else { throw .closed }
    }
}

/// Whether `text` is a non-empty RFC 9110 token (method names, header field names).
func isToken(_ text: some StringProtocol) -> Bool {
    !text.isEmpty
        && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
}
