import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Builds the query items, form fields and headers of an ``AdHocRequest`` from statements, with
/// `if`, `if let`, `switch`, `for` and `#if`, as ``DefinitionBuilder`` does for a ``Definition``:
///
/// ```swift
/// Request<[Post]>.get("posts", on: Api.base) {
///     URLQueryItem(name: "q", value: term)
///     Parameter.queryValue("limit", value: 20)
///     for tag in tags { Parameter.queryValue("tag", value: tag) }
///     if let page { Parameter.queryValue("page", value: page) }
///     Header.acceptLanguage.value("en")
/// }
/// ```
///
/// A statement is a `URLQueryItem`, a ``Parameter`` (`Parameter.queryValue` or
/// `Parameter.formValue`) or a ``HeaderEntry`` made with `Header.….value(…)`. Values are encoded
/// as an endpoint's are. A `nil` value (a `URLQueryItem` without one, or a `nil` optional) leaves
/// the item out. Headers follow ``DefinitionBuilder``'s rule: the last one with a name wins.
@resultBuilder
public enum RequestContentBuilder {
    /// The items collected so far, in the order written.
    public struct Component: Sendable {
        var parameters: [Parameter<Void>] = []
        var headers: [HeaderEntry<Void>] = []
    }

    /// One statement: a query item or form field, or a header.
    public struct Item: Sendable {
        fileprivate enum Kind: Sendable {
            case parameter(Parameter<Void>)
            case header(HeaderEntry<Void>)
        }
        fileprivate let kind: Kind
    }

    /// A query item.
    public static func buildExpression(_ item: URLQueryItem) -> Item {
        Item(kind: .parameter(.queryValue(item.name, value: item.value)))
    }

    /// A query item or form field.
    public static func buildExpression(_ parameter: Parameter<Void>) -> Item {
        Item(kind: .parameter(parameter))
    }

    /// A header.
    public static func buildExpression(_ header: HeaderEntry<Void>) -> Item {
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
