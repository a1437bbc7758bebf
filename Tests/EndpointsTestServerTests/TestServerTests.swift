import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The JSON written by `/echo`.
private struct Echo: Decodable {
    let method: String
    let path: String
    let query: String?
    let headers: [String: String]
    let headerList: [[String]]
    let body: String?
    let bodyBase64: String
}

private struct RawClientError: Error {
    let message: String
}

/// A minimal blocking HTTP/1.1 client over a raw socket, for what URLSession cannot express.
private final class RawClient {
    struct Response {
        let status: Int
        let headers: [String: String]
        let body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        func echo() throws -> Echo { try JSONDecoder().decode(Echo.self, from: Data(body)) }
    }

    private let fd: Int32
    private var buffer: [UInt8] = []

    init(port: UInt16) throws {
        #if canImport(Glibc)
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw RawClientError(message: "connect failed: errno \(errno)")
        }
        var timeout = timeval()
        timeout.tv_sec = 10  // a hung server fails the test instead of hanging it
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { throw RawClientError(message: "write failed") }
    }

    /// Whether the server has closed the connection (reads hit end-of-file).
    func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        return buffer.isEmpty && recv(fd, &byte, 1, 0) == 0
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &chunk, chunk.count, 0)
        guard count > 0 else { throw RawClientError(message: "connection closed or timed out") }
        buffer += chunk[0..<count]
    }

    private func readLine() throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: 10), newline > 0, buffer[newline - 1] == 13 {
                defer { buffer.removeFirst(newline + 1) }
                return String(decoding: buffer[0..<(newline - 1)], as: UTF8.self)
            }
            try fill()
        }
    }

    private func read(_ count: Int) throws -> [UInt8] {
        while buffer.count < count { try fill() }
        defer { buffer.removeFirst(count) }
        return Array(buffer[0..<count])
    }

    /// Reads one response; `hasBody: false` is for replies to HEAD. Decodes chunked bodies.
    func readResponse(hasBody: Bool = true) throws -> Response {
        let statusLine = try readLine().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw RawClientError(message: "bad status line \(statusLine)")
        }
        var headers: [String: String] = [:]
        while case let line = try readLine(), !line.isEmpty {
            let parts = line.split(separator: ":", maxSplits: 1)
            headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        var body: [UInt8] = []
        if hasBody && status >= 200 && headers["transfer-encoding"] == "chunked" {
            while let size = Int(try readLine(), radix: 16), size > 0 {
                body += try read(size + 2).dropLast(2)
            }
            _ = try readLine()
        } else if hasBody, let length = headers["content-length"].flatMap({ Int($0) }) {
            body = try read(length)
        }
        return Response(status: status, headers: headers, body: body)
    }
}

/// How much slower than usual the tests run: `ENDPOINTS_TEST_TIME_SCALE`, 1 by default.
private let timeScale = ProcessInfo.processInfo.environment["ENDPOINTS_TEST_TIME_SCALE"].flatMap(Double.init) ?? 1

/// Polls `condition` (the event waited for) for up to 60 s × the time scale, then requires it.
/// Runs `body`, which blocks on sockets, on a thread of its own: a blocked thread of the
/// cooperative pool (two on a 2-core machine) stalls every other test in the process, and the
/// server's async routes with them (a ThreadSanitizer run stood still for a minute).
private func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

private func waitUntil(_ condition: () -> Bool) async throws {
    let deadline = Date().addingTimeInterval(60 * timeScale)
    while !condition(), Date() < deadline {
        try await Task.sleep(nanoseconds: 10_000_000)
    }
    try #require(condition())
}

private func status(_ response: URLResponse) -> Int? {
    (response as? HTTPURLResponse)?.statusCode
}

@Suite struct TestServerTests {
    let session = URLSession(configuration: .ephemeral)

    @Test func echoReflectsMethodPathQueryHeadersAndBody() async throws {
        let server = try TestServer()
        defer { server.stop() }
        var request = URLRequest(url: server.url("/echo/a%2Fb?x=1&y=a+b%26c"))
        request.httpMethod = "PUT"
        request.setValue("hello", forHTTPHeaderField: "X-Custom")
        request.httpBody = Data("payload".utf8)
        let (data, response) = try await session.data(for: request)
        #expect(status(response) == 200)
        let echo = try JSONDecoder().decode(Echo.self, from: data)
        #expect(echo.method == "PUT")
        #expect(echo.path == "/echo/a%2Fb")
        #expect(echo.query == "x=1&y=a+b%26c")
        #expect(echo.headers["x-custom"] == "hello")
        #expect(echo.headerList.contains(["X-Custom", "hello"]))
        #expect(echo.body == "payload")
        #expect(echo.bodyBase64 == Data("payload".utf8).base64EncodedString())
        let recorded = try #require(server.requests.last)
        #expect(recorded.queryItems.map(\.value) == ["1", "a b&c"])
        #expect(recorded.header("x-CUSTOM") == "hello")

        let (_, overridden) = try await session.data(from: server.url("/echo?status=201"))
        #expect(status(overridden) == 201)
    }

    @Test func keepAliveReusesOneConnectionUntilConnectionClose() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let port = server.port
        let (first, second, counts, head, closed) = try await offThePool {
            let client = try RawClient(port: port)
            try client.send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
            let first = try client.readResponse()
            try client.send("POST /echo/2?a HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n\u{7F}")
            let second = try client.readResponse().echo()
            let counts = (server.connectionCount, server.requestCount)
            try client.send("HEAD /bytes/10 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let head = try client.readResponse(hasBody: false)
            return (first, second, counts, head, client.isClosedByPeer())
        }
        #expect(try first.echo().query == nil)
        #expect(second.path == "/echo/2" && second.query == "a" && second.body == "\u{7F}")
        #expect(counts.0 == 1 && counts.1 == 2)
        #expect(head.headers["content-length"] == "10" && head.headers["connection"] == "close")
        #expect(closed)
    }

    @Test func decodesChunkedBodyAfter100Continue() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let port = server.port
        let (interim, echo) = try await offThePool {
            let client = try RawClient(port: port)
            try client.send(
                "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n")
            let interim = try client.readResponse().status
            try client.send("5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n")
            return (interim, try client.readResponse().echo())
        }
        #expect(interim == 100)
        #expect(echo.body == "hello world")
        #expect(echo.headers["transfer-encoding"] == "chunked")
    }

    @Test func rejectsMalformedRequestsWith400AndCloses() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let malformed = [
            "NONSENSE\r\n\r\n",
            "GET /echo HTTP/1.1\r\nNo Colon Here\r\n\r\n",
            "GET /echo HTTP/1.1\r\nContent-Length: x\r\n\r\n",
            "GET /echo HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
        ]
        let port = server.port
        for bad in malformed {
            let (status, closed) = try await offThePool {
                let client = try RawClient(port: port)
                try client.send(bad)
                return (try client.readResponse().status, client.isClosedByPeer())
            }
            #expect(status == 400)
            #expect(closed)
        }
        #expect(server.requestCount == 0)
    }

    @Test func customRoutesTakePrecedence() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/api/*") { request in .json(["route": "prefix", "path": request.rawPath]) }
        server.route("/api/exact") { _ in .text("exact", status: 201) }
        server.route("/echo") { request in
            try? await Task.sleep(nanoseconds: 1_000_000)
            return .json(raw: #"{"overridden":"\#(request.method)"}"#)
        }
        let (prefix, _) = try await session.data(from: server.url("/api/users/7"))
        #expect(String(decoding: prefix, as: UTF8.self) == #"{"path":"/api/users/7","route":"prefix"}"#)
        let (exact, exactResponse) = try await session.data(from: server.url("/api/exact"))
        #expect(String(decoding: exact, as: UTF8.self) == "exact" && status(exactResponse) == 201)
        let (echo, _) = try await session.data(from: server.url("/echo"))
        #expect(String(decoding: echo, as: UTF8.self) == #"{"overridden":"GET"}"#)
    }

    @Test func delayDoesNotBlockOtherConnections() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let session = session
        // The slow request is still being delayed (a minute) when the fast one has its answer; it
        // is then cancelled rather than waited for, so a loaded machine cannot reorder the two.
        let first = try await withThrowingTaskGroup(of: String.self) { group in
            group.addTask {
                _ = try? await session.data(from: server.url("/delay/60000"))
                return "slow"
            }
            try await waitUntil { server.requestCount == 1 }
            group.addTask {
                _ = try await session.data(from: server.url("/echo"))
                return "fast"
            }
            let first = try await group.next()
            group.cancelAll()
            return first
        }
        #expect(first == "fast")
        #expect(server.requests.map(\.rawPath) == ["/delay/60000", "/echo"])
    }

    @Test func closeMidBodyMakesURLSessionFail() async throws {
        let server = try TestServer()
        defer { server.stop() }
        await #expect(throws: (any Error).self) {
            _ = try await session.data(from: server.url("/close-mid-body"))
        }
    }

    @Test func servesAThousandConcurrentRequests() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let session = session
        let statuses = try await withThrowingTaskGroup(of: Int?.self) { group in
            for index in 0..<1000 {
                group.addTask { status(try await session.data(from: server.url("/echo?i=\(index)")).1) }
            }
            return try await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(statuses.count == 1000 && statuses.allSatisfy { $0 == 200 })
        #expect(server.requestCount == 1000)
    }

    @Test func servesManySimultaneousConnections() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let port = server.port
        let queries = try await offThePool {
            let clients = try (0..<100).map { _ in try RawClient(port: port) }
            for (index, client) in clients.enumerated() {
                try client.send("GET /echo?client=\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
            }
            return try clients.reversed().map { try $0.readResponse().echo().query }
        }
        #expect(queries == (0..<100).reversed().map { "client=\($0)" })
        #expect(server.connectionCount == 100)
    }

    @Test func builtInRoutes() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let (_, unavailable) = try await session.data(from: server.url("/status/503?retryAfter=120"))
        #expect(status(unavailable) == 503)
        #expect((unavailable as? HTTPURLResponse)?.value(forHTTPHeaderField: "Retry-After") == "120")
        let (chainData, chain) = try await session.data(from: server.url("/redirect-chain/3"))
        #expect(chain.url?.path == "/redirect-chain/0")
        #expect(try JSONDecoder().decode(Echo.self, from: chainData).path == "/redirect-chain/0")
        let (redirected, _) = try await session.data(from: server.url("/redirect?to=%2Fecho%3Fa%3D1"))
        #expect(try JSONDecoder().decode(Echo.self, from: redirected).query == "a=1")
        let (bytes, _) = try await session.data(from: server.url("/bytes/300"))
        #expect(bytes == Data((0..<300).map { UInt8(truncatingIfNeeded: $0) }))
        let (json, _) = try await session.data(from: server.url("/json?value=%7B%22a%22%3A+1%7D"))
        #expect(String(decoding: json, as: UTF8.self) == #"{"a": 1}"#)
        let (broken, _) = try await session.data(from: server.url("/malformed-json"))
        #expect(String(decoding: broken, as: UTF8.self) == #"{"broken": "#)
        let (trickled, _) = try await session.data(from: server.url("/trickle?bytes=5&intervalMs=10"))
        #expect(trickled.count == 5)
        let (_, cookie) = try await session.data(from: server.url("/set-cookie?name=id&value=42"))
        #expect((cookie as? HTTPURLResponse)?.value(forHTTPHeaderField: "Set-Cookie") == "id=42; Path=/")
        let (missing, notFound) = try await session.data(from: server.url("/nope"))
        #expect(status(notFound) == 404)
        #expect(String(decoding: missing, as: UTF8.self) == #"{"code":404,"message":"not found"}"#)

        let port = server.port
        let chunked = try await offThePool {
            let client = try RawClient(port: port)
            try client.send("GET /chunked?x HTTP/1.1\r\nHost: x\r\n\r\n")
            return try client.readResponse()
        }
        #expect(chunked.headers["transfer-encoding"] == "chunked" && chunked.headers["content-length"] == nil)
        #expect(try chunked.echo().query == "x")
    }

    /// `.file(_:etag:for:)` answers one byte range as a static file server does.
    @Test func aFileAnswersOneByteRange() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let body = Data("0123456789".utf8)
        server.route("/file") { request in .file(body, etag: "\"v1\"", for: request) }
        let port = server.port
        let cases: [(fields: String, status: Int, body: String, range: String?)] = [
            ("", 200, "0123456789", nil),
            ("Range: bytes=2-4\r\n", 206, "234", "bytes 2-4/10"),
            ("Range: bytes=7-\r\n", 206, "789", "bytes 7-9/10"),
            ("Range: bytes=-3\r\n", 206, "789", "bytes 7-9/10"),
            ("Range: bytes=8-20\r\n", 206, "89", "bytes 8-9/10"),
            ("Range: bytes=4-\r\nIf-Range: \"v1\"\r\n", 206, "456789", "bytes 4-9/10"),
            ("Range: bytes=4-\r\nIf-Range: \"v0\"\r\n", 200, "0123456789", nil),
            ("Range: bytes=10-\r\n", 416, "", "bytes */10"),
            ("Range: bytes=0-1,4-5\r\n", 200, "0123456789", nil),
            ("Range: lines=1-2\r\n", 200, "0123456789", nil),
        ]
        let responses = try await offThePool {
            let client = try RawClient(port: port)
            return try cases.map { item in
                try client.send("GET /file HTTP/1.1\r\nHost: x\r\n\(item.fields)\r\n")
                return try client.readResponse()
            }
        }
        for (item, response) in zip(cases, responses) {
            #expect(response.status == item.status, "\(item.fields)")
            #expect(response.text == item.body, "\(item.fields)")
            #expect(response.headers["content-range"] == item.range, "\(item.fields)")
            if item.status != 416 { #expect(response.headers["etag"] == "\"v1\"", "\(item.fields)") }
        }
    }

    @Test func stopRefusesFurtherConnections() async throws {
        let server = try TestServer()
        let (_, response) = try await session.data(from: server.url("/echo"))
        #expect(status(response) == 200)
        let idle = try RawClient(port: server.port)
        try await waitUntil { server.connectionCount >= 2 }
        let accepted = server.connectionCount
        server.stop()
        server.stop()
        #expect(idle.isClosedByPeer())
        // The freed port may be bound at once by a test running in parallel (a server of its own,
        // perhaps one that misbehaves on purpose), so what a new connection to it gets says
        // nothing about this server; that this server accepts none is what matters.
        _ = try? await session.data(from: server.url("/echo"))
        #expect(server.connectionCount == accepted)
    }
}
