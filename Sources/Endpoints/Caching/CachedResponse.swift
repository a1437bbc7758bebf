import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A stored response: its head, when it was requested and received, the request header values
/// its `Vary` names, and its body (RFC 9111 §3).
struct CachedResponse: Codable, Sendable, Equatable {
    /// The primary key: method, URL and the credential's digest (``HTTPCache``'s `key`).
    var key: String
    /// The credential's digest (hex), empty without credentials: what a logout removes.
    var credential: String
    var url: String
    var status: Int
    /// The response headers as received (names as sent).
    var headers: [String: String]
    /// For each field `Vary` names (lower-cased), the request's value (`nil` when absent).
    var varied: [String: String?]
    /// When the request that brought it was sent and when its head came back (seconds since 1970).
    var requestTime: TimeInterval
    var responseTime: TimeInterval
    var body: Data

    /// The value of header `name`, any case.
    func header(_ name: String) -> String? { Self.header(name, in: headers) }

    static func header(_ name: String, in headers: [String: String]) -> String? {
        if let exact = headers[name] { return exact }
        let lower = name.lowercased()
        return headers.first { $0.key.lowercased() == lower }?.value
    }

    var cacheControl: CacheControl { CacheControl(header("Cache-Control")) }

    /// The freshness lifetime (RFC 9111 §4.2.1) of a private cache: `max-age`, else `Expires`
    /// less `Date` (0 when `Expires` cannot be read), else 10% of the time since `Last-Modified`
    /// for a heuristically cacheable status (§4.2.2), else 0.
    var freshnessLifetime: TimeInterval { freshnessLifetime(control: cacheControl) }

    /// ``freshnessLifetime`` with the `Cache-Control` already read.
    func freshnessLifetime(control: CacheControl) -> TimeInterval {
        if let maxAge = control.maxAge { return maxAge }
        if let expires = header("Expires") {
            guard let expiry = Self.httpDate(expires) else { return 0 }
            return expiry.timeIntervalSince(dateValue)
        }
        guard Self.heuristicallyCacheable.contains(status) || control.isPublic,
            let modified = header("Last-Modified").flatMap({ Self.httpDate($0) })
        else { return 0 }
        return max(0, dateValue.timeIntervalSince(modified) / 10)
    }

    /// Whether the lifetime comes from `max-age` or `Expires` rather than a heuristic.
    var hasExplicitLifetime: Bool { cacheControl.maxAge != nil || header("Expires") != nil }

    /// `Date`, or the time the response came back when it has none or it cannot be read.
    var dateValue: Date {
        header("Date").flatMap { Self.httpDate($0) } ?? Date(timeIntervalSince1970: responseTime)
    }

    /// The current age (RFC 9111 §4.2.3) at `now`.
    func age(at now: Date) -> TimeInterval {
        let ageValue =
            header("Age").flatMap { text -> TimeInterval? in
                // The first value, parameters (`7200;foo=bar`) set aside; a value that is not
                // delta-seconds (`7200.0`, `abc`, `-1`) is ignored.
                let first = text.split(separator: ",").first.map { $0.split(separator: ";").first ?? "" } ?? ""
                let trimmed = CacheControl.trimmed(first)
                guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
                return min(Double(trimmed) ?? 2_147_483_648, 2_147_483_648)
            } ?? 0
        let apparentAge = max(0, responseTime - dateValue.timeIntervalSince1970)
        let responseDelay = max(0, responseTime - requestTime)
        let correctedInitialAge = max(apparentAge, ageValue + responseDelay)
        let residentTime = max(0, now.timeIntervalSince1970 - responseTime)
        return correctedInitialAge + residentTime
    }

    /// An HTTP-date in any of its three formats, its names in any case (as browsers read them).
    static func httpDate(_ text: String) -> Date? {
        if let date = RetryAfterHeader.date(from: text) { return date }
        let words = text.split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
            if word.uppercased() == "GMT" { return "GMT" }
            return word.split(separator: "-", omittingEmptySubsequences: false).map { part in
                part.first.map { String($0).uppercased() + part.dropFirst().lowercased() } ?? ""
            }.joined(separator: "-")
        }
        return RetryAfterHeader.date(from: words.joined(separator: " "))
    }

    /// The statuses whose responses may be given a heuristic lifetime (RFC 9110 §15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// The strong or weak entity tag, as sent.
    var etag: String? { header("ETag") }
    var lastModified: String? { header("Last-Modified") }

    /// The response the caller sees, with `extra` headers added.
    func httpResponse(status: Int? = nil, extra: [String: String]) -> HTTPURLResponse {
        var fields = headers
        for (name, value) in extra {
            if let existing = fields.keys.first(where: { $0.lowercased() == name.lowercased() }) {
                fields[existing] = nil
            }
            fields[name] = value
        }
        return HTTPURLResponse(
            url: URL(string: url) ?? URL(string: "about:blank")!, statusCode: status ?? self.status,
            httpVersion: "HTTP/1.1", headerFields: fields)!
    }

    /// The headers a 304 does not replace (RFC 9111 §3.2, and the framing of the 304 itself).
    static let keptOnUpdate: Set<String> = [
        "content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive", "content-range",
        "cache-status",
    ]

    /// This response with its headers updated from a 304 (RFC 9111 §4.3.4).
    func updated(from notModified: HTTPURLResponse, requestTime: TimeInterval, responseTime: TimeInterval)
        -> CachedResponse
    {
        var copy = self
        for (name, value) in Self.headers(of: notModified)
        where !Self.keptOnUpdate.contains(name.lowercased()) {
            if let existing = copy.headers.keys.first(where: { $0.lowercased() == name.lowercased() }) {
                copy.headers[existing] = nil
            }
            copy.headers[name] = value
        }
        copy.requestTime = requestTime
        copy.responseTime = responseTime
        return copy
    }

    /// The headers of `response` as strings.
    static func headers(of response: HTTPURLResponse) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String else { continue }
            fields[name] = value as? String ?? "\(value)"
        }
        return fields
    }

    /// Whether this response (whose `Vary` values were recorded) answers `request`.
    func matches(_ request: URLRequest, credentialHeaders: Set<String>) -> Bool {
        varied.allSatisfy { name, value in
            Self.variedValue(name, of: request, credentialHeaders: credentialHeaders) == value
        }
    }

    /// The value recorded for the request's field `name` (lower-cased) that `Vary` names: a
    /// digest for a credential header (`Vary: Authorization`), never the secret.
    static func variedValue(_ name: String, of request: URLRequest, credentialHeaders: Set<String>) -> String? {
        guard let value = normalized(request.value(forHTTPHeaderField: name)) else { return nil }
        guard credentialHeaders.contains(name) else { return value }
        return "sha256:" + SHA256.hash(Array(value.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// A request header value compared for `Vary`: whitespace around commas dropped.
    static func normalized(_ value: String?) -> String? {
        value.map { $0.split(separator: ",").map { CacheControl.trimmed($0) }.joined(separator: ",") }
    }

    /// The field names `Vary` lists (lower-cased); `nil` for `Vary: *`.
    static func varyNames(_ vary: String?) -> [String]? {
        guard let vary else { return [] }
        let names = vary.split(separator: ",").map { CacheControl.trimmed($0).lowercased() }
            .filter { !$0.isEmpty }
        return names.contains("*") ? nil : names
    }

    /// The size counted against the store's limit.
    var cost: Int {
        body.count
            + headers.reduce(url.utf8.count + key.utf8.count + 64) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    }
}
