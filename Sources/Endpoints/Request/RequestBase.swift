import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where a group of ``AdHocRequest``s is sent, declared once: a base URL, the headers every request
/// carries, their authentication and their middleware.
///
/// ```swift
/// enum Api {
///     static let base = RequestBase(
///         url: URL(string: "https://api.example.com/v1")!,
///         headers: [.accept: "application/json"],
///         auth: HeaderKeyAuth(key: apiKey, header: "API-Key", prefix: nil)
///     )
/// }
///
/// let users = try await URLSession.shared.response(for: Request<[User]>.get("users", on: Api.base))
/// ```
///
/// Or take it all from a ``ServerDefinition``, environment included, so that ad-hoc requests and
/// `Endpoint` types share one server: `RequestBase(ApiServer.self, environment: .staging)`.
///
/// Paths are appended to the base URL's own path (`…/v1` and `users` give `…/v1/users`), as for a
/// server. Put API keys in `auth` rather than `headers`: then logging redacts them and redirects to
/// another origin drop them. A request's own headers replace the base's headers of the same name.
public struct RequestBase: Sendable {
    /// Everything, in one reference: a request holds its base, and copying a request copies it.
    private final class Storage: Sendable {
        let url: Result<URL, EndpointError>
        /// The base URL split for building, once rather than for each request.
        let urlText: Result<BaseURLText, EndpointError>
        let headers: [HeaderEntry<Void>]
        let auth: any AuthenticationMethod
        let middleware: [any Middleware]
        let requestProcessor: (@Sendable (URLRequest) -> URLRequest)?

        init(
            url: Result<URL, EndpointError>,
            headers: [HeaderEntry<Void>],
            auth: any AuthenticationMethod,
            middleware: [any Middleware],
            requestProcessor: (@Sendable (URLRequest) -> URLRequest)?
        ) {
            self.url = url
            self.urlText = url.map(BaseURLText.init)
            self.headers = headers
            self.auth = auth
            self.middleware = middleware
            self.requestProcessor = requestProcessor
        }
    }

    private let storage: Storage

    var url: Result<URL, EndpointError> { storage.url }
    var urlText: Result<BaseURLText, EndpointError> { storage.urlText }
    var headers: [HeaderEntry<Void>] { storage.headers }
    /// The authentication of the requests made on this base.
    var auth: any AuthenticationMethod { storage.auth }
    /// The middleware of the requests made on this base, outermost first.
    var middleware: [any Middleware] { storage.middleware }
    var requestProcessor: (@Sendable (URLRequest) -> URLRequest)? { storage.requestProcessor }

    /// A base URL with the headers, authentication and middleware of every request made on it.
    /// - Parameters:
    ///   - url: The base URL; its path and query are kept.
    ///   - headers: Headers every request carries, unless the request sets the same name.
    ///   - auth: The authentication method; none by default.
    ///   - middleware: Middleware every request goes through, outermost first.
    public init(
        url: URL,
        headers: [Header: String] = [:],
        auth: any AuthenticationMethod = NoAuth(),
        middleware: [any Middleware] = []
    ) {
        storage = Storage(
            url: .success(url),
            headers: headers.sorted { $0.key.name < $1.key.name }.map { $0.key.value($0.value) },
            auth: auth,
            middleware: middleware,
            requestProcessor: nil
        )
    }

    /// The base of `server` in `environment`: its base URL, `requestProcessor`, `auth` and
    /// `middleware`, as an `Endpoint` of that server would use them.
    ///
    /// A server with no base URL for `environment` makes every request on this base fail with
    /// ``EndpointError/missingBaseURL(server:environment:)`` before anything is sent.
    public init<Server: ServerDefinition>(
        _ server: Server.Type,
        environment: Server.Environments = Server.defaultEnvironment
    ) {
        let instance = Server()
        let url: Result<URL, EndpointError>
        if let found = instance.baseURL(for: environment) {
            url = .success(found)
        } else {
            url = .failure(
                .missingBaseURL(server: String(describing: Server.self), environment: String(describing: environment)))
        }
        storage = Storage(
            url: url,
            headers: [],
            auth: Server.auth,
            middleware: Server.middleware,
            requestProcessor: instance.requestProcessor
        )
    }
}

extension RequestBase: CustomReflectable {
    /// The base URL without its query, or why there is none: never a header value or a key, so
    /// neither `dump` nor the description derived from it
    /// (`RequestBase(url: "https://api.example.com/v1")`) shows them.
    public var customMirror: Mirror {
        let shown: Any =
            switch url {
            case .success(let url): String(url.absoluteString.prefix { $0 != "?" })
            case .failure(let error): error
            }
        return Mirror(self, children: ["url": shown], displayStyle: .struct)
    }
}
