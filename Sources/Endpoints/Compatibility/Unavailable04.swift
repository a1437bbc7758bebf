import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Endpoints 0.4 spellings that are gone, kept as declarations that do not compile and say what
// replaces them, so a migrating project gets a message instead of "has no member".
// `scripts/check-migration-compile-errors.sh` checks each message.

extension ServerDefinition {
    /// Endpoints 0.4's process-wide environment; the environment is chosen per request now.
    @available(
        *,
        unavailable,
        message:
            "The environment is per request: pass environment: to response(with:environment:), endpointPublisher(with:environment:) or urlRequest(environment:), or change defaultEnvironment."
    )
    public static var environment: Environments {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }
    }
}

/// Endpoints 0.3's server protocol.
@available(
    *,
    unavailable,
    renamed: "ServerDefinition",
    message:
        "Declare a ServerDefinition with baseUrls per environment, and add `typealias Server = YourServer` to each endpoint."
)
public typealias EnvironmentType = ServerDefinition

extension Definition {
    /// Endpoints 0.4's initializer with a server instance.
    @available(
        *,
        unavailable,
        message: "The server is the endpoint's `typealias Server`, created per request; remove the server: argument."
    )
    public init(
        server: T.Server,
        method: Method,
        path: PathTemplate<T.PathComponents>,
        parameters: [Parameter<T.ParameterComponents>] = [],
        headers: [Header: HeaderField<T.HeaderComponents>] = [:]
    ) {
        fatalError("unavailable")
    }

    /// Endpoints 0.4's server instance.
    @available(*, unavailable, message: "The server is the endpoint's `typealias Server`; use T.Server().")
    public var server: T.Server { fatalError("unavailable") }
}

extension AuthenticationError {
    /// Endpoints 0.4's error for a method that cannot refresh.
    @available(
        *,
        unavailable,
        message:
            "A method that cannot refresh returns false from shouldReauthenticate and does not implement reauthenticate; throw .refreshFailed(underlying:) for a refresh that failed."
    )
    public static var refreshNotSupported: AuthenticationError { fatalError("unavailable") }

    /// Endpoints 0.4's error for a missing refresh token.
    @available(*, unavailable, message: "Throw .notAuthenticated when there is no refresh token.")
    public static var noRefreshToken: AuthenticationError { fatalError("unavailable") }

    /// Endpoints 0.4's error when retries after refreshing ran out.
    @available(
        *,
        unavailable,
        message: "A request is retried once after a refresh; a second rejection reaches the caller as .errorResponse."
    )
    public static var maxRetriesExceeded: AuthenticationError { fatalError("unavailable") }
}

/// Endpoints 0.4's wrapper that authenticated requests (the `authentication` branch).
@available(
    *,
    unavailable,
    message:
        "Authentication is part of every request: declare `static let auth` on the ServerDefinition (or the endpoint) and call URLSession.shared.response(with:), or pass auth: per request."
)
public struct AuthenticatedSession<Auth: AuthenticationMethod>: Sendable {
    /// Endpoints 0.4's initializer.
    @available(*, unavailable, message: "Pass auth: to URLSession.response(with:environment:auth:middleware:).")
    public init(session: URLSession = .shared, auth: Auth, maxRetryAttempts: Int = 1) { fatalError("unavailable") }
}

/// Endpoints 0.4's server for endpoints that named none.
@available(
    *,
    unavailable,
    message:
        "Declare your own ServerDefinition with baseUrls per environment, and `typealias Server = YourServer` in each endpoint."
)
public struct GenericServer {}

/// Endpoints 0.4's protocol for path values; path values are ``ParameterRepresentable`` now.
@available(
    *,
    unavailable,
    renamed: "ParameterRepresentable",
    message:
        "Conform to ParameterRepresentable and return the plain, unencoded text from parameterValue; Endpoints percent-encodes it as one path segment."
)
public typealias PathRepresentable = ParameterRepresentable
