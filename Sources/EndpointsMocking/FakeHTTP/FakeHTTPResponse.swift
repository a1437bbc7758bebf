import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An HTTP response a ``FakeHTTPTransport`` answers with: status, headers and body.
///
/// ```swift
/// fake.register(.get, "/profile", .json(Profile(name: "Zac")))
/// fake.register(.get, "/admin", .json(raw: #"{"code":403,"message":"no"}"#, status: 403))
/// fake.register(.delete, "/item/1", .status(204))
/// ```
public struct FakeHTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields.
    public var headers: [String: String]
    /// The body; for a streamed response (``streamed(_:pause:status:headers:failure:)``), all its
    /// chunks.
    public var body: Data
    /// How a streamed response is written: its chunks, the pause before each, how it ends.
    var stream: FakeStream?

    /// Creates a response.
    public init(status: Int = 200, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// `value` encoded as JSON, with `Content-Type: application/json`.
    ///
    /// Encoding cannot fail for ordinary `Encodable` types; if it does, the response is a 500
    /// whose body says why, so the test sees a failure rather than a crash.
    public static func json(
        _ value: some Encodable & Sendable,
        status: Int = 200,
        headers: [String: String] = [:],
        encoder: JSONEncoder = JSONEncoder()
    ) -> FakeHTTPResponse {
        do {
            return json(data: try encoder.encode(value), status: status, headers: headers)
        } catch {
            return text("FakeHTTPResponse.json could not encode \(type(of: value)): \(error)", status: 500)
        }
    }

    /// A JSON body given as text: `.json(raw: #"{"name":"Zac"}"#)`.
    public static func json(raw: String, status: Int = 200, headers: [String: String] = [:]) -> FakeHTTPResponse {
        json(data: Data(raw.utf8), status: status, headers: headers)
    }

    /// A plain-text body with `Content-Type: text/plain; charset=utf-8`.
    public static func text(_ text: String, status: Int = 200, headers: [String: String] = [:]) -> FakeHTTPResponse {
        var all = ["Content-Type": "text/plain; charset=utf-8"]
        all.merge(headers) { _, given in given }
        return FakeHTTPResponse(status: status, headers: all, body: Data(text.utf8))
    }

    /// A response with only a status and no body: `.status(401)`.
    public static func status(_ status: Int, headers: [String: String] = [:]) -> FakeHTTPResponse {
        FakeHTTPResponse(status: status, headers: headers)
    }

    private static func json(data: Data, status: Int, headers: [String: String]) -> FakeHTTPResponse {
        var all = ["Content-Type": "application/json"]
        all.merge(headers) { _, given in given }
        return FakeHTTPResponse(status: status, headers: all, body: data)
    }

    /// The `HTTPURLResponse` for a request to `url`.
    func httpResponse(for url: URL) -> HTTPURLResponse {
        var fields = headers
        if stream == nil, fields.keys.contains(where: { $0.lowercased() == "content-length" }) == false {
            fields["Content-Length"] = String(body.count)
        }
        return HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)!
    }
}
