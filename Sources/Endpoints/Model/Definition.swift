/// The fixed shape of an endpoint: its method, path template, parameters and headers.
///
/// ```swift
/// static let definition: Definition<SearchEndpoint> = Definition(
///     method: .get,
///     path: "users/\(path: \.userId)/search",
///     parameters: [.query("q", path: \.term), .queryValue("limit", value: 20)],
///     headers: [Header.accept.value("application/json")]
/// )
/// ```
///
/// Everything that can be checked once is checked here (method and header names); what depends
/// on the endpoint's values is checked each time a request is built.
public struct Definition<T: Endpoint>: Sendable {
    /// What a definition holds, in one object: every request reads its endpoint's definition
    /// (`T.definition`) at least twice, and a struct of eight fields was copied and destroyed
    /// field by field through the generic value witnesses each time (with the shape's copies,
    /// about a microsecond a request); now a copy is one retain.
    final class Parts: Sendable {
        let requestMethod: Method
        let pathTemplate: PathTemplate<T.PathComponents>
        let parameters: [Parameter<T.ParameterComponents>]
        let headers: [Header: HeaderValue<T.HeaderComponents>]
        let timeoutSeconds: Double?
        let acceptedStatusCodes: StatusCodes
        let followsRedirects: Bool
        let shape: RequestShape<T.ParameterComponents, T.HeaderComponents>
        let fixedURL: FixedURLMemo?

        init(
            requestMethod: Method, pathTemplate: PathTemplate<T.PathComponents>,
            parameters: [Parameter<T.ParameterComponents>], headers: [Header: HeaderValue<T.HeaderComponents>],
            timeoutSeconds: Double?, acceptedStatusCodes: StatusCodes, followsRedirects: Bool,
            shape: RequestShape<T.ParameterComponents, T.HeaderComponents>, fixedURL: FixedURLMemo?
        ) {
            self.followsRedirects = followsRedirects
            self.requestMethod = requestMethod
            self.pathTemplate = pathTemplate
            self.parameters = parameters
            self.headers = headers
            self.timeoutSeconds = timeoutSeconds
            self.acceptedStatusCodes = acceptedStatusCodes
            self.shape = shape
            self.fixedURL = fixedURL
        }
    }

    let parts: Parts

    /// The HTTP method.
    var requestMethod: Method { parts.requestMethod }
    /// The path, relative to the server's base URL.
    var pathTemplate: PathTemplate<T.PathComponents> { parts.pathTemplate }
    /// Query and form parameters, in order. Internal: a `Parameter`'s name and values are the
    /// library's to read, and `urlRequest(environment:)` shows what they produce.
    var parameters: [Parameter<T.ParameterComponents>] { parts.parameters }
    /// Headers set from the endpoint's values or fixed here (internal, like `parameters`).
    var headers: [Header: HeaderValue<T.HeaderComponents>] { parts.headers }
    /// The request's timeout in seconds (`URLRequest.timeoutInterval`): how long the request may
    /// wait for more data before it fails with `URLError.timedOut`. `nil` keeps the session's.
    var timeoutSeconds: Double? { parts.timeoutSeconds }
    /// The statuses decoded as the endpoint's `Response`; anything else is decoded as its
    /// `ErrorResponse`. 2xx unless the definition says otherwise.
    var acceptedStatusCodes: StatusCodes { parts.acceptedStatusCodes }
    /// Whether redirects are followed; when not, the 3xx is the answer.
    var followsRedirects: Bool { parts.followsRedirects }
    /// The parts split and checked once, for building.
    var shape: RequestShape<T.ParameterComponents, T.HeaderComponents> { parts.shape }
    /// The URL last built, when the path and the query are the same for every request.
    var fixedURL: FixedURLMemo? { parts.fixedURL }

    /// Creates a definition.
    /// - Parameters:
    ///   - method: The HTTP method; `.get` when omitted.
    ///   - path: The path template, relative to the server's base URL.
    ///   - parameters: Query items and form fields.
    ///   - headers: Header fields, written as in a ``ContentBuilder`` block
    ///     (`Header.accept.value("application/json")`, `Header("X-Request-Id").value(path: \.requestId)`);
    ///     the last one with a name wins.
    ///   - timeout: The request's timeout in seconds; the session's when omitted.
    ///   - acceptableStatusCodes: The statuses that are not errors; 2xx when omitted.
    ///   - followsRedirects: Whether a 301, 302, 303, 307 or 308 is followed (credentials dropped
    ///     for another origin, 16 hops at most); `false` makes the 3xx the answer, its `Location` in the `HTTPURLResponse`, to read a
    ///     sign-in or a short link's target. Add the status to `acceptableStatusCodes` to get it as
    ///     a success.
    public init(
        method: Method = .get,
        path: PathTemplate<T.PathComponents>,
        parameters: [Parameter<T.ParameterComponents>] = [],
        headers: [HeaderEntry<T.HeaderComponents>] = [],
        timeout: Double? = nil,
        acceptableStatusCodes: StatusCodes = .successful,
        followsRedirects: Bool = true
    ) {
        self.init(
            method: method, path: path, parameters: parameters,
            headerFields: RequestShape<T.ParameterComponents, T.HeaderComponents>.lastWinsDictionary(headers),
            timeout: timeout, acceptableStatusCodes: acceptableStatusCodes, followsRedirects: followsRedirects)
    }

    /// Creates a definition from headers already made distinct.
    init(
        method: Method,
        path: PathTemplate<T.PathComponents>,
        parameters: [Parameter<T.ParameterComponents>],
        headerFields headers: [Header: HeaderValue<T.HeaderComponents>],
        timeout: Double?,
        acceptableStatusCodes: StatusCodes,
        followsRedirects: Bool = true
    ) {
        let shape = RequestShape(
            method: method,
            parameters: parameters,
            headers: headers,
            hasBody: T.Body.self != EmptyCodable.self,
            timeout: timeout
        )
        parts = Parts(
            requestMethod: method, pathTemplate: path, parameters: parameters, headers: headers,
            timeoutSeconds: timeout, acceptedStatusCodes: acceptableStatusCodes, followsRedirects: followsRedirects,
            shape: shape,
            fixedURL: path.isFixed && shape.queryParameters.isEmpty ? FixedURLMemo() : nil)
    }

    /// The same definition for an endpoint with the same components and body, reusing the work
    /// `init` did (filtering, sorting, checking) instead of repeating it.
    init<Other: Endpoint>(reusing other: Definition<Other>)
    where
        Other.PathComponents == T.PathComponents, Other.ParameterComponents == T.ParameterComponents,
        Other.HeaderComponents == T.HeaderComponents, Other.Body == T.Body
    {
        parts = Parts(
            requestMethod: other.requestMethod, pathTemplate: other.pathTemplate, parameters: other.parameters,
            headers: other.headers, timeoutSeconds: other.timeoutSeconds,
            acceptedStatusCodes: other.acceptedStatusCodes, followsRedirects: other.followsRedirects,
            shape: other.shape, fixedURL: other.fixedURL)
    }
}
