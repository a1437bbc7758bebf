import Endpoints
import EndpointsMocking
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The samples of Endpoints.docc/MigratingFrom04.md that compile, as written there. The 0.4 code it
// shows as "before" is in Tests/CompileFailure04, which must not compile.

enum MigratingFrom04Sample {
    struct ApiServer: ServerDefinition {
        var baseUrls: [Environments: URL] {
            return [
                .staging: URL(string: "https://staging-api.example.com")!,
                .production: URL(string: "https://api.example.com")!,
            ]
        }

        static var defaultEnvironment: Environments { .production }
    }

    struct ProfileEndpoint: Endpoint {
        typealias Server = ApiServer
        static let definition: Definition<ProfileEndpoint> = Definition(method: .get, path: "profile")
        struct Response: Decodable { let name: String }
    }

    struct StatusEndpoint: Endpoint {
        typealias Server = ApiServer
        typealias Response = Void
        static let definition: Definition<StatusEndpoint> = Definition(method: .get, path: "status")
    }

    struct Item { let id: Int; let version: Int? }

    struct Upload: Encodable {
        struct Metadata: Encodable { let owner: String }
        let file: MultipartFormFile
        let tags: [String]
        let metadata: MultipartFormJSON<Metadata>
    }

    actor TokenAuth: AuthenticationMethod {
        var token = "expired"

        func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest {
            var request = request
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            return request
        }

        nonisolated func shouldReauthenticate(for error: any Error, response: HTTPURLResponse?) -> Bool {
            response?.statusCode == 401
        }

        func reauthenticate() async throws {
            token = "fresh"
        }
    }

    /// A server whose endpoints use `TokenAuth`, for the per-request `auth:` sample.
    enum Authenticated {
        struct ApiServer: ServerDefinition {
            static let auth = TokenAuth()
            var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com")!] }
        }

        struct ProfileEndpoint: Endpoint {
            typealias Server = ApiServer
            static let definition: Definition<ProfileEndpoint> = Definition(method: .get, path: "profile")
            struct Response: Decodable { let name: String }
        }
    }

    struct Day: ParameterRepresentable {
        let date: Date
        var parameterValue: String? {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withFullDate]
            formatter.timeZone = TimeZone(identifier: "UTC")
            return formatter.string(from: date)
        }
    }

    /// The completion-handler sample. Compiled only: it would send to api.example.com. Its
    /// behaviour is tested by URLSessionExtensionTests04.taskCreationFailure.
    static func sendStatus() {
        do {
            let task = try URLSession.shared.endpointTask(with: StatusEndpoint()) { result in
                print(result)
            }
            task.resume()
        } catch {
            print("not sent: \(error)")
        }
    }
}

@Suite struct MigratingFrom04Samples {
    typealias ProfileEndpoint = MigratingFrom04Sample.ProfileEndpoint
    typealias Item = MigratingFrom04Sample.Item
    typealias Upload = MigratingFrom04Sample.Upload

    @Test func environmentPerRequest() async throws {
        let fake = FakeHTTPTransport()
        fake.register(.get, "/profile", .json(["name": "Zac"]))
        try await withFakeTransport(fake) {
            let profile = try await URLSession.shared.response(with: ProfileEndpoint(), environment: .staging)
            let request = try ProfileEndpoint().urlRequest(environment: .staging)
            #expect(profile.name == "Zac")
            #expect(request.url?.host == "staging-api.example.com")
        }
        #expect(fake.requests.first?.url.host == "staging-api.example.com")
    }

    @Test func pathTemplates() throws {
        let separated: PathTemplate<Item> = "items\(path: \.id)details"
        let joined: PathTemplate<Item> = "items('\(path: \.id, includesSlash: false)')"
        let optional: PathTemplate<Item> = "items/\(path: \.id)\(path: \.version)"
        let composed: PathTemplate<Item> = "api" + 2 + \.id

        #expect(try separated.path(with: Item(id: 42, version: nil)) == "items/42/details")
        #expect(try joined.path(with: Item(id: 42, version: nil)) == "items('42')")
        #expect(try optional.path(with: Item(id: 42, version: nil)) == "items/42")
        #expect(try composed.path(with: Item(id: 42, version: nil)) == "api/2/42")
        #expect(try optional.path(with: Item(id: 42, version: 3)) == "items/42/3")
    }

    @Test func multipart() throws {
        let upload = Upload(
            file: MultipartFormFile(data: Data("hello".utf8), fileName: "greeting.txt", contentType: "text/plain"),
            tags: ["swift", "http"],
            metadata: MultipartFormJSON(Upload.Metadata(owner: "zac"))
        )
        let body = try MultipartFormEncoder(boundary: "b").encode(upload)
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains("name=\"file\"; filename=\"greeting.txt\"\r\nContent-Type: text/plain\r\n\r\nhello"))
        #expect(text.contains("name=\"tags[0]\"\r\n\r\nswift"))
        #expect(text.contains("name=\"tags[1]\"\r\n\r\nhttp"))
        #expect(text.contains("name=\"metadata\"\r\nContent-Type: application/json\r\n\r\n{\"owner\":\"zac\"}"))
    }

    @Test func legacyAuthenticationRefreshes() async throws {
        typealias ProfileEndpoint = MigratingFrom04Sample.Authenticated.ProfileEndpoint
        let fake = FakeHTTPTransport()
        fake.register(.get, "/profile") { request in
            request.headers["Authorization"] == "Bearer fresh" ? .json(["name": "Zac"]) : .status(401)
        }
        let auth = MigratingFrom04Sample.TokenAuth()
        try await withFakeTransport(fake) {
            let profile = try await URLSession.shared.response(with: ProfileEndpoint(), auth: auth)
            #expect(profile.name == "Zac")
        }
        #expect(fake.requests.count == 2)
        #expect(await auth.token == "fresh")
    }

    @Test func continuationMock() async throws {
        try await withMock(ProfileEndpoint.self) { continuation in
            continuation.resume(returning: .init(name: "Zac"))
        } test: {
            let profile = try await URLSession.shared.response(with: ProfileEndpoint())
            #expect(profile.name == "Zac")
        }
    }

    @Test func dayParameter() {
        let day = MigratingFrom04Sample.Day(date: Date(timeIntervalSince1970: 1_764_547_200))
        #expect(day.parameterValue == "2025-12-01")
    }
}
