import Foundation

/// The directives of a `Cache-Control` header (RFC 9111 §5.2), as a cache reads them.
///
/// A directive that cannot be read is handled as the RFC says: a `max-age` that is not a
/// non-negative integer makes the response stale (`max-age=0`), a value beyond 2³¹ is taken as
/// 2³¹, and when a directive appears twice with different values the first is used.
struct CacheControl: Sendable, Equatable {
    /// The directives by lower-cased name, with their value (`nil` for none), in order.
    private(set) var directives: [(name: String, value: String?)] = []

    init(_ header: String?) {
        guard let header else { return }
        for part in Self.split(header) {
            let trimmed = CacheControl.trimmed(part)
            guard !trimmed.isEmpty else { continue }
            if let equals = trimmed.firstIndex(of: "=") {
                // No whitespace around `=` (RFC 9111 §5.2): `max-age =5` names another directive,
                // and `max-age= 5` has a value that is not delta-seconds.
                let name = trimmed[..<equals].lowercased()
                var value = String(trimmed[trimmed.index(after: equals)...])
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                    value = String(value.dropFirst().dropLast())
                }
                directives.append((name, value))
            } else {
                directives.append((trimmed.lowercased(), nil))
            }
        }
    }

    /// `text` without the spaces and tabs around it (cheaper than Foundation's trimming, which
    /// goes through `NSString` on Linux: this runs on every hit).
    static func trimmed(_ text: some StringProtocol) -> String {
        let text = Substring(text)
        let utf8 = text.utf8
        guard let first = utf8.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return "" }
        let last = utf8.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })!
        return String(text[first...last])
    }

    static func == (lhs: CacheControl, rhs: CacheControl) -> Bool {
        lhs.directives.elementsEqual(rhs.directives) { $0.name == $1.name && $0.value == $1.value }
    }

    /// Splits on commas outside quoted strings.
    private static func split(_ header: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        for character in header {
            if character == "\"" { quoted.toggle() }
            if character == ",", !quoted {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts
    }

    /// Whether `name` is present, with or without a value.
    func has(_ name: String) -> Bool { directives.contains { $0.name == name } }

    /// The seconds of a delta-seconds directive: `nil` when absent, 0 when it cannot be read
    /// (negative, not a number, no value), at most 2³¹ (RFC 9111 §1.2.2).
    func seconds(_ name: String) -> TimeInterval? {
        guard let directive = directives.first(where: { $0.name == name }) else { return nil }
        return Self.deltaSeconds(directive.value)
    }

    /// A delta-seconds value: the ASCII digits it starts with (`3600.5` and `100a` are read as
    /// 3600 and 100, as Firefox and Safari read them); 0 when it starts with none, 2³¹ at most.
    static func deltaSeconds(_ text: String?) -> TimeInterval? {
        let digits = Array((text ?? "").utf8.prefix { $0 >= 0x30 && $0 <= 0x39 })
        guard !digits.isEmpty else { return 0 }
        guard let value = Double(String(decoding: digits, as: UTF8.self)) else { return 2_147_483_648 }
        return min(value, 2_147_483_648)
    }

    /// `no-store`.
    var noStore: Bool { has("no-store") }
    /// `no-cache` without field names: always revalidate.
    var noCache: Bool { directives.contains { $0.name == "no-cache" && ($0.value ?? "").isEmpty } }
    /// The fields `no-cache="…"` names (lower-cased): stored without them, the rest reused.
    var noCacheFields: [String] {
        directives.filter { $0.name == "no-cache" }.flatMap { ($0.value ?? "").split(separator: ",") }
            .map { CacheControl.trimmed($0).lowercased() }.filter { !$0.isEmpty }
    }
    /// `must-revalidate` (or `proxy-revalidate`, which a private cache may honour alike).
    var mustRevalidate: Bool { has("must-revalidate") }
    /// `max-age`.
    var maxAge: TimeInterval? { seconds("max-age") }
    /// `immutable` (RFC 8246).
    var immutable: Bool { has("immutable") }
    /// `public`.
    var isPublic: Bool { has("public") }
    /// `private` (a private cache may store such a response).
    var isPrivate: Bool { has("private") }
    /// `only-if-cached` (request).
    var onlyIfCached: Bool { has("only-if-cached") }
    /// `min-fresh` (request).
    var minFresh: TimeInterval? { seconds("min-fresh") }
    /// `max-stale` (request): `.infinity` without a value.
    var maxStale: TimeInterval? {
        guard let directive = directives.first(where: { $0.name == "max-stale" }) else { return nil }
        guard directive.value != nil else { return .infinity }
        return Self.deltaSeconds(directive.value)
    }
    /// `stale-while-revalidate` (RFC 5861).
    var staleWhileRevalidate: TimeInterval? { seconds("stale-while-revalidate") }
    /// `stale-if-error` (RFC 5861).
    var staleIfError: TimeInterval? { seconds("stale-if-error") }
}
