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
///     Header("Accept-Language").value("en")
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
    /// Statements collected: one statement, or a block's, in the order written.
    public struct Component: Sendable {
        /// One statement is kept as it is, without an array: a block then collects its statements
        /// into one array for parameters and one for headers, sized once.
        fileprivate enum Storage: Sendable {
            case parameter(Parameter<Parameters>)
            case header(HeaderEntry<Headers>)
            case block(parameters: [Parameter<Parameters>], headers: [HeaderEntry<Headers>])
        }

        fileprivate let storage: Storage

        /// The query items and form fields, in order.
        var parameters: [Parameter<Parameters>] {
            switch storage {
            case .parameter(let parameter): [parameter]
            case .header: []
            case .block(let parameters, _): parameters
            }
        }

        /// The headers, in order (the last with a name wins when they are used).
        var headers: [HeaderEntry<Headers>] {
            switch storage {
            case .parameter: []
            case .header(let header): [header]
            case .block(_, let headers): headers
            }
        }
    }

    /// A query item.
    public static func buildExpression(_ item: URLQueryItem) -> Component {
        Component(storage: .parameter(.queryValue(item.name, value: item.value)))
    }

    /// A query or form parameter.
    public static func buildExpression(_ parameter: Parameter<Parameters>) -> Component {
        Component(storage: .parameter(parameter))
    }

    /// A header.
    public static func buildExpression(_ header: HeaderEntry<Headers>) -> Component {
        Component(storage: .header(header))
    }

    /// The statements of a block, in order; none for an empty block.
    public static func buildBlock(_ components: Component...) -> Component {
        merged(components)
    }

    /// An `if` without `else`, or an `if let`, whose condition was false, leaves nothing; one whose
    /// condition was true, its statements.
    public static func buildOptional(_ component: Component?) -> Component {
        component ?? Component(storage: .block(parameters: [], headers: []))
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
        merged(components)
    }

    /// `components` as one block: two arrays, each allocated once at its final size.
    private static func merged(_ components: [Component]) -> Component {
        if components.count == 1, case .block = components[0].storage { return components[0] }
        var parameterCount = 0
        var headerCount = 0
        for component in components {
            switch component.storage {
            case .parameter: parameterCount += 1
            case .header: headerCount += 1
            case .block(let parameters, let headers):
                parameterCount += parameters.count
                headerCount += headers.count
            }
        }
        var parameters: [Parameter<Parameters>] = []
        var headers: [HeaderEntry<Headers>] = []
        if parameterCount > 0 { parameters.reserveCapacity(parameterCount) }
        if headerCount > 0 { headers.reserveCapacity(headerCount) }
        for component in components {
            switch component.storage {
            case .parameter(let parameter): parameters.append(parameter)
            case .header(let header): headers.append(header)
            case .block(let moreParameters, let moreHeaders):
                parameters += moreParameters
                headers += moreHeaders
            }
        }
        return Component(storage: .block(parameters: parameters, headers: headers))
    }
}
