import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A stored response: its head, when it was requested and received, the request header values
/// its `Vary` names, and its body (RFC 9111 §3).
struct CachedResponse: Codable, Sendable, Equatable {
    /// The primary key: method, URL and the credential's digest (``HTTPCache``'s `key`).
    var key: String
    /// The credential's digest (hex, ``CacheKeying``), empty without credentials: what a logout
    /// removes.
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

    /// The method and URL of the key (`GET https://…`), without the credential.
    var resource: String { Self.split(key).resource }

    /// A key's method and URL, and the credential's digest after its last space (empty for none).
    static func split(_ key: String) -> (resource: String, credential: String) {
        guard let space = key.lastIndex(of: " ") else { return (key, "") }
        return (String(key[..<space]), String(key[key.index(after: space)...]))
    }

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

    /// The age of a response just received from upstream, sent at `sent` (what its `Age` and
    /// `Date` say, plus the time it took to arrive).
    static func age(of response: HTTPURLResponse, sent: Date, received: Date) -> TimeInterval {
        CachedResponse(
            key: "", credential: "", url: "", status: response.statusCode, headers: headers(of: response), varied: [:],
            requestTime: sent.timeIntervalSince1970, responseTime: received.timeIntervalSince1970, body: Data()
        ).age(at: received)
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
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

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
    /// `Cache-Status` is replaced: it says how the last response from upstream was made.
    static let keptOnUpdate: Set<String> = [
        "content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive", "content-range",
    ]

    /// This response with its headers updated from a 304 (RFC 9111 §4.3.4).
    func updated(from notModified: HTTPURLResponse, requestTime: TimeInterval, responseTime: TimeInterval)
        -> CachedResponse
    {
        updated(with: Self.headers(of: notModified), requestTime: requestTime, responseTime: responseTime)
    }

    /// This response with the fields of a newer response for it (a 304, a `HEAD`'s 200, a part
    /// of it) in place of its own, but for the framing (``keptOnUpdate``), as received then.
    func updated(with fields: [String: String], requestTime: TimeInterval, responseTime: TimeInterval)
        -> CachedResponse
    {
        var copy = self
        for (name, value) in fields where !Self.keptOnUpdate.contains(name.lowercased()) {
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
    func matches(_ request: URLRequest, credentialHeaders: Set<String>, keying: CacheKeying) -> Bool {
        varied.allSatisfy { name, value in
            let current = Self.variedValue(name, of: request, credentialHeaders: credentialHeaders, keying: keying)
            if current == value { return true }
            return name == "accept-language" && Self.language(header("Content-Language"), isFirstChoiceOf: current)
        }
    }

    /// The value recorded for the request's field `name` (lower-cased) that `Vary` names: a
    /// salted digest for a credential header (`Vary: Authorization`), never the secret;
    /// `Accept-Language` in a canonical form (``normalizedLanguages(_:)``).
    static func variedValue(
        _ name: String, of request: URLRequest, credentialHeaders: Set<String>, keying: CacheKeying
    ) -> String? {
        guard let value = normalized(request.value(forHTTPHeaderField: name)) else { return nil }
        if credentialHeaders.contains(name) { return "hmac:" + keying.digest(value) }
        return name == "accept-language" ? normalizedLanguages(value) : value
    }

    /// A request header value compared for `Vary`: whitespace around commas dropped.
    static func normalized(_ value: String?) -> String? {
        value.map { $0.split(separator: ",").map { CacheControl.trimmed($0) }.joined(separator: ",") }
    }

    /// An `Accept-Language` value (RFC 9110 §12.5.4) as the languages it accepts: ranges
    /// lower-cased, `q` written shortest (none for 1), ordered by `q` then name, so that `en, de`,
    /// `de,en` and `DE;q=1.0, en` compare equal. A value that does not parse stays as it was.
    static func normalizedLanguages(_ value: String) -> String {
        guard let ranges = languageRanges(value) else { return value }
        return ranges.sorted { ($1.quality, $0.range) < ($0.quality, $1.range) }.map { range, quality in
            guard quality < 1000 else { return range }
            let digits = String(quality + 1000).dropFirst().reversed().drop { $0 == "0" }.reversed()
            return range + ";q=" + (digits.isEmpty ? "0" : "0." + String(digits))
        }.joined(separator: ",")
    }

    /// The language ranges of an `Accept-Language` value with their `q` in thousandths; `nil`
    /// when one does not parse.
    static func languageRanges(_ value: String) -> [(range: String, quality: Int)]? {
        var ranges: [(range: String, quality: Int)] = []
        for element in value.split(separator: ",") {
            let parts = element.split(separator: ";", omittingEmptySubsequences: false).map {
                CacheControl.trimmed($0)
            }
            guard let range = parts.first?.lowercased(), !range.isEmpty else {
                if parts.allSatisfy(\.isEmpty) { continue }
                return nil
            }
            var quality = 1000
            if parts.count == 2 {
                guard parts[1].lowercased().hasPrefix("q="), let q = qValue(parts[1].dropFirst(2)) else { return nil }
                quality = q
            } else if parts.count > 2 {
                return nil
            }
            ranges.append((range, quality))
        }
        return ranges
    }

    /// A qvalue (RFC 9110 §12.4.2: `0`, `0.5`, `1.000`) in thousandths.
    static func qValue(_ text: Substring) -> Int? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, whole == "0" || whole == "1" else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= 3, fraction.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let thousandths = Int(fraction.padding(toLength: 3, withPad: "0", startingAt: 0))!
        guard whole == "0" || thousandths == 0 else { return nil }
        return whole == "1" ? 1000 : thousandths
    }

    /// Whether `language` (a response's `Content-Language`) is the one language range the
    /// request ranks first (basic filtering, RFC 4647 §3.3.1): a server that chose it for another
    /// `Accept-Language` has it, so it would choose it for this one too.
    static func language(_ language: String?, isFirstChoiceOf accepted: String?) -> Bool {
        guard let language = language.map({ CacheControl.trimmed($0).lowercased() }), !language.isEmpty,
            !language.contains(","), let ranges = accepted.flatMap(languageRanges)
        else { return false }
        guard let best = ranges.map(\.quality).max(), best > 0 else { return false }
        let first = ranges.filter { $0.quality == best }
        guard first.count == 1, let range = first.first?.range, range != "*" else { return false }
        return language == range || language.hasPrefix(range + "-")
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
