/// Checks on the text of credentials before it goes into a header, shared by the built-in methods.
///
/// The reasons they return name the problem, never the offending value.
enum CredentialText {
    /// Whether `scalar` is a control character (C0, DEL or C1), which no header value may carry.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Whether `text` contains a control character.
    static func containsControl(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: isControl)
    }

    /// Whether `text` is an RFC 9110 token (a header name, a cookie name): ``HTTPToken``'s check.
    static func isToken(_ text: String) -> Bool { HTTPToken.isValid(text) }
}
