// Endpoints 0.4 code that must not compile against this package, each with a message that names
// the new spelling. scripts/check-migration-compile-errors.sh lists the expected diagnostics.
import Endpoints
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct ApiServer: ServerDefinition {
    var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com")!] }
}

// 1. The global environment.
func switchEnvironment() {
    ApiServer.environment = .staging
}

// 2. 0.4's path value protocol.
struct LegacyID: PathRepresentable {
    var pathSafe: String { "id" }
}

// 3. A parameter that is not representable (0.4 threw EndpointError at run time).
struct InvalidEndpoint: Endpoint {
    typealias Server = ApiServer
    typealias Response = Void

    static let definition: Definition<InvalidEndpoint> = Definition(
        method: .get,
        path: "/",
        parameters: [
            .query("path", path: \.nonEncodable)
        ]
    )

    struct ParameterComponents {
        enum MyEnum { case value }
        let nonEncodable: MyEnum
    }

    let parameterComponents: ParameterComponents
}

struct ProfileEndpoint: Endpoint {
    typealias Server = ApiServer
    static let definition: Definition<ProfileEndpoint> = Definition(method: .get, path: "profile")
    struct Response: Decodable { let name: String }
}

// 4. A custom authentication method with 0.4's untyped `throws`.
struct LegacyAuth: AuthenticationMethod {
    func authenticate(request: URLRequest) async throws -> URLRequest { request }
}

// 5. The authenticated session wrapper (MigratingFrom04.md's "before" sample).
func legacySession(auth: NoAuth) async throws {
    let session = AuthenticatedSession(auth: auth)
    let profile = try await session.response(with: ProfileEndpoint())
    _ = profile
}

// 6. A definition with a server instance.
struct ServerInDefinition: Endpoint {
    typealias Server = ApiServer
    typealias Response = Void
    static let definition: Definition<ServerInDefinition> = Definition(server: ApiServer(), method: .get, path: "/")
}

// 7. 0.4's authentication errors.
func legacyError() throws {
    throw AuthenticationError.refreshNotSupported
}

// 8. The protocol before ServerDefinition.
struct OldServer: EnvironmentType {}

// 9. 0.4's default server.
let generic: GenericServer? = nil
