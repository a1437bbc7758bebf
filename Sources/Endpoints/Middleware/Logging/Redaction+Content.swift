import Foundation

extension Redaction {
    /// `url` as text with credentials in its user info and sensitive query item values hidden.
    ///
    /// ```swift
    /// Redaction.standard.redactedURL(URL(string: "https://u:p@host/a?token=abc&q=1")!)
    /// // "https://<redacted>@host/a?token=<redacted>&q=1"
    /// ```
    func redactedURL(_ url: URL) -> String {
        redactedURLText(url.absoluteString)
    }

    /// Works on the text so that nothing is re-encoded: only user info and query values change.
    func redactedURLText(_ text: String) -> String {
        guard isEnabled else { return text }
        var rest = Substring(text)
        var fragment: Substring = ""
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[hash...]
            rest = rest[..<hash]
        }
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var head = String(rest)
        if let scheme = head.range(of: "://") {
            let authorityEnd = head[scheme.upperBound...].firstIndex(of: "/") ?? head.endIndex
            if let at = head[scheme.upperBound..<authorityEnd].lastIndex(of: "@") {
                head.replaceSubrange(scheme.upperBound..<at, with: Redaction.placeholder)
            }
        }
        if let query { head += "?" + redactedForm(String(query)) }
        return head + fragment
    }

    /// `body` with sensitive fields hidden, judged by `contentType` and by its shape: JSON (at any
    /// depth), `application/x-www-form-urlencoded` and `multipart/form-data`. Returns the original
    /// bytes when there is nothing to hide, so unchanged bodies keep their exact formatting.
    ///
    /// ```swift
    /// let shown = Redaction.standard.redactedBody(Data(#"{"user":"ada","password":"x"}"#.utf8),
    ///                                             contentType: "application/json")
    /// // {"password":"<redacted>","user":"ada"}
    /// ```
    func redactedBody(_ body: Data, contentType: String?) -> Data {
        guard isEnabled, !body.isEmpty else { return body }
        let type = contentType?.lowercased() ?? ""
        if type.hasPrefix("multipart/"), let boundary = Redaction.boundary(in: contentType ?? "") {
            return redactedMultipart(body, boundary: boundary)
        }
        if type.contains("x-www-form-urlencoded"), let text = String(data: body, encoding: .utf8) {
            let redacted = redactedForm(text)
            return redacted == text ? body : Data(redacted.utf8)
        }
        if type.contains("json") || Redaction.looksLikeJSON(body) {
            if let redacted = redactedJSON(body) { return redacted }
            return redactedJSONText(body) ?? body
        }
        return body
    }

    /// For text that looks like JSON but does not parse (cut off, or slightly malformed): hides the
    /// string values of `"name": "value"` pairs with sensitive names. `nil` when nothing was hidden.
    func redactedJSONText(_ body: Data) -> Data? {
        guard let text = String(data: body, encoding: .utf8),
            let pattern = try? NSRegularExpression(pattern: #""((?:[^"\\]|\\.)*)"\s*:\s*"((?:[^"\\]|\\.)*)""#)
        else { return nil }
        let source = text as NSString
        var output = ""
        var cursor = 0
        for match in pattern.matches(in: text, range: NSRange(location: 0, length: source.length)) {
            let name = source.substring(with: match.range(at: 1))
            guard hidesField(name) else { continue }
            let value = match.range(at: 2)
            output += source.substring(with: NSRange(location: cursor, length: value.location - cursor))
            output += Redaction.placeholder
            cursor = value.location + value.length
        }
        guard cursor > 0 else { return nil }
        output += source.substring(from: cursor)
        return Data(output.utf8)
    }

    /// Hides the values of sensitive `name=value` pairs in a `&`-separated form or query string.
    func redactedForm(_ text: String) -> String {
        var changed = false
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let rawName = String(parts[0])
            let name = rawName.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? rawName
            guard parts.count == 2, hidesField(name) else { return String(pair) }
            changed = true
            return "\(rawName)=\(Redaction.placeholder)"
        }
        return changed ? pairs.joined(separator: "&") : text
    }

    /// The JSON with sensitive fields hidden, or `nil` when it is not JSON or nothing was hidden.
    func redactedJSON(_ body: Data) -> Data? {
        guard let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
            return nil
        }
        var changed = false
        let redacted = redact(object, changed: &changed)
        guard changed else { return nil }
        return try? JSONSerialization.data(withJSONObject: redacted, options: [.sortedKeys, .fragmentsAllowed])
    }

    private func redact(_ value: Any, changed: inout Bool) -> Any {
        if let dictionary = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, child) in dictionary {
                if hidesField(key) {
                    result[key] = Redaction.placeholder
                    changed = true
                } else {
                    result[key] = redact(child, changed: &changed)
                }
            }
            return result
        }
        if let array = value as? [Any] {
            return array.map { redact($0, changed: &changed) }
        }
        return value
    }

    /// Hides the content of multipart parts whose `name` is sensitive; other bytes are kept as they are.
    func redactedMultipart(_ body: Data, boundary: String) -> Data {
        let delimiter = Data("--\(boundary)".utf8)
        let headerEnd = Data("\r\n\r\n".utf8)
        var output = Data()
        var changed = false
        var cursor = body.startIndex
        while let range = body.range(of: delimiter, in: cursor..<body.endIndex) {
            // The part runs from `cursor` up to the CRLF before this delimiter.
            let part = body[cursor..<range.lowerBound]
            if let split = part.range(of: headerEnd),
                let head = String(data: part[part.startIndex..<split.lowerBound], encoding: .utf8),
                let name = Redaction.dispositionName(in: head), hidesField(name)
            {
                output.append(part[part.startIndex..<split.upperBound])
                output.append(Data(Redaction.placeholder.utf8))
                output.append(Data("\r\n".utf8))
                changed = true
            } else {
                output.append(part)
            }
            output.append(delimiter)
            cursor = range.upperBound
        }
        output.append(body[cursor..<body.endIndex])
        return changed ? output : body
    }

    static func boundary(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else {
                continue
            }
            return pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }

    static func dispositionName(in head: String) -> String? {
        for line in head.components(separatedBy: "\r\n") where line.lowercased().hasPrefix("content-disposition") {
            for parameter in line.split(separator: ";").dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "name" else {
                    continue
                }
                return pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                    in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }

    static func looksLikeJSON(_ body: Data) -> Bool {
        let first = body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }
}
