/// Reads a header field's value one Unicode scalar at a time: the pieces list-based fields are
/// made of (RFC 9110 §5.6: tokens, quoted strings, optional whitespace), for the parsers of `Link`
/// (``WebLink``) and of authentication challenges (`AuthChallenge`).
struct FieldScanner {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    /// The scalar at the read position; `nil` at the end.
    var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    /// The scalar after the read position; `nil` past the end.
    var next: Unicode.Scalar? { index + 1 < scalars.count ? scalars[index + 1] : nil }

    /// Moves past the current scalar.
    mutating func advance() { index += 1 }

    /// Moves past spaces and tabs.
    mutating func skipWhitespace() {
        while let scalar = current, scalar == " " || scalar == "\t" { index += 1 }
    }

    /// The text up to the first scalar in `stops` (not included) or the end.
    mutating func read(until stops: String) -> String {
        let start = index
        while let scalar = current, !stops.unicodeScalars.contains(scalar) { index += 1 }
        return String(String.UnicodeScalarView(scalars[start..<index]))
    }

    /// A quoted-string starting at the read position, without its quotes and with its `\` escapes
    /// taken off; an unterminated one runs to the end.
    mutating func readQuoted() -> String {
        index += 1
        var text = String.UnicodeScalarView()
        while let scalar = current {
            index += 1
            if scalar == "\"" { break }
            if scalar == "\\", let escaped = current {
                index += 1
                text.append(escaped)
            } else {
                text.append(scalar)
            }
        }
        return String(text)
    }
}
