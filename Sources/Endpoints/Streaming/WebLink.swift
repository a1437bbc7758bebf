import Foundation

/// One link of an HTTP `Link` header (RFC 8288), such as `<https://api.example.com/items?page=2>; rel="next"`.
///
/// ```swift
/// let links = WebLink.parse(
///     #"</items?page=2>; rel="next", </items?page=9>; rel=last"#,
///     relativeTo: URL(string: "https://api.example.com/items")!
/// )
/// links.first { $0.relations.contains("next") }?.target   // https://api.example.com/items?page=2
/// ```
struct WebLink: Sendable, Hashable {
    /// The link target, resolved against the URL the header came with.
    var target: URL
    /// The relation types of the `rel` parameter, lower-cased: `rel="next last"` is `["next", "last"]`.
    var relations: [String]
    /// Every parameter by its lower-cased name, unquoted, the first occurrence of each; a parameter
    /// without a value maps to `""`.
    var parameters: [String: String]

    /// Creates a link.
    init(target: URL, relations: [String], parameters: [String: String] = [:]) {
        self.target = target
        self.relations = relations
        self.parameters = parameters
    }

    /// The links in `header`, a `Link` field value (several fields joined with commas are one value).
    ///
    /// Relative targets are resolved against `base`, the URL of the response. A link whose target
    /// does not parse as a URL is left out, and so is a malformed part of the value; parsing goes
    /// on with the next link.
    static func parse(_ header: String, relativeTo base: URL? = nil) -> [WebLink] {
        var scanner = LinkScanner(header)
        var links: [WebLink] = []
        while let link = scanner.nextLink(relativeTo: base) {
            if let link { links.append(link) }
        }
        return links
    }

    /// The target of the first link in `header` whose relations include `relation` (compared
    /// without case), resolved against `base`.
    ///
    /// ```swift
    /// let next = WebLink.target(of: "next", in: response.value(forHTTPHeaderField: "Link") ?? "", relativeTo: url)
    /// ```
    static func target(of relation: String, in header: String, relativeTo base: URL? = nil) -> URL? {
        let relation = relation.lowercased()
        return parse(header, relativeTo: base).first { $0.relations.contains(relation) }?.target
    }
}

/// Reads link-values one at a time, recovering at the next top-level comma after a malformed one.
private struct LinkScanner {
    private var field: FieldScanner

    init(_ header: String) { field = FieldScanner(header) }

    /// The next link: `nil` at the end, `.some(nil)` for a malformed link that was skipped.
    mutating func nextLink(relativeTo base: URL?) -> WebLink?? {
        while true {
            field.skipWhitespace()
            guard let scalar = field.current else { return nil }
            if scalar == "," {
                field.advance()
                continue
            }
            guard scalar == "<" else {
                skipToNextLink()
                return .some(nil)
            }
            break
        }
        field.advance()
        let reference = field.read(until: ">")
        guard field.current == ">" else { return .some(nil) }
        field.advance()
        let parameters = readParameters()
        let trimmed = reference.trimmingCharacters(in: .whitespaces)
        guard let url = URL(string: trimmed, relativeTo: base)?.absoluteURL else { return .some(nil) }
        let relations = (parameters["rel"] ?? "").lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" })
        return .some(WebLink(target: url, relations: relations.map(String.init), parameters: parameters))
    }

    /// `; name[=value]` pairs up to the comma that ends the link (or the end).
    private mutating func readParameters() -> [String: String] {
        var parameters: [String: String] = [:]
        while true {
            field.skipWhitespace()
            guard let scalar = field.current else { return parameters }
            if scalar == "," {
                field.advance()
                return parameters
            }
            guard scalar == ";" else {
                skipToNextLink()
                return parameters
            }
            field.advance()
            field.skipWhitespace()
            let name = field.read(until: ";,= \t").lowercased()
            field.skipWhitespace()
            var value = ""
            if field.current == "=" {
                field.advance()
                field.skipWhitespace()
                value = field.current == "\"" ? field.readQuoted() : field.read(until: ";, \t")
            }
            if !name.isEmpty, parameters[name] == nil { parameters[name] = value }
        }
    }

    /// Skips to just after the next comma outside quotes and angle brackets.
    private mutating func skipToNextLink() {
        var inQuotes = false
        var inBrackets = false
        while let scalar = field.current {
            field.advance()
            if inQuotes {
                if scalar == "\\" {
                    field.advance()
                } else if scalar == "\"" {
                    inQuotes = false
                }
            } else if scalar == "\"" {
                inQuotes = true
            } else if scalar == "<" {
                inBrackets = true
            } else if scalar == ">" {
                inBrackets = false
            } else if scalar == ",", !inBrackets {
                return
            }
        }
    }
}
