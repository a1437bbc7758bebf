/// A header placed in a ``Definition`` written with ``DefinitionBuilder``: a name and its value.
///
/// Make one from a ``Header`` name:
///
/// ```swift
/// Header.accept.value("application/json")      // fixed
/// Header("X-Request-Id").value(path: \.requestId)  // read from the endpoint's HeaderComponents
/// ```
public struct HeaderEntry<T>: Sendable {
    /// The header's name.
    public let name: Header
    /// Where the header's value comes from.
    public let field: HeaderField<T>

    /// Creates an entry from a name and a ``HeaderField``, e.g. one shared between definitions.
    public init(_ name: Header, _ field: HeaderField<T>) {
        self.name = name
        self.field = field
    }
}

extension Header {
    /// This header with a fixed value, for a ``Definition`` written with ``DefinitionBuilder``.
    ///
    /// ```swift
    /// Header.accept.value("application/json")
    /// ```
    public func value<T, U: ParameterRepresentable>(_ value: U) -> HeaderEntry<T> {
        HeaderEntry(self, .fieldValue(value: value))
    }

    /// This header with its value read from the endpoint's ``Endpoint/headerComponents`` at `path`,
    /// for a ``Definition`` written with ``DefinitionBuilder``. A `nil` value leaves the header out.
    ///
    /// ```swift
    /// Header("X-Request-Id").value(path: \.requestId)
    /// ```
    public func value<T, U: ParameterRepresentable>(path: any KeyPath<T, U> & Sendable) -> HeaderEntry<T> {
        HeaderEntry(self, .field(path: path))
    }
}

/// Builds the parameters and headers of a ``Definition`` from statements, with `if`, `if let`,
/// `switch`, `for` and `#if`:
///
/// ```swift
/// static let definition = Definition<SearchEndpoint>(method: .get, path: "search") {
///     Parameter.query("q", path: \.term)
///     Parameter.queryValue("limit", value: 20)
///     Header.accept.value("application/json")
///     if includeDebug { Parameter.queryValue("debug", value: true) }
/// }
/// ```
///
/// A statement is a ``Parameter`` or a ``HeaderEntry`` made with `Header.….value(…)`. Write
/// `Parameter.` in full: a line that starts with `.` continues the line before it, so the
/// `.query(…)` shorthand only works on the first line.
///
/// Parameters keep their order. Header names compare case-insensitively and **the last header
/// with a name wins**, spelling included: a later `Header("ACCEPT").value("text/plain")` replaces
/// an earlier `Header.accept.value(…)`, which lets an `if` override a default. When the winning
/// header reads a `nil` value, the header is left out; an earlier one with that name is not used.
@resultBuilder
public enum DefinitionBuilder<T: Endpoint> {
    /// The parameters and headers collected so far, in the order written.
    public struct Component: Sendable {
        var parameters: [Parameter<T.ParameterComponents>] = []
        var headers: [HeaderEntry<T.HeaderComponents>] = []

        mutating func append(_ other: Component) {
            parameters += other.parameters
            headers += other.headers
        }
    }

    /// A query or form parameter.
    public static func buildExpression(_ parameter: Parameter<T.ParameterComponents>) -> Component {
        Component(parameters: [parameter])
    }

    /// A header.
    public static func buildExpression(_ header: HeaderEntry<T.HeaderComponents>) -> Component {
        Component(headers: [header])
    }

    /// Several statements in sequence.
    public static func buildBlock(_ components: Component...) -> Component {
        buildArray(components)
    }

    /// An `if` without `else`, or an `if let`, whose condition was false.
    public static func buildOptional(_ component: Component?) -> Component {
        component ?? Component()
    }

    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first component: Component) -> Component {
        component
    }

    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second component: Component) -> Component {
        component
    }

    /// The statements of every iteration of a `for` loop.
    public static func buildArray(_ components: [Component]) -> Component {
        var result = Component()
        for component in components { result.append(component) }
        return result
    }

    /// An `if #available` branch.
    public static func buildLimitedAvailability(_ component: Component) -> Component {
        component
    }
}

extension Definition {
    /// Creates a definition whose parameters and headers are written as statements.
    ///
    /// ```swift
    /// static let definition = Definition<SearchEndpoint>(method: .get, path: "search") {
    ///     Parameter.query("q", path: \.term)
    ///     Header.accept.value("application/json")
    /// }
    /// ```
    ///
    /// See ``DefinitionBuilder`` for what a statement may be, and for the rule on repeated headers
    /// (the last one with a name wins).
    /// - Parameters:
    ///   - method: The HTTP method; `.get` when omitted.
    ///   - path: The path template, relative to the server's base URL.
    ///   - content: The parameters and headers.
    public init(
        method: Method = .get,
        path: PathTemplate<T.PathComponents>,
        @DefinitionBuilder<T> _ content: () -> DefinitionBuilder<T>.Component
    ) {
        let component = content()
        let headers = RequestShape<T.ParameterComponents, T.HeaderComponents>.lastWinsDictionary(component.headers)
        self.init(method: method, path: path, parameters: component.parameters, headers: headers)
    }
}
