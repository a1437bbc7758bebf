/// The path of an endpoint: fixed text with typed values from ``Endpoint/pathComponents``.
///
/// Write it as a string literal and interpolate key paths with `path:`:
///
/// ```swift
/// struct PostEndpoint: Endpoint {
///     typealias Server = ApiServer
///     struct PathComponents { let userId: Int; let postId: String }
///     struct Response: Decodable { let title: String }
///
///     static let definition: Definition<PostEndpoint> = Definition(
///         method: .get,
///         path: "users/\(path: \.userId)/posts/\(path: \.postId)"
///     )
///     let pathComponents: PathComponents
/// }
/// ```
///
/// or compose it with `+`, which puts a `/` between the pieces: `"users" + \.userId`.
///
/// Each value fills exactly one path segment: it is percent-encoded (`a/b` → `a%2Fb`,
/// `?` → `%3F`, `é` → `%C3%A9`), so it can never change the shape of the path. A value that is
/// empty, `.` or `..` is refused with ``EndpointError/invalidPathValue(_:value:)``.
public struct PathTemplate<T>: Sendable, ExpressibleByStringInterpolation {
    enum Piece: Sendable {
        /// Developer-written text, already encoded.
        case literal(String)
        /// A value read from the components; `name` is for error messages.
        case value(name: String, read: @Sendable (T) -> String?)
    }

    var pieces: [Piece]

    init(pieces: [Piece]) { self.pieces = pieces }

    /// Creates a template with fixed text only.
    public init(stringLiteral value: String) {
        pieces = value.isEmpty ? [] : [.literal(PercentEncoding.encodeLiteralPath(value))]
    }

    /// Creates a template from an interpolated string literal.
    public init(stringInterpolation: StringInterpolation) {
        pieces = stringInterpolation.pieces
    }

    /// Builds a ``PathTemplate`` from a string literal with `\(path: \.keyPath)` interpolations.
    public struct StringInterpolation: StringInterpolationProtocol {
        var pieces: [Piece] = []

        /// Creates an empty interpolation.
        public init(literalCapacity: Int, interpolationCount: Int) {
            pieces.reserveCapacity(interpolationCount * 2 + 1)
        }

        /// Appends fixed path text.
        public mutating func appendLiteral(_ literal: String) {
            guard !literal.isEmpty else { return }
            pieces.append(.literal(PercentEncoding.encodeLiteralPath(literal)))
        }

        /// Appends one path segment read from the components at `path`.
        public mutating func appendInterpolation<U: ParameterRepresentable>(path: any KeyPath<T, U> & Sendable) {
            pieces.append(.value(name: Self.name(of: path)) { $0[keyPath: path].parameterValue })
        }

        static func name(of path: AnyKeyPath) -> String {
            let text = String(describing: path)
            guard let dot = text.lastIndex(of: ".") else { return text }
            return String(text[text.index(after: dot)...])
        }
    }

    /// Joins two templates with a `/` between them (none is added when one is already there).
    public static func + (lhs: PathTemplate, rhs: PathTemplate) -> PathTemplate {
        guard let last = lhs.pieces.last, let first = rhs.pieces.first else {
            return PathTemplate(pieces: lhs.pieces + rhs.pieces)
        }
        let lhsEndsWithSlash: Bool
        if case .literal(let text) = last { lhsEndsWithSlash = text.hasSuffix("/") } else { lhsEndsWithSlash = false }
        let rhsStartsWithSlash: Bool
        if case .literal(let text) = first {
            rhsStartsWithSlash = text.hasPrefix("/")
        } else {
            rhsStartsWithSlash = false
        }
        if lhsEndsWithSlash && rhsStartsWithSlash, case .literal(let text) = first {
            // `"users/" + "/posts"` is `users/posts`, not an empty segment.
            let rest = String(text.dropFirst())
            return PathTemplate(pieces: lhs.pieces + (rest.isEmpty ? [] : [.literal(rest)]) + rhs.pieces.dropFirst())
        }
        let separator: [Piece] = lhsEndsWithSlash || rhsStartsWithSlash ? [] : [.literal("/")]
        return PathTemplate(pieces: lhs.pieces + separator + rhs.pieces)
    }

    /// Appends a segment read from the components: `"users" + \.userId`.
    public static func + <U: ParameterRepresentable>(lhs: PathTemplate, rhs: any KeyPath<T, U> & Sendable)
        -> PathTemplate
    {
        lhs + segment(rhs)
    }

    /// Starts a template with a segment read from the components: `\.userId + "posts"`.
    public static func + <U: ParameterRepresentable>(lhs: any KeyPath<T, U> & Sendable, rhs: PathTemplate)
        -> PathTemplate
    {
        segment(lhs) + rhs
    }

    private static func segment<U: ParameterRepresentable>(_ path: any KeyPath<T, U> & Sendable) -> PathTemplate {
        PathTemplate(pieces: [.value(name: StringInterpolation.name(of: path)) { $0[keyPath: path].parameterValue }])
    }

    /// Writes the encoded path for `components` after `output`.
    func render(_ components: T, into output: inout String) throws(EndpointError) {
        for piece in pieces {
            switch piece {
            case .literal(let text):
                output.append(text)
            case .value(let name, let read):
                guard let value = read(components) else {
                    throw .missingPathValue(name)
                }
                guard !value.isEmpty, value != ".", value != ".." else {
                    throw .invalidPathValue(name, value: value)
                }
                output.append(PercentEncoding.encode(value, as: .component))
            }
        }
    }

    /// The template as text, with `{name}` for each value: `users/{userId}/posts`.
    public var description: String {
        pieces.map { piece in
            switch piece {
            case .literal(let text): text
            case .value(let name, _): "{\(name)}"
            }
        }.joined()
    }
}
