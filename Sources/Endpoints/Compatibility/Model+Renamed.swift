// Spellings of the model that have one general form now, kept so that code written with them
// (including Endpoints 0.4's path composition) still compiles, each deprecated with the spelling
// to write instead.

extension PathTemplate {
    /// Appends a segment read from the components: `"users" + \.userId`.
    ///
    /// ```swift
    /// let path: PathTemplate<Post> = "users/\(path: \.userId)"   // rather than "users" + \.userId
    /// ```
    @available(
        *, deprecated,
        message:
            "Interpolate the key path in the literal: write \"users/\\(path: \\.userId)\" for \"users\" + \\.userId."
    )
    public static func + <U: ParameterRepresentable>(lhs: PathTemplate, rhs: any KeyPath<T, U> & Sendable)
        -> PathTemplate
    {
        PathTemplate(pieces: lhs.pieces + [value(rhs, includesSlash: true)])
    }

    /// Starts a template with a segment read from the components: `\.userId + "posts"`.
    ///
    /// ```swift
    /// let path: PathTemplate<Post> = "\(path: \.userId)/posts"   // rather than \.userId + "posts"
    /// ```
    @available(
        *, deprecated,
        message:
            "Interpolate the key path in the literal: write \"\\(path: \\.userId)/posts\" for \\.userId + \"posts\"."
    )
    public static func + <U: ParameterRepresentable>(lhs: any KeyPath<T, U> & Sendable, rhs: PathTemplate)
        -> PathTemplate
    {
        PathTemplate(pieces: [value(lhs, includesSlash: true)] + rhs.pieces)
    }

    /// Appends fixed text given as a value, such as a version number: `"testing" + 3` is `testing/3`.
    ///
    /// ```swift
    /// let path: PathTemplate<Post> = "testing/3"   // rather than "testing" + 3
    /// ```
    @available(
        *, deprecated,
        message:
            "Write the value in the literal: \"testing/3\" for \"testing\" + 3, or \"api/\\(version)\" for a constant."
    )
    // Disfavored so that two literals, `"users" + "posts"`, join as two templates (the `+` above
    // that stays) rather than through this one, which a `String` on the right would otherwise win.
    @_disfavoredOverload
    public static func + <U: ParameterRepresentable>(lhs: PathTemplate, rhs: U) -> PathTemplate {
        lhs + PathTemplate(stringLiteral: rhs.parameterValue ?? "")
    }
}

extension HeaderEntry {
    /// Creates an entry from a name and a ``HeaderField``.
    ///
    /// ```swift
    /// Header.accept.value("application/json")   // rather than HeaderEntry(.accept, .fieldValue(value: "application/json"))
    /// ```
    @available(
        *, deprecated,
        message: "Write name.value(_:) for a fixed value or name.value(path:) for one read from HeaderComponents."
    )
    public init(_ name: Header, _ field: HeaderField<T>) {
        self.init(name: name, field: field.value)
    }
}

// A definition's parts were readable until the public surface was cut: the pipeline reads them,
// and `urlRequest(environment:)` shows what a definition produces. Reading them still compiles.
extension Definition {
    /// The HTTP method.
    @available(*, deprecated, message: "Build the request with urlRequest(environment:) and read its httpMethod.")
    public var method: Method { requestMethod }

    /// The path template, relative to the server's base URL.
    @available(*, deprecated, message: "Build the request with urlRequest(environment:) and read its url.")
    public var path: PathTemplate<T.PathComponents> { pathTemplate }

    /// The request's timeout in seconds; `nil` keeps the session's.
    @available(*, deprecated, message: "Build the request with urlRequest(environment:) and read its timeoutInterval.")
    public var timeout: Double? { timeoutSeconds }

    /// The statuses decoded as the endpoint's `Response`.
    @available(
        *, deprecated, message: "Keep the StatusCodes you pass to Definition in a constant of your own to read them."
    )
    public var acceptableStatusCodes: StatusCodes { acceptedStatusCodes }
}
