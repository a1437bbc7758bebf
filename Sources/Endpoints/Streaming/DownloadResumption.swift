import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a resumable download knows of the bytes an earlier attempt kept, what it asks the server
/// for, and what each answer means (RFC 9110 §13.1.5, §14): the state of one download call,
/// changed here only, by the request each send makes (``ask(for:hasRange:)``) and the answer that
/// came back (``receive(status:field:)``, ``refused(status:)``).
///
/// Kept bytes are asked for from where they end, `Range: bytes=N-`, with their validator as
/// `If-Range`, so that a changed resource comes back whole (a 200) instead of as a part of
/// something else. A part is kept only when the response it came from can be validated: a strong
/// entity tag, or a `Last-Modified` at least a second before the response's `Date` (RFC 9110
/// §8.8.2.2), and no `Content-Encoding` (the kept bytes are decoded, a range counts encoded ones).
struct DownloadResumption: Sendable, Equatable {
    /// What the kept bytes are a part of: written beside them, read back by the next attempt.
    struct Record: Codable, Sendable, Equatable {
        /// The SHA-256 of the URL the part came from (the URL itself may carry a secret).
        var url: String
        /// The `ETag` or `Last-Modified` the part came with, sent back as `If-Range`.
        var validator: String
        /// The length of the whole, from the `Content-Length` of the response the part came
        /// from, when it had one: a part of another length is of something else.
        var length: Int64?
    }

    /// What to do with an accepted answer's body.
    enum Action: Equatable {
        /// The answer continues the kept bytes: append its body. `total` is the whole
        /// representation's length, when known.
        case append(total: Int64?)
        /// Write the body from the start; keep it for a later attempt under `record` if it fails
        /// (`nil`: it cannot be resumed).
        case restart(record: Record?)
        /// The answer neither continues the kept bytes nor replaces them (a part elsewhere, or
        /// encoded): drop it, and ask again for the whole.
        case askWhole
    }

    /// The record of the kept bytes; `nil` when nothing resumable is kept.
    private(set) var record: Record?
    /// How many bytes are kept.
    private(set) var kept: Int64
    /// Where the latest send asked the body to start (`nil`: the whole), and the key of its URL.
    private(set) var asked: Int64?
    private var sentURL: String?
    /// After an answer that could not continue the kept bytes: asks for the whole from now on.
    private var wholeOnly = false

    init(record: Record?, kept: Int64) {
        self.record = kept > 0 ? record : nil
        self.kept = self.record == nil ? 0 : kept
    }

    /// The key a record holds for `url`.
    static func key(of url: URL?) -> String {
        Hex.lowercase(SHA256.hash(Array((url?.absoluteString ?? "").utf8)))
    }

    /// A send of `url` is being made: the `Range` and `If-Range` it carries, or `nil` to ask for
    /// the whole (nothing kept, kept from another URL, or the request sets its own `Range`).
    mutating func ask(for url: URL?, hasRange: Bool) -> (range: String, ifRange: String)? {
        let key = Self.key(of: url)
        sentURL = key
        guard !wholeOnly, !hasRange, let record, record.url == key, kept > 0 else {
            asked = nil
            return nil
        }
        asked = kept
        return ("bytes=\(kept)-", record.validator)
    }

    /// An accepted answer arrived, its `status` and its header fields (`field` reads one by
    /// name, in any case): what to do with its body.
    mutating func receive(status: Int, field: (String) -> String?) -> Action {
        if let asked, status == 206 {
            let range = field("Content-Range").flatMap(ContentRange.init)
            let tag = field("ETag").map(CacheControl.trimmed)
            // A part of another representation (its entity tag not the kept bytes') would not fit.
            let sameTag =
                tag == nil
                || (record.map { CachedResponse.httpDate($0.validator) != nil || $0.validator == tag } ?? true)
            // A length that differs from the whole's, or from the range's own, would not fit either.
            let length = range?.completeLength.map(Int64.init)
            let sameLength = length == nil || record?.length == nil || length == record?.length
            let bodyFits = range.map { range in Self.length(field).map { $0 == range.range.count } ?? true } ?? false
            guard let range, Int64(range.range.lowerBound) == asked,
                !ResponseFraming.namesACoding(field("Content-Encoding")), sameTag, sameLength,
                bodyFits
            else {
                wholeOnly = true
                return .askWhole
            }
            return .append(total: length)
        }
        // A whole answer (or a part of the caller's own `Range`): written from the start.
        let validator = status == 200 ? Self.validator(field) : nil
        record = validator.map {
            Record(url: sentURL ?? Self.key(of: nil), validator: $0, length: Self.length(field).map(Int64.init))
        }
        kept = 0
        return .restart(record: record)
    }

    /// A status the endpoint does not accept arrived: whether to ask again for the whole (a 416
    /// to the kept bytes' range: they no longer fit the resource). The kept bytes stay otherwise.
    mutating func refused(status: Int) -> Bool {
        guard asked != nil, status == 416, !wholeOnly else { return false }
        wholeOnly = true
        return true
    }

    /// The answer's validator for a later `If-Range`: its entity tag when strong, else its
    /// `Last-Modified` when that is a second or more before its `Date`; `nil` for an encoded body.
    static func validator(_ field: (String) -> String?) -> String? {
        guard !ResponseFraming.namesACoding(field("Content-Encoding")) else { return nil }
        if let tag = field("ETag").map(CacheControl.trimmed), !tag.isEmpty, !tag.hasPrefix("W/"),
            isSendable(tag)
        {
            return tag
        }
        guard let text = field("Last-Modified").map(CacheControl.trimmed),
            let modified = CachedResponse.httpDate(text),
            let date = field("Date").flatMap(CachedResponse.httpDate),
            date.timeIntervalSince(modified) >= 1, isSendable(text)
        else { return nil }
        return text
    }

    /// Whether `validator` can go back in an `If-Range`: printable ASCII (no line break, nothing
    /// a header's encoding could change) and at most 1 KiB, so that a server's outsized tag never
    /// makes every later attempt's head too large to be taken.
    static func isSendable(_ validator: String) -> Bool {
        validator.utf8.count <= 1024 && validator.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }

    /// The body's `Content-Length`, when it has a valid one.
    private static func length(_ field: (String) -> String?) -> Int? {
        field("Content-Length").map(CacheControl.trimmed).flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
    }

}

extension Locked<DownloadResumption> {
    /// `request` asking for the rest of the kept bytes, as each send of a resumable download
    /// does when they are of its URL: `Range` from where they end, `If-Range` with their
    /// validator, and `Accept-Encoding: identity` unless the request names its codings (the kept
    /// bytes are unencoded). Applied to the built request, before authentication and middleware,
    /// which see these fields as the endpoint's own (logging shows them).
    func asking(_ request: URLRequest) -> URLRequest {
        let hasRange = request.value(forHTTPHeaderField: "Range") != nil
        guard let asked = withLock({ $0.ask(for: request.url, hasRange: hasRange) }) else { return request }
        var request = request
        request.setValue(asked.range, forHTTPHeaderField: "Range")
        request.setValue(asked.ifRange, forHTTPHeaderField: "If-Range")
        if request.value(forHTTPHeaderField: "Accept-Encoding") == nil {
            request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
        return request
    }
}
