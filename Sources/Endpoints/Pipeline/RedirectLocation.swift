import Foundation

/// Resolves a redirect's `Location` against the URL that was redirected, per RFC 3986 §5.2
/// (RFC 9110 §10.2.2): `../d` from `/r/a/b` is `/r/d`, `?y=2` is `/r/a/b?y=2`.
///
/// corelibs resolves every relative `Location` against the root (`c` from `/r/a/b` becomes `/c`),
/// so the redirect guard resolves the header itself, the same way on every platform. The text is
/// handled as written: percent-escapes are kept, nothing is re-encoded.
enum RedirectLocation {
    /// Where a redirect whose `Location` field is `location` leads from `base`, or `nil` when there
    /// is none to follow: no field, an empty one (which would name `base` again, to the hop limit)
    /// or one that is not a URL. Such a 3xx is the answer, as URLSession and Go's client hand it over.
    static func target(of location: String?, from base: URL) -> URL? {
        guard let location, location.contains(where: { $0 != " " && $0 != "\t" }) else { return nil }
        return resolve(location, against: base)
    }

    /// The absolute URL `location` refers to from `base`; `nil` when the result is not a valid URL.
    static func resolve(_ location: String, against base: URL) -> URL? {
        let reference = Parts(location.trimmingCharacters(in: .whitespaces))
        let base = Parts(base.absoluteString)
        var target = Parts()
        if let scheme = reference.scheme {
            target = reference
            target.scheme = scheme.lowercased()
            target.path = removeDotSegments(reference.path)
        } else {
            if let authority = reference.authority {
                target.authority = authority
                target.path = removeDotSegments(reference.path)
                target.query = reference.query
            } else {
                if reference.path.isEmpty {
                    target.path = base.path
                    target.query = reference.query ?? base.query
                } else {
                    let path = reference.path.hasPrefix("/") ? reference.path : merge(base, reference.path)
                    target.path = removeDotSegments(path)
                    target.query = reference.query
                }
                target.authority = base.authority
            }
            target.scheme = base.scheme
        }
        target.fragment = reference.fragment
        if target.authority != nil, target.path.isEmpty { target.path = "/" }
        return URL(string: target.text)
    }

    /// The five components of a URI reference (RFC 3986 Appendix B); `nil` means absent, which
    /// differs from empty (`?` with nothing after it is an empty query).
    struct Parts {
        var scheme: String?
        var authority: String?
        var path = ""
        var query: String?
        var fragment: String?

        init() {}

        init(_ text: String) {
            var rest = Substring(text)
            if let hash = rest.firstIndex(of: "#") {
                fragment = String(rest[rest.index(after: hash)...])
                rest = rest[..<hash]
            }
            if let mark = rest.firstIndex(of: "?") {
                query = String(rest[rest.index(after: mark)...])
                rest = rest[..<mark]
            }
            if let colon = rest.firstIndex(of: ":"), Self.isScheme(rest[..<colon]) {
                scheme = String(rest[..<colon])
                rest = rest[rest.index(after: colon)...]
            }
            if rest.hasPrefix("//") {
                rest = rest.dropFirst(2)
                let end = rest.firstIndex(of: "/") ?? rest.endIndex
                authority = String(rest[..<end])
                rest = rest[end...]
            }
            path = String(rest)
        }

        /// `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
        static func isScheme(_ text: Substring) -> Bool {
            guard let first = text.unicodeScalars.first, first.isASCIILetter else { return false }
            return text.unicodeScalars.allSatisfy { scalar in
                scalar.isASCIILetter || ("0"..."9").contains(scalar) || "+-.".unicodeScalars.contains(scalar)
            }
        }

        /// The components recomposed (RFC 3986 §5.3).
        var text: String {
            var result = ""
            if let scheme { result += scheme + ":" }
            if let authority { result += "//" + authority }
            result += path
            if let query { result += "?" + query }
            if let fragment { result += "#" + fragment }
            return result
        }
    }

    /// RFC 3986 §5.2.3.
    static func merge(_ base: Parts, _ path: String) -> String {
        if base.authority != nil, base.path.isEmpty { return "/" + path }
        guard let slash = base.path.lastIndex(of: "/") else { return path }
        return base.path[...slash] + path
    }

    /// RFC 3986 §5.2.4: `.` and `..` segments removed, `..` above the root ignored.
    static func removeDotSegments(_ path: String) -> String {
        var input = Substring(path)
        var output: [Substring] = []
        while !input.isEmpty {
            if input.hasPrefix("../") {
                input = input.dropFirst(3)
            } else if input.hasPrefix("./") {
                input = input.dropFirst(2)
            } else if input.hasPrefix("/./") {
                input = input.dropFirst(2)
            } else if input == "/." {
                input = "/"
            } else if input.hasPrefix("/../") {
                input = input.dropFirst(3)
                if !output.isEmpty { output.removeLast() }
            } else if input == "/.." {
                input = "/"
                if !output.isEmpty { output.removeLast() }
            } else if input == "." || input == ".." {
                input = ""
            } else {
                // Move the first segment, with its leading "/" if any, to the output.
                let start = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[start...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return output.joined()
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
