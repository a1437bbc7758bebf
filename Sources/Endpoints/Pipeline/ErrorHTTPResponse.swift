import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The response an `.errorResponse` carries: the server's response, with the raw body it came with
/// and the method of the request it answered.
///
/// ``EndpointTaskError/errorResponse(httpResponse:response:)`` keeps the two associated values the
/// seed's samples pattern-match, so the body rides along on the response object instead; read it
/// with ``EndpointTaskError/responseData``.
final class ErrorHTTPResponse: HTTPURLResponse, @unchecked Sendable {
    // @unchecked Sendable: every stored property is a `let` of a Sendable type, set in init.
    let body: Data
    let method: String?
    /// The metrics of the request it answered (see ``EndpointTaskError/metrics``).
    let metrics: RequestMetrics?

    /// `response` with `body` (and `metrics`) attached; `response` itself when its headers or URL
    /// cannot be copied.
    static func make(
        _ response: HTTPURLResponse, body: Data, method: String? = nil, metrics: RequestMetrics? = nil
    ) -> HTTPURLResponse {
        guard let url = response.url else { return response }
        var fields: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String, let value = value as? String else { continue }
            fields[name] = value
        }
        return ErrorHTTPResponse(
            url: url, statusCode: response.statusCode, fields: fields, body: body, method: method, metrics: metrics)
            ?? response
    }

    private init?(
        url: URL, statusCode: Int, fields: [String: String], body: Data, method: String?, metrics: RequestMetrics?
    ) {
        self.body = body
        self.method = method
        self.metrics = metrics
        super.init(url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: fields)
    }

    required init?(coder: NSCoder) {
        self.body = Data()
        self.method = nil
        self.metrics = nil
        super.init(coder: coder)
    }
}
