import Endpoints

// The API the tour talks to: the embedded service (DemoService.swift) or any server given with
// `--base-url` that answers the same routes.

/// The demo's server. Its environments are base URLs chosen at run time (the embedded services
/// listen on ephemeral ports); an app would list fixed URLs in `baseUrls` instead.
struct DemoServer: ServerDefinition {
    typealias Environments = URL
    var baseUrls: [URL: URL] { [:] }
    static var defaultEnvironment: URL { URL(string: "http://127.0.0.1:1")! }
    func baseURL(for environment: URL) -> URL? { environment }

    /// The declaration every endpoint inherits. The tour passes each client's own `JWTAuth` per
    /// request instead (see `DemoClient`), so this one is never logged in.
    static let auth = JWTAuth(refreshHandler: { _ in throw NotLoggedIn() })
}

struct NotLoggedIn: Error {}

/// The `{"code", "message"}` body of every error the service answers.
struct ApiError: Decodable, Sendable, CustomStringConvertible {
    let code: Int
    let message: String
    var description: String { "ApiError(code: \(code), message: \"\(message)\")" }
}

struct Tokens: Codable, Sendable {
    let accessToken: String
    let refreshToken: String
    /// Seconds until the access token expires.
    let expiresIn: Double
}

struct Profile: Codable, Sendable, CustomStringConvertible {
    let id: Int
    let name: String
    let email: String
    var description: String { "Profile(id: \(id), name: \"\(name)\", email: \"\(email)\")" }
}

struct ItemPage: Codable, Sendable {
    struct Item: Codable, Sendable { let id: Int; let title: String }
    let items: [Item]
    let page: Int
    let nextPage: Int?
}

/// `POST login` with a JSON body: unauthenticated, it is how the tokens are obtained.
struct Login: Endpoint {
    typealias Server = DemoServer
    typealias Response = Tokens
    typealias ErrorResponse = ApiError
    struct Body: Encodable, Sendable { let username: String; let password: String }

    static var auth: NoAuth { NoAuth() }
    static let definition: Definition<Login> = Definition(method: .post, path: "login")
    let body: Body
}

/// `POST refresh`: exchanges a single-use refresh token for a new pair. Never authenticated by
/// the `JWTAuth` it refreshes (its request would wait on itself).
struct Refresh: Endpoint {
    typealias Server = DemoServer
    typealias Response = Tokens
    typealias ErrorResponse = ApiError
    struct Body: Encodable, Sendable { let refreshToken: String }

    static var auth: NoAuth { NoAuth() }
    static let definition: Definition<Refresh> = Definition(method: .post, path: "refresh")
    let body: Body
}

/// `GET me`: the signed-in user's profile.
struct GetProfile: Endpoint {
    typealias Server = DemoServer
    typealias Response = Profile
    typealias ErrorResponse = ApiError
    static let definition: Definition<GetProfile> = Definition(method: .get, path: "me")
}

/// `GET items?page=N&perPage=M`: one page of a paginated list.
struct ListItems: Endpoint {
    typealias Server = DemoServer
    typealias Response = ItemPage
    typealias ErrorResponse = ApiError
    struct ParameterComponents: Sendable { let page: Int; let perPage: Int }

    static let definition: Definition<ListItems> = Definition(
        method: .get,
        path: "items",
        parameters: [.query("page", path: \.page), .query("perPage", path: \.perPage)]
    )
    let parameterComponents: ParameterComponents
}

/// `GET users/{id}`: another user's profile; unknown ids answer 404 with an `ApiError` body.
struct GetUser: Endpoint {
    typealias Server = DemoServer
    typealias Response = Profile
    typealias ErrorResponse = ApiError
    struct PathComponents: Sendable { let id: Int }

    static let definition: Definition<GetUser> = Definition(method: .get, path: "users/\(path: \.id)")
    let pathComponents: PathComponents
}

/// `GET status`: answers 503 with `Retry-After: 1` every other call, to show a retry.
struct ServiceStatus: Endpoint {
    typealias Server = DemoServer
    struct Response: Decodable, Sendable { let status: String }
    typealias ErrorResponse = ApiError
    static var auth: NoAuth { NoAuth() }
    static let definition: Definition<ServiceStatus> = Definition(method: .get, path: "status")
}

/// One signed-in client: its base URL and its own `JWTAuth`, passed with every request, so two
/// clients (two accounts, two environments) never share state.
struct DemoClient: Sendable {
    let environment: URL
    let auth: JWTAuth
    let middleware: [any Middleware]

    /// Signs in and returns a client whose tokens refresh themselves through `Refresh`.
    static func signIn(
        at environment: URL,
        username: String = "ada",
        password: String = "correct horse battery staple",
        middleware: [any Middleware] = [],
        refreshes: RefreshCounter
    ) async throws(Login.TaskError) -> DemoClient {
        let tokens = try await URLSession.shared.response(
            with: Login(body: .init(username: username, password: password)),
            environment: environment,
            middleware: middleware
        )
        let auth = JWTAuth(
            initialTokens: tokens.pair,
            expiryLeeway: 0.5,
            refreshHandler: { refreshToken in
                refreshes.increment()
                let fresh = try await URLSession.shared.response(
                    with: Refresh(body: .init(refreshToken: refreshToken)),
                    environment: environment,
                    middleware: middleware
                )
                return fresh.pair
            }
        )
        return DemoClient(environment: environment, auth: auth, middleware: middleware)
    }

    func send<E: Endpoint>(_ endpoint: E) async throws(E.TaskError) -> E.Response
    where E.Auth == JWTAuth, E.Server == DemoServer {
        try await URLSession.shared.response(
            with: endpoint, environment: environment, auth: auth, middleware: middleware)
    }
}

extension Tokens {
    var pair: JWTAuth.TokenPair {
        JWTAuth.TokenPair(
            accessToken: accessToken, refreshToken: refreshToken, expiresAt: Date().addingTimeInterval(expiresIn))
    }
}
