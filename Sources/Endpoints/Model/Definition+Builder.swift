/// A header placed in a ``Definition`` written with ``ContentBuilder``: a name and its value.
///
/// Make one from a ``Header`` name:
///
/// ```swift
/// Header.accept.value("application/json")      // fixed
/// Header("X-Request-Id").value(path: \.requestId)  // read from the endpoint's HeaderComponents
/// ```
public struct HeaderEntry<T>: Sendable {
    /// The header's name.
    let name: Header
    /// Where the header's value comes from.
    let field: HeaderValue<T>

    init(name: Header, field: HeaderValue<T>) {
        self.name = name
        self.field = field
    }
}

extension Header {
    /// This header with a fixed value, for a ``Definition`` written with ``ContentBuilder``.
    ///
    /// ```swift
    /// Header.accept.value("application/json")
    /// ```
    public func value<T, U: ParameterRepresentable>(_ value: U) -> HeaderEntry<T> {
        HeaderEntry(name: self, field: .fixed(value))
    }

    /// This header with its value read from the endpoint's ``Endpoint/headerComponents`` at `path`,
    /// for a ``Definition`` written with ``ContentBuilder``. A `nil` value leaves the header out.
    ///
    /// ```swift
    /// Header("X-Request-Id").value(path: \.requestId)
    /// ```
    public func value<T, U: ParameterRepresentable>(path: any KeyPath<T, U> & Sendable) -> HeaderEntry<T> {
        HeaderEntry(name: self, field: .read(path))
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
    /// See ``ContentBuilder`` for what a statement may be, and for the rule on repeated headers
    /// (the last one with a name wins).
    /// - Parameters:
    ///   - method: The HTTP method; `.get` when omitted.
    ///   - path: The path template, relative to the server's base URL.
    ///   - content: The parameters and headers.
    public init(
        method: Method = .get,
        path: PathTemplate<T.PathComponents>,
        @ContentBuilder<T.ParameterComponents, T.HeaderComponents> _ content: () ->
            ContentBuilder<
                T.ParameterComponents, T.HeaderComponents
            >.Component
    ) {
        let component = content()
        self.init(method: method, path: path, parameters: component.parameters, headers: component.headers)
    }
}
