/// A query or form parameter in a ``Definition``.
///
/// Values come from the endpoint's ``Endpoint/parameterComponents`` by key path, or are fixed:
///
/// ```swift
/// parameters: [
///     .query("q", path: \.term),
///     .query("page", path: \.page),          // Int? — nil leaves it out
///     .queryValue("format", value: "json"),
///     .form("name", path: \.name),           // sent as application/x-www-form-urlencoded
/// ]
/// ```
///
/// Query values are percent-encoded so that any string reaches the server unchanged
/// (`+` → `%2B`, `&` → `%26`, `=` → `%3D`, space → `%20`). Form values use the form rules
/// (space → `+`). Arrays repeat the name: `ids=1&ids=2`.
public struct Parameter<T>: Sendable {
    /// Where a parameter goes.
    enum Location: Sendable, Hashable {
        /// The URL's query.
        case query
        /// An `application/x-www-form-urlencoded` body.
        case form
    }

    /// Where this parameter goes.
    let location: Location
    /// The parameter's name, unencoded.
    let name: String
    let source: Source

    /// Where the values come from. A fixed value is stored as it is, not captured in a closure: an
    /// ad-hoc request makes its parameters each time it is made, and a closure is one more
    /// allocation each.
    enum Source: Sendable {
        case fixed([String])
        case read(@Sendable (T) -> [String])
    }

    init(location: Location, name: String, source: Source) {
        self.location = location
        self.name = name
        self.source = source
    }

    init(location: Location, name: String, values: @escaping @Sendable (T) -> [String]) {
        self.init(location: location, name: name, source: .read(values))
    }

    /// The values for `components`, in order; none leaves the parameter out.
    func values(_ components: T) -> [String] {
        switch source {
        case .fixed(let values): values
        case .read(let read): read(components)
        }
    }

    /// A query item whose value is read from the components at `path`.
    public static func query<U: ParameterRepresentable>(_ name: String, path: any KeyPath<T, U> & Sendable) -> Parameter
    {
        Parameter(location: .query, name: name) { $0[keyPath: path].parameterValues }
    }

    /// A query item with a fixed value.
    public static func queryValue<U: ParameterRepresentable>(_ name: String, value: U) -> Parameter {
        Parameter(location: .query, name: name, source: .fixed(value.parameterValues))
    }

    /// A form field whose value is read from the components at `path`.
    public static func form<U: ParameterRepresentable>(_ name: String, path: any KeyPath<T, U> & Sendable) -> Parameter
    {
        Parameter(location: .form, name: name) { $0[keyPath: path].parameterValues }
    }

    /// A form field with a fixed value.
    public static func formValue<U: ParameterRepresentable>(_ name: String, value: U) -> Parameter {
        Parameter(location: .form, name: name, source: .fixed(value.parameterValues))
    }
}
