import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The environments most APIs have. Use your own `Hashable` type when these do not fit.
public enum TypicalEnvironments: String, Hashable, Sendable, CaseIterable {
    /// A server on the developer's machine.
    case local
    /// A shared development deployment.
    case development
    /// A pre-production deployment.
    case staging
    /// The live service.
    case production
}

/// A server: its base URL in each environment, the authentication its endpoints use, and the
/// middleware every request to it goes through.
///
/// ```swift
/// struct ApiServer: ServerDefinition {
///     var baseUrls: [Environments: URL] {
///         [
///             .staging: URL(string: "https://staging-api.example.com")!,
///             .production: URL(string: "https://api.example.com/v1")!,
///         ]
///     }
///     static var defaultEnvironment: Environments { .production }
/// }
/// ```
///
/// The base URL's own path is kept: `https://api.example.com/v1` and the path `users` give
/// `https://api.example.com/v1/users`. There is no global environment: each request names one, or
/// uses ``defaultEnvironment``.
public protocol ServerDefinition: Sendable {
    /// The environments this server is deployed in.
    associatedtype Environments: Hashable & Sendable = TypicalEnvironments
    /// The authentication its endpoints use unless they declare their own.
    associatedtype Auth: AuthenticationMethod = NoAuth

    /// Creates the server value; called for each request that is built.
    init()

    /// The base URL for each environment. A request for an environment missing here fails with
    /// ``EndpointError/missingBaseURL(server:environment:)``.
    var baseUrls: [Environments: URL] { get }

    /// The base URL for `environment`: `baseUrls[environment]` unless you compute it, for example
    /// for a server whose environments are tenants, or a test server on a port picked at run time:
    ///
    /// ```swift
    /// struct LocalServer: ServerDefinition {
    ///     typealias Environments = URL          // the environment *is* the base URL
    ///     var baseUrls: [URL: URL] { [:] }
    ///     static var defaultEnvironment: URL { URL(string: "http://127.0.0.1:8080")! }
    ///     func baseURL(for environment: URL) -> URL? { environment }
    /// }
    /// ```
    func baseURL(for environment: Environments) -> URL?

    /// The environment used when a request does not name one.
    static var defaultEnvironment: Environments { get }

    /// A last synchronous change to every built request, such as signing with a static key.
    /// For credentials that expire, use ``auth`` instead.
    var requestProcessor: @Sendable (URLRequest) -> URLRequest { get }

    /// The authentication method shared by the server's endpoints. Declare it as a `static let`
    /// so every endpoint shares one instance (a ``JWTAuth`` coalesces refreshes across them).
    static var auth: Auth { get }

    /// Middleware every request to this server goes through, outermost first.
    static var middleware: [any Middleware] { get }
}

extension ServerDefinition {
    /// Leaves the request as built.
    public var requestProcessor: @Sendable (URLRequest) -> URLRequest { { $0 } }

    /// Looks the environment up in ``baseUrls``.
    public func baseURL(for environment: Environments) -> URL? { baseUrls[environment] }

    /// No middleware.
    public static var middleware: [any Middleware] { [] }
}

extension ServerDefinition where Auth == NoAuth {
    /// No authentication.
    public static var auth: NoAuth { NoAuth() }
}

extension ServerDefinition where Environments == TypicalEnvironments {
    /// `.production`.
    public static var defaultEnvironment: Environments { .production }
}
