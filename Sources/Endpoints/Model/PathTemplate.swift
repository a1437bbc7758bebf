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
/// Two templates join with `+`, such as a prefix shared by several endpoints:
/// `userPrefix + "posts/\(path: \.postId)"`.
///
/// The rules are those of Endpoints 0.4:
/// - Each interpolated value is its own path segment: a `/` is put before and after it where the
///   text around it has none, so `"v\(path: \.n)"` is `v/2` and `"\(path: \.n)posts"` is `2/posts`.
///   `\(path: \.n, includesSlash: false)` instead joins the value to the text before it and to
///   the piece after it: `"item('\(path: \.id, includesSlash: false)')"` is `item('42')`.
/// - `+` puts one `/` between two templates: `"users" + "posts"` is `users/posts`.
/// - A value whose ``ParameterRepresentable/parameterValue`` is `nil` (an optional that is `nil`)
///   is left out with its `/`: `"tags/\(path: \.tag)"` is `tags` when `tag` is `nil`.
/// - An empty segment (`//`) is written as one `/`.
///
/// Each value is percent-encoded as one segment (`a/b` → `a%2Fb`, `?` → `%3F`, `é` → `%C3%A9`),
/// so it can never add or remove segments. A value that is empty, `.` or `..` is refused with
/// ``EndpointError/invalidPathValue(_:value:)``.
public struct PathTemplate<T>: Sendable, ExpressibleByStringInterpolation {
    enum Piece: Sendable {
        /// Developer-written text, already encoded.
        case literal(String)
        /// A value read from the components; `name` is for error messages. `includesSlash` makes
        /// it a segment of its own; `false` joins it to the text around it.
        case value(name: String, includesSlash: Bool, read: @Sendable (T) -> String?)
        /// A value given as it is, a segment of its own (an ad-hoc request's `"users/\(id)"`);
        /// it is named by its place among the values, `{1}` for the first. Stored rather than
        /// captured in a closure, and named only when a name is needed.
        case segment(place: Int, text: String?)
    }

    var pieces: [Piece]

    init(pieces: [Piece]) { self.pieces = pieces }

    /// Creates a template with fixed text only.
    public init(stringLiteral value: String) {
        pieces = value.isEmpty ? [] : [PathTemplate.literal(value)]
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
            reserve(interpolationCount: interpolationCount)
        }

        /// Appends fixed path text.
        public mutating func appendLiteral(_ literal: String) {
            append(literal: literal)
        }

        // Inlined so that the overloads for `Void` (an ad-hoc request's path) are compiled for it.
        @inline(__always)
        mutating func reserve(interpolationCount: Int) {
            pieces.reserveCapacity(interpolationCount * 2 + 1)
        }

        @inline(__always)
        mutating func append(literal: String) {
            guard !literal.isEmpty else { return }
            pieces.append(PathTemplate.literal(literal))
        }

        /// Appends a value read from the components at `path`.
        ///
        /// - Parameters:
        ///   - path: Where the value is in ``Endpoint/PathComponents``.
        ///   - includesSlash: `true` (the default) makes the value a segment of its own, adding a
        ///     `/` before and after it where the text has none; `false` joins it to the text
        ///     before it and to the piece after it, as in `"item('\(path: \.id, includesSlash: false)')"`.
        public mutating func appendInterpolation<U: ParameterRepresentable>(
            path: any KeyPath<T, U> & Sendable,
            includesSlash: Bool = true
        ) {
            pieces.append(PathTemplate.value(path, includesSlash: includesSlash))
        }
    }

    static func value<U: ParameterRepresentable>(_ path: any KeyPath<T, U> & Sendable, includesSlash: Bool) -> Piece {
        .value(name: name(of: path), includesSlash: includesSlash) { $0[keyPath: path].parameterValue }
    }

    static func name(of path: AnyKeyPath) -> String {
        let text = String(describing: path)
        guard let dot = text.lastIndex(of: ".") else { return text }
        return String(text[text.index(after: dot)...])
    }

    /// Joins two templates with a `/` between them (one `/` when either already has it).
    public static func + (lhs: PathTemplate, rhs: PathTemplate) -> PathTemplate {
        PathTemplate(pieces: lhs.pieces + rhs.pieces)
    }

    /// The path for `components`, as it is appended to the server's base URL.
    ///
    /// ```swift
    /// let template: PathTemplate<Post> = "users/\(path: \.userId)/posts"
    /// #expect(try template.path(with: Post(userId: 42)) == "users/42/posts")
    /// ```
    /// - Throws: ``EndpointError/invalidPathValue(_:value:)`` for a value that is empty, `.` or `..`.
    public func path(with components: T) throws(EndpointError) -> String {
        var output = ""
        try render(components, into: &output)
        return output
    }

    /// Whether the path is the same for every value of the components (no value in it).
    var isFixed: Bool {
        guard let piece = pieces.first else { return true }
        if pieces.count == 1, case .literal = piece { return true }
        return false
    }

    /// Writes the encoded path for `components` after `output`.
    func render(_ components: T, into output: inout String) throws(EndpointError) {
        // A fixed path (the common case) needs none of the assembling, which runs unspecialized.
        if pieces.count <= 1 {
            guard let piece = pieces.first else { return }
            if case .literal(let literal) = piece {
                output.append(literal)
                return
            }
        }
        try assemble(.values(components), into: &output)
    }

    private enum Filling {
        /// Each value's encoded text.
        case values(T)
        /// `{name}` for each value.
        case names
    }

    /// Puts the pieces together after `output` with 0.4's slash rules: a piece that includes its
    /// slash is followed by `/` when another piece follows, one that does not (`includesSlash:
    /// false`) takes the `/` before it away, and a value left out is skipped. No `//` can result:
    /// literals are merged when the template is made, values cannot hold `/`, and a `/` that meets
    /// another where two pieces join is written once.
    private func assemble(_ filling: Filling, into output: inout String) throws(EndpointError) {
        let slash = UInt8(ascii: "/")
        // Whether what this call wrote so far ends with `/`; `output`'s earlier text is not touched.
        var endsWithSlash = false
        // Whether a `/` is owed before the next piece (one that does not start with `/` itself).
        var pendingSlash = false
        let lastIndex = pieces.count - 1
        for index in pieces.indices {
            let written: String
            let includesSlash: Bool
            switch pieces[index] {
            case .literal(let literal):
                written = literal
                includesSlash = true
            case .value(let name, let slashes, let read):
                includesSlash = slashes
                switch filling {
                case .names:
                    written = "{\(name)}"
                case .values(let components):
                    written = try Self.encodedSegment(read(components), name: name)
                }
            case .segment(let place, let text):
                includesSlash = true
                switch filling {
                case .names:
                    written = "{\(place)}"
                case .values:
                    written = try Self.encodedSegment(text, name: "\(place)")
                }
            }
            if !includesSlash {
                pendingSlash = false
                if endsWithSlash {
                    output.removeLast()
                    endsWithSlash = false
                }
            }
            let bytes = written.utf8
            guard let first = bytes.first, let lastByte = bytes.last else {
                // A value left out takes its `/` with it at the end; in the middle the `/` owed
                // before it is written before the next piece.
                if index == lastIndex, endsWithSlash { output.removeLast() }
                continue
            }
            if first == slash, endsWithSlash {
                // `users/` + `/posts`: one `/`.
                output.append(contentsOf: Substring(bytes.dropFirst()))
            } else {
                if pendingSlash, first != slash { output.append("/") }
                output.append(written)
            }
            endsWithSlash = lastByte == slash
            pendingSlash = includesSlash && !endsWithSlash
        }
    }

    /// A value as its encoded segment: empty when it is left out (`nil`), refused when it is
    /// empty, `.` or `..` (which would change the path's shape).
    private static func encodedSegment(
        _ value: String?,
        name: @autoclosure () -> String
    ) throws(EndpointError) -> String {
        guard let value else { return "" }
        guard !value.isEmpty, value != ".", value != ".." else {
            throw .invalidPathValue(name(), value: value)
        }
        return PercentEncoding.encode(value, as: .component)
    }

    /// Developer-written path text as a piece: encoded, with `//` written as `/`.
    static func literal(_ text: String) -> Piece {
        // Most literals need nothing escaped or merged: kept as they are after one pass (an
        // ad-hoc request's path literals are made each time the request is).
        if PercentEncoding.isPlainLiteralPath(text) { return .literal(text) }
        let slash = UInt8(ascii: "/")
        let encoded = PercentEncoding.encodeLiteralPath(text)
        var merged: [UInt8] = []
        merged.reserveCapacity(encoded.utf8.count)
        for byte in encoded.utf8 where !(byte == slash && merged.last == slash) { merged.append(byte) }
        return .literal(merged.count == encoded.utf8.count ? encoded : String(decoding: merged, as: UTF8.self))
    }

    /// The template as text, with `{name}` for each value: `users/{userId}/posts`.
    var description: String {
        var output = ""
        // Naming the values cannot fail.
        try? assemble(.names, into: &output)
        return output
    }
}
