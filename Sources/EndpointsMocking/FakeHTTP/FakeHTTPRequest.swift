import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request a ``FakeHTTPTransport`` received: what the pipeline (or a session the fake handed
/// out) actually sent, after authentication and middleware.
///
/// ```swift
/// fake.register(.post, "/auth/refresh") { request in
///     let body = try request.decodeBody(RefreshBody.self)
///     return .json(Tokens(access: "new-\(body.refreshToken)", refresh: "next"))
/// }
/// ```
public struct FakeHTTPRequest: Sendable, CustomStringConvertible {
    /// The request as sent.
    public let urlRequest: URLRequest
    /// The body, whether it came as `httpBody` or, as a URLProtocol sees it on Apple platforms,
    /// as `httpBodyStream`; empty when there is none.
    public let body: Data
    /// What the pipeline knew about the request; `nil` when it came through a session from
    /// ``FakeHTTPTransport/makeSession(configuration:)``.
    public let context: RequestContext?

    /// Creates a request, reading the body from `urlRequest` when `body` is `nil`.
    public init(_ urlRequest: URLRequest, body: Data? = nil, context: RequestContext? = nil) {
        self.urlRequest = urlRequest
        self.body = body ?? BodyReader.body(of: urlRequest)
        self.context = context
    }

    /// The method, e.g. `GET`.
    public var method: String { urlRequest.httpMethod ?? "GET" }

    /// The URL.
    public var url: URL { urlRequest.url ?? URL(string: "about:blank")! }

    /// The percent-decoded path, `/` when the URL has none.
    public var path: String { FakeRoute.path(of: url) }

    /// The query items, in order.
    public var queryItems: [URLQueryItem] {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
    }

    /// The value of the first query item named `name`.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// The value of the header `name`, case-insensitively.
    public func header(_ name: String) -> String? {
        urlRequest.value(forHTTPHeaderField: name)
    }

    /// The headers as sent.
    public var headers: [String: String] { urlRequest.allHTTPHeaderFields ?? [:] }

    /// Decodes the body as JSON.
    public func decodeBody<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: body)
    }

    /// `GET /profile (0 bytes)`; header values are not printed, so credentials stay out of logs.
    public var description: String { "\(method) \(path) (\(body.count) bytes)" }
}

/// Reads a request body from `httpBody` or `httpBodyStream`.
enum BodyReader {
    static func body(of request: URLRequest) -> Data {
        if let body = request.httpBody { return body }
        guard let stream = request.httpBodyStream else { return Data() }
        return read(stream)
    }

    static func read(_ stream: InputStream) -> Data {
        var data = Data()
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            data.append(buffer, count: count)
        }
        return data
    }
}
