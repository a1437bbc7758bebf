import Endpoints
import EndpointsTestServer
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Forwards requests to `origin` through one ``HTTPCache``, answering with what the client got.
struct CacheProxy: Sendable {
    let origin: URL
    let cache = HTTPCache(storage: .memory(maximumBytes: 64 << 20))
    let transport = RawOriginTransport()

    /// The headers that belong to one connection, not to the message.
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "transfer-encoding", "content-length", "host", "te", "upgrade",
        "proxy-connection",
    ]

    func forward(_ incoming: TestServer.Request) async -> TestServer.Response {
        let target = origin.absoluteString + incoming.rawPath + (incoming.rawQuery.map { "?" + $0 } ?? "")
        guard let url = URL(string: target) else { return .status(400) }
        var raw = URLRequest(url: url)
        raw.httpMethod = incoming.method
        for (name, value) in incoming.headers where !Self.hopByHop.contains(name.lowercased()) {
            raw.addValue(value, forHTTPHeaderField: name)
        }
        if !incoming.body.isEmpty { raw.httpBody = incoming.body }
        let client = EndpointClient(transport: transport, middleware: [Replace(request: raw), cache])
        // Every status but 304, which a caller only sees when it asked for it (see below).
        let request = Request<Data>.request(Method(rawValue: incoming.method), RequestTarget(target))
            .acceptableStatusCodes(StatusCodes([100..<304, 305..<600]))
        let data: Data
        let response: HTTPURLResponse
        do {
            let result = try await client.typedResponse(for: request)
            (data, response) = (result.value, result.httpResponse)
        } catch {
            guard case .errorResponse(let notModified, _) = error else {
                FileHandle.standardError.write(Data("proxy: \(target): \(error)\n".utf8))
                return .status(502)
            }
            (data, response) = (Data(), notModified)
        }
        var headers: [(name: String, value: String)] = []
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String, !Self.hopByHop.contains(name.lowercased()) else { continue }
            headers.append((name, "\(value)"))
        }
        return TestServer.Response(status: response.statusCode, headers: headers, body: data)
    }
}

/// Puts the incoming request, method, headers and body as received, in place of the one the
/// ad-hoc request built.
struct Replace: Middleware {
    let request: URLRequest

    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        try await next(self.request)
    }
}
