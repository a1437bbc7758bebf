import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The README's EndpointsTestServer sample, run for real.

enum ReadmeTestServerSample {
    struct LocalServer: ServerDefinition {
        typealias Environments = URL  // the environment is the base URL
        var baseUrls: [URL: URL] { [:] }
        static var defaultEnvironment: URL { URL(string: "http://127.0.0.1:8080")! }
        func baseURL(for environment: URL) -> URL? { environment }
    }

    struct UserEndpoint: Endpoint {
        typealias Server = LocalServer
        struct Response: Decodable { let name: String }
        struct PathComponents { let id: Int }
        static let definition: Definition<UserEndpoint> = Definition(method: .get, path: "users/\(path: \.id)")
        let pathComponents: PathComponents
    }
}

@Suite struct ReadmeTestServerSampleTests {
    @Test func localServerReachesTheTestServer() async throws {
        typealias Sample = ReadmeTestServerSample
        let server = try TestServer()  // an ephemeral port on 127.0.0.1
        defer { server.stop() }
        server.route("/users/*") { request in .json(["name": "Ada"]) }

        let user = try await URLSession.shared.response(
            with: Sample.UserEndpoint(pathComponents: .init(id: 1)),
            environment: server.baseURL
        )
        #expect(user.name == "Ada")
        #expect(server.requests.last?.rawPath == "/users/1")
    }
}
