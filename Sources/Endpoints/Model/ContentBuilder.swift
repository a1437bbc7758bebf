import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Builds query items, form fields and headers from statements, with `if`, `if let`, `switch`,
/// `for` and `#if`: the content of a ``Definition`` (`ContentBuilder<T.ParameterComponents,
/// T.HeaderComponents>`) and of an ``AdHocRequest`` (`ContentBuilder<Void, Void>`).
///
/// ```swift
/// static let definition = Definition<SearchEndpoint>(method: .get, path: "search") {
///     Parameter.query("q", path: \.term)
///     Parameter.queryValue("limit", value: 20)
///     Header.accept.value("application/json")
///     if includeDebug { Parameter.queryValue("debug", value: true) }
/// }
///
/// Request<[Post]>.get("posts", on: Api.base) {
///     URLQueryItem(name: "q", value: term)
///     for tag in tags { Parameter.queryValue("tag", value: tag) }
///     if let page { Parameter.queryValue("page", value: page) }
///     Header.acceptLanguage.value("en")
/// }
/// ```
///
/// A statement is a `URLQueryItem`, a ``Parameter`` or a ``HeaderEntry`` made with
/// `Header.….value(…)`. Values are encoded as an endpoint's are; a `nil` value (a `URLQueryItem`
/// without one, or a `nil` optional) leaves the item out. Write `Parameter.` in full: a line that
/// starts with `.` continues the line before it, so the `.query(…)` shorthand only works on the
/// first line.
///
/// Parameters keep their order. Header names compare case-insensitively and **the last header
/// with a name wins**, spelling included: a later `Header("ACCEPT").value("text/plain")` replaces
/// an earlier `Header.accept.value(…)`, which lets an `if` override a default. When the winning
/// header reads a `nil` value, the header is left out; an earlier one with that name is not used.
@resultBuilder
public enum ContentBuilder<Parameters, Headers> {
    /// The parameters and headers collected so far, in the order written.
    public struct Component: Sendable {
        var parameters: [Parameter<Parameters>] = []
        var headers: [HeaderEntry<Headers>] = []
    }

    /// One statement: a query item or form field, or a header.
    public struct Item: Sendable {
        fileprivate enum Kind: Sendable {
            case parameter(Parameter<Parameters>)
            case header(HeaderEntry<Headers>)
        }
        fileprivate let kind: Kind
    }

    /// A query item.
    public static func buildExpression(_ item: URLQueryItem) -> Item {
        Item(kind: .parameter(.queryValue(item.name, value: item.value)))
    }

    /// A query or form parameter.
    public static func buildExpression(_ parameter: Parameter<Parameters>) -> Item {
        Item(kind: .parameter(parameter))
    }

    /// A header.
    public static func buildExpression(_ header: HeaderEntry<Headers>) -> Item {
        Item(kind: .header(header))
    }

    /// No statements.
    public static func buildBlock() -> Component {
        Component()
    }

    /// The first statement of a block.
    public static func buildPartialBlock(first: Item) -> Component {
        buildPartialBlock(accumulated: Component(), next: first)
    }

    /// The first statement of a block, when it is an `if`, `switch` or `for`.
    public static func buildPartialBlock(first: Component) -> Component {
        first
    }

    /// One more statement, appended in place (one array each, however many statements): the
    /// block so far is consumed, so its arrays are not copied to append to them.
    public static func buildPartialBlock(accumulated: consuming Component, next: consuming Item) -> Component {
        var result = accumulated
        switch next.kind {
        case .parameter(let parameter): result.parameters.append(parameter)
        case .header(let header): result.headers.append(header)
        }
        return result
    }

    /// One more `if`, `switch` or `for`.
    public static func buildPartialBlock(accumulated: consuming Component, next: Component) -> Component {
        var result = accumulated
        result.parameters += next.parameters
        result.headers += next.headers
        return result
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
        components.reduce(into: Component()) { result, component in
            result.parameters += component.parameters
            result.headers += component.headers
        }
    }

    /// An `if #available` branch.
    public static func buildLimitedAvailability(_ component: Component) -> Component {
        component
    }
}
