/// Where an ``AdHocRequest`` goes, written as a string: an absolute URL, or, with a
/// ``RequestBase``, a path after the base's URL.
///
/// ```swift
/// Request<[User]>.get("https://api.example.com/users")          // an absolute URL
/// Request<User>.get("users/\(id)", on: Api.base)                // a path on a base
/// Request<Data>.get(RequestTarget(avatarURL))                   // a URL held in a variable
/// ```
///
/// On a base, each interpolated value is one percent-encoded path segment (`a/b` → `a%2Fb`), so a
/// value can never change the shape of the path; a `nil` value is left out, and an empty, `.` or
/// `..` value fails the request with ``EndpointError/invalidPathValue(_:value:)``. In an absolute
/// URL the values are written as they are, as in a `String`.
public struct RequestTarget: Sendable, ExpressibleByStringInterpolation {
    /// The text as written, with each value in its place (`nil` for a value that is `nil`).
    enum Part: Sendable {
        case literal(String)
        case value(String?)
    }

    var parts: [Part]

    /// A target with fixed text only.
    public init(stringLiteral value: String) {
        parts = [.literal(value)]
    }

    /// A URL or path held in a variable; on a base, it is written like literal text (a `/` in it
    /// separates segments).
    public init(_ text: String) {
        parts = [.literal(text)]
    }

    /// A target from an interpolated string literal.
    public init(stringInterpolation: StringInterpolation) {
        parts = stringInterpolation.parts
    }

    /// Builds a ``RequestTarget`` from a string literal with values interpolated.
    public struct StringInterpolation: StringInterpolationProtocol {
        var parts: [Part] = []

        /// Creates an empty interpolation.
        public init(literalCapacity: Int, interpolationCount: Int) {
            parts.reserveCapacity(interpolationCount * 2 + 1)
        }

        /// Appends fixed text.
        public mutating func appendLiteral(_ literal: String) {
            guard !literal.isEmpty else { return }
            parts.append(.literal(literal))
        }

        /// Appends `value`: one path segment on a base (`"users/\(id)/posts"`), the value as it is
        /// in an absolute URL.
        public mutating func appendInterpolation<U: ParameterRepresentable>(_ value: U) {
            parts.append(.value(value.parameterValue))
        }
    }

    /// The absolute URL: the text with each value as it is.
    var absoluteURL: String {
        if parts.count == 1, case .literal(let text) = parts[0] { return text }
        var text = ""
        for part in parts {
            switch part {
            case .literal(let literal): text += literal
            case .value(let value): text += value ?? ""
            }
        }
        return text
    }

    /// The path after a base's URL: the text as literal path text, each value a segment of its own.
    var path: PathTemplate<Void> {
        var interpolation = PathTemplate<Void>.StringInterpolation(literalCapacity: 0, interpolationCount: parts.count)
        for part in parts {
            switch part {
            case .literal(let literal): interpolation.appendLiteral(literal)
            case .value(let value): interpolation.appendSegment(value)
            }
        }
        return PathTemplate(stringInterpolation: interpolation)
    }
}
