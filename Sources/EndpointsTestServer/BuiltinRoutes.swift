import Foundation

/// The routes every ``TestServer`` answers when no custom route matches (see ``TestServer`` for the list).
enum BuiltinRoutes {
    static let maxGeneratedBytes = 64 * 1024 * 1024

    static func respond(to request: TestServer.Request) -> TestServer.Response {
        let segments = request.rawPath.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let argument = segments.count == 2 ? String(segments.last!) : nil
        switch (segments.first ?? "", segments.count) {
        case ("echo", _):
            return echo(request, status: request.queryValue("status").flatMap(Int.init).flatMap(validStatus) ?? 200)
        case ("status", 2):
            return status(request, code: argument.flatMap { Int($0) }.flatMap(validStatus))
        case ("redirect", 1):
            return redirect(request)
        case ("redirect-chain", 2):
            guard let remaining = argument.flatMap(count) else { return error(400, "invalid redirect count") }
            if remaining == 0 { return echo(request, status: 200) }
            return TestServer.Response(status: 302, headers: [("Location", "/redirect-chain/\(remaining - 1)")])
        case ("delay", 2):
            guard let milliseconds = argument.flatMap(count) else { return error(400, "invalid delay") }
            var response = echo(request, status: 200)
            response.delayNanoseconds = UInt64(milliseconds) * 1_000_000
            return response
        case ("trickle", 1):
            return trickle(request)
        case ("close-mid-body", 1):
            var response = octets(count: 10)
            response.behavior = .truncate(declaredLength: 1000)
            return response
        case ("malformed-json", 1):
            return .json(raw: #"{"broken": "#)
        case ("json", 1):
            guard let value = request.queryValue("value") else { return error(400, "missing value query item") }
            return .json(raw: value)
        case ("bytes", 2):
            guard let size = argument.flatMap(count) else { return error(400, "invalid byte count") }
            return octets(count: size)
        case ("chunked", 1):
            var response = echo(request, status: 200)
            response.chunked = true
            return response
        case ("set-cookie", 1):
            guard let name = request.queryValue("name"), !name.isEmpty else { return error(400, "missing name") }
            let value = request.queryValue("value") ?? ""
            var response = TestServer.Response.json(["name": name, "value": value])
            response.headers.append((name: "Set-Cookie", value: "\(name)=\(value); Path=/"))
            return response
        default:
            return error(404, "not found")
        }
    }

    /// A JSON error body `{"code": status, "message": message}` with that status.
    static func error(_ status: Int, _ message: String) -> TestServer.Response {
        .json(ErrorBody(code: status, message: message), status: status)
    }

    /// `n` bytes where byte `i` is `i % 256`, as `application/octet-stream`.
    static func octets(count: Int) -> TestServer.Response {
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0) }
        return TestServer.Response(headers: [("Content-Type", "application/octet-stream")], body: Data(bytes))
    }

    private static func echo(_ request: TestServer.Request, status: Int) -> TestServer.Response {
        .json(EchoBody(request), status: status)
    }

    private static func status(_ request: TestServer.Request, code: Int?) -> TestServer.Response {
        guard let code else { return error(400, "invalid status code") }
        var response = TestServer.Response.json(ErrorBody(code: code, message: "status code"), status: code)
        if let retryAfter = request.queryValue("retryAfter") {
            response.headers.append((name: "Retry-After", value: retryAfter))
        }
        return response
    }

    private static func redirect(_ request: TestServer.Request) -> TestServer.Response {
        guard let target = request.queryValue("to") else { return error(400, "missing to query item") }
        let code = request.queryValue("status").map { Int($0) ?? 0 } ?? 302
        guard (300...399).contains(code) else { return error(400, "invalid redirect status") }
        return TestServer.Response(status: code, headers: [("Location", target)])
    }

    private static func trickle(_ request: TestServer.Request) -> TestServer.Response {
        guard let size = count(request.queryValue("bytes") ?? "10"),
            let interval = count(request.queryValue("intervalMs") ?? "100")
        else { return error(400, "invalid bytes or intervalMs") }
        var response = octets(count: size)
        response.behavior = .trickle(intervalNanoseconds: UInt64(interval) * 1_000_000)
        return response
    }

    /// Parses a non-negative decimal count no larger than ``maxGeneratedBytes``.
    private static func count(_ text: some StringProtocol) -> Int? {
        guard text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int(text) else { return nil }
        return value <= maxGeneratedBytes ? value : nil
    }

    private static func validStatus(_ code: Int) -> Int? {
        (200...599).contains(code) ? code : nil
    }
}

/// The JSON body of `/echo` and friends.
struct EchoBody: Encodable {
    let method: String
    let path: String
    let query: String?
    let headers: [String: String]
    let headerList: [[String]]
    let body: String?
    let bodyBase64: String

    init(_ request: TestServer.Request) {
        method = request.method
        path = request.rawPath
        query = request.rawQuery
        var joined: [String: String] = [:]
        for header in request.headers {
            let key = header.name.lowercased()
            joined[key] = joined[key].map { "\($0), \(header.value)" } ?? header.value
        }
        headers = joined
        headerList = request.headers.map { [$0.name, $0.value] }
        body = String(data: request.body, encoding: .utf8)
        bodyBase64 = request.body.base64EncodedString()
    }

    enum CodingKeys: String, CodingKey {
        case method, path, query, headers, headerList, body, bodyBase64
    }

    /// Encodes `query` and `body` as explicit `null`s instead of omitting them.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(method, forKey: .method)
        try container.encode(path, forKey: .path)
        try container.encode(query, forKey: .query)
        try container.encode(headers, forKey: .headers)
        try container.encode(headerList, forKey: .headerList)
        try container.encode(body, forKey: .body)
        try container.encode(bodyBase64, forKey: .bodyBase64)
    }
}
