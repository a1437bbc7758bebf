/// A value that is never shown: its description, its debug description and its mirror all read
/// `<redacted>`, and the mirror has no children, so `dump` stops there.
///
/// The built-in methods keep their secrets in it, so their default reflection shows the other
/// fields and `<redacted>` in place of the secret: `print(auth)`, `"\(auth)"`,
/// `String(reflecting: auth)`, `dump(auth)` and `Mirror(reflecting: auth)` alike. Mirrors that
/// are written out (``JWTAuth``'s, ``OAuth``'s) put one in place of a token for the same reading.
struct Secret<Value: Sendable>: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret itself, for the code that sends it.
    let value: Value

    init(_ value: Value) { self.value = value }

    /// `<redacted>`.
    var description: String { "<redacted>" }

    /// `<redacted>`, which is what a containing value's description shows for this field.
    var debugDescription: String { "<redacted>" }

    /// No children, so reflection cannot reach the value.
    var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension Secret: Equatable where Value: Equatable {}
extension Secret: Hashable where Value: Hashable {}

extension Secret<Void> {
    /// `<redacted>`, for a written-out mirror: it stands in for a secret without holding a copy.
    static var placeholder: Secret<Void> { Secret(()) }

    /// ``placeholder`` when `value` is present, `nil` when it is not (so a reader can tell
    /// whether there is a secret, not what it is).
    static func placeholder(for value: (some Any)?) -> Any {
        value == nil ? (nil as Secret<Void>? as Any) : placeholder
    }
}

extension Optional {
    /// The wrapped value, or `nil`: what a written-out mirror shows for an optional field, so that
    /// the description derived from it reads `expiresAt: 2026-01-01 …` rather than `Optional(…)`.
    var reflected: Any { map { $0 as Any } ?? (self as Any) }
}
