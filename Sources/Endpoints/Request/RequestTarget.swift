import Foundation

/// Where an ``AdHocRequest`` goes, written as a string: an absolute URL, or, with a
/// ``RequestBase``, a path after the base's URL.
///
/// ```swift
/// Request<[User]>.get("https://api.example.com/users")          // an absolute URL
/// Request<User>.get("users/\(id)", on: Api.base)                // a path on a base
/// Request<Data>.get(RequestTarget(avatarURL))                   // a URL or String in a variable
/// ```
///
/// On a base, each interpolated value is one percent-encoded path segment (`a/b` → `a%2Fb`), so a
/// value can never change the shape of the path; a `nil` value is left out, and an empty, `.` or
/// `..` value fails the request with ``EndpointError/invalidPathValue(_:value:)``. In an absolute
/// URL the values are written as they are, as in a `String`.
public struct RequestTarget: Sendable, ExpressibleByStringInterpolation {
    /// The text as written, literals unencoded, each value a segment (`nil` for a value that is
    /// `nil`): the pieces of the path on a base once its literals are encoded, which most need not be.
    var pieces: [PathTemplate<Void>.Piece]

    /// A target with fixed text only.
    public init(stringLiteral value: String) {
        pieces = value.isEmpty ? [] : [.literal(value)]
    }

    /// A URL or path held in a variable; on a base, it is written like literal text (a `/` in it
    /// separates segments).
    public init(_ text: String) {
        self.init(stringLiteral: text)
    }

    /// An absolute URL held in a `URL`, sent as it is (its percent-encoding kept).
    public init(_ url: URL) {
        self.init(stringLiteral: url.absoluteString)
    }

    /// A target from an interpolated string literal.
    public init(stringInterpolation: StringInterpolation) {
        pieces = stringInterpolation.pieces
    }

    /// Builds a ``RequestTarget`` from a string literal with values interpolated.
    public struct StringInterpolation: StringInterpolationProtocol {
        var pieces: [PathTemplate<Void>.Piece] = []
        private var values = 0

        /// Creates an empty interpolation.
        public init(literalCapacity: Int, interpolationCount: Int) {
            pieces.reserveCapacity(interpolationCount * 2 + 1)
        }

        /// Appends fixed text.
        public mutating func appendLiteral(_ literal: String) {
            guard !literal.isEmpty else { return }
            pieces.append(.literal(literal))
        }

        /// Appends `value`: one path segment on a base (`"users/\(id)/posts"`), named `{1}` for the
        /// first value in errors; the value as it is in an absolute URL.
        public mutating func appendInterpolation<U: ParameterRepresentable>(_ value: U) {
            values += 1
            pieces.append(.segment(place: values, text: value.parameterValue))
        }
    }

    /// The absolute URL: the text with each value as it is.
    var absoluteURL: String {
        if pieces.count == 1, case .literal(let text) = pieces[0] { return text }
        var text = ""
        for piece in pieces {
            switch piece {
            case .literal(let literal): text += literal
            case .segment(_, let value): text += value ?? ""
            case .value: break  // not made by a target
            }
        }
        return text
    }

    /// The path after a base's URL: the text as literal path text, each value a segment of its own.
    var path: PathTemplate<Void> {
        var pieces = pieces
        // Encoded as an endpoint's path literals are; most need nothing, and the array is shared.
        for index in pieces.indices {
            if case .literal(let text) = pieces[index], !PercentEncoding.isPlainLiteralPath(text) {
                pieces[index] = PathTemplate.literal(text)
            }
        }
        return PathTemplate(pieces: pieces)
    }
}
