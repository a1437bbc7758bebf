import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLRequest {
    /// A `curl` command that reproduces this request when pasted into a POSIX shell (sh, bash, zsh):
    /// the method, URL, headers and body, byte for byte.
    ///
    /// ```swift
    /// var request = URLRequest(url: URL(string: "https://api.example.com/users?q=it's")!)
    /// request.httpMethod = "POST"
    /// request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    /// request.setValue("Bearer abc", forHTTPHeaderField: "Authorization")
    /// request.httpBody = Data(#"{"name":"O'Hara"}"#.utf8)
    /// print(request.cURLDescription())
    /// // curl -X 'POST' 'https://api.example.com/users?q=it'\''s' \
    /// //   -H 'Authorization: <redacted>' \
    /// //   -H 'Content-Type: application/json' \
    /// //   --data-raw '{"name":"O'\''Hara"}'
    /// ```
    ///
    /// Credentials are hidden the same way ``LoggingMiddleware`` hides them, so the line is safe to
    /// share: the standard credential headers, the well-known API-key headers (such as `X-API-Key`
    /// and `X-Client-Key`) and the headers you name in `credentialHeaders`. Inside a middleware,
    /// pass `context.credentialHeaders`, which names every header the endpoint's authentication
    /// set, whatever its name:
    ///
    /// ```swift
    /// struct CURLLogger: Middleware {
    ///     func intercept(
    ///         _ request: URLRequest,
    ///         context: RequestContext,
    ///         next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ///     ) async throws -> (Data, HTTPURLResponse) {
    ///         print(request.cURLDescription(credentialHeaders: context.credentialHeaders))
    ///         return try await next(request)
    ///     }
    /// }
    /// ```
    ///
    /// Pass ``Redaction/disabled`` for a line that sends the real credentials, or reveal names one
    /// by one with ``Redaction/revealing(_:)``.
    ///
    /// Every value is single-quoted (a `'` becomes `'\''`). Text bodies go in `--data-raw`; bodies
    /// with other bytes (binary data, or the CRLFs of `multipart/form-data`) are written with
    /// `printf` octal escapes and piped to `--data-binary @-`, which keeps every byte. A URL that
    /// contains `[`, `]`, `{` or `}` gets `--globoff`. Headers are sorted by name; a header with an
    /// empty value is written `-H 'Name;'`, as `curl` requires. When the body has no `Content-Type`,
    /// `-H 'Content-Type:'` stops `curl` from adding its own.
    ///
    /// - Parameters:
    ///   - redaction: What to hide; ``Redaction/standard`` when omitted.
    ///   - credentialHeaders: More header names to hide (any case), e.g.
    ///     ``RequestContext/credentialHeaders`` or a `HeaderKeyAuth`'s header.
    public func cURLDescription(redaction: Redaction = .standard, credentialHeaders: Set<String> = []) -> String {
        let credentials = Set(credentialHeaders.map { $0.lowercased() })
        var lines: [String] = []
        var command = "curl"
        let method = httpMethod ?? "GET"
        let body = httpBody ?? Data()
        switch method {
        case "GET" where body.isEmpty: break
        case "HEAD": command += " --head"
        default: command += " -X \(CURLQuoting.quote(method))"
        }
        let urlText = url.map(redaction.redactedURL) ?? ""
        if urlText.contains(where: { "[]{}".contains($0) }) { command += " --globoff" }
        command += " \(CURLQuoting.quote(urlText))"

        var hasContentType = false
        let fields = (allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
        for (name, value) in fields {
            if name.lowercased() == "content-type" { hasContentType = true }
            let shown = redaction.headerValue(value, name: name, credentialHeaders: credentials)
            lines.append("-H \(CURLQuoting.quote(shown.isEmpty ? "\(name);" : "\(name): \(shown)"))")
        }

        var prefix = ""
        if !body.isEmpty {
            if !hasContentType { lines.append("-H 'Content-Type:'") }
            let shown = redaction.redactedBody(body, contentType: value(forHTTPHeaderField: "Content-Type"))
            if let text = CURLQuoting.plainText(shown) {
                lines.append("--data-raw \(CURLQuoting.quote(text))")
            } else {
                prefix = "printf '\(CURLQuoting.printfEscaped(shown))' | "
                lines.append("--data-binary @-")
            }
        }
        return ([prefix + command] + lines).joined(separator: " \\\n  ")
    }
}

/// Shell quoting for ``Foundation/URLRequest/cURLDescription(redaction:credentialHeaders:)``.
enum CURLQuoting {
    /// `text` in single quotes, each `'` written as `'\''`.
    ///
    /// Byte by byte: `replacingOccurrences` compares characters, so a `'` followed by a combining
    /// mark (`'\u{301}`) was left unescaped and ended the quoting, letting the rest of the value
    /// run as shell code when the command was pasted.
    static func quote(_ text: String) -> String {
        var output: [UInt8] = [UInt8(ascii: "'")]
        output.reserveCapacity(text.utf8.count + 2)
        for byte in text.utf8 {
            if byte == UInt8(ascii: "'") {
                output.append(contentsOf: #"'\''"#.utf8)
            } else {
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "'"))
        return String(decoding: output, as: UTF8.self)
    }

    /// The body as text when it is UTF-8 made only of printable characters, tabs and LFs (no CR,
    /// which a terminal may change on paste, and no NUL, which no shell argument can hold).
    static func plainText(_ data: Data) -> String? {
        guard let text = String(data: data, encoding: .utf8) else { return nil }
        let plain = text.unicodeScalars.allSatisfy { scalar in
            (scalar.value >= 0x20 && scalar.value != 0x7F) || scalar == "\n" || scalar == "\t"
        }
        return plain ? text : nil
    }

    /// A `printf` format (without quotes) that prints exactly `data`: printable ASCII as itself,
    /// `%` as `%%`, and everything else (including `\`, `'` and a leading `-`) as a three-digit octal escape.
    static func printfEscaped(_ data: Data) -> String {
        var output = ""
        output.reserveCapacity(data.count * 2)
        for (offset, byte) in data.enumerated() {
            switch byte {
            case UInt8(ascii: "-") where offset == 0:
                // A format starting with `-` would be read as an option.
                output += octal(byte)
            case UInt8(ascii: "%"):
                output += "%%"
            case UInt8(ascii: "\\"), UInt8(ascii: "'"):
                output += octal(byte)
            case 0x20...0x7E:
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                output += octal(byte)
            }
        }
        return output
    }

    private static func octal(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 8)
        return "\\" + String(repeating: "0", count: 3 - digits.count) + digits
    }
}
