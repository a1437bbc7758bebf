import Endpoints
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct KeyServer: ServerDefinition {
    static let auth = HeaderKeyAuth(key: "my-api-key")
    var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com")!] }
}

struct ProfileEndpoint: Endpoint {
    typealias Server = KeyServer
    static let definition: Definition<ProfileEndpoint> = Definition(method: .get, path: "profile")
    struct Response: Decodable { let name: String }
}

// Must not compile: endpointTask returns its task synchronously and cannot await authentication.
func start() -> URLSessionDataTask {
    URLSession.shared.endpointTask(with: ProfileEndpoint()) { _ in }
}
