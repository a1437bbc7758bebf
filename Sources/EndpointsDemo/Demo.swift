import Endpoints
import EndpointsTestServer
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The demo: starts two loopback servers in this process ("staging" and "production"), defines a
// few endpoints against them, and reports what each call returned. `main.swift` prints it; a test
// runs it and checks what it reports.

/// The demo's server. Its environments are base URLs picked at run time, since the loopback
/// servers listen on ephemeral ports; an app would list fixed URLs in `baseUrls` instead.
struct DemoServer: ServerDefinition {
    typealias Environments = URL
    var baseUrls: [URL: URL] { [:] }
    static var defaultEnvironment: URL { URL(string: "http://127.0.0.1:1")! }
    func baseURL(for environment: URL) -> URL? { environment }
}

struct User: Codable, Sendable {
    let id: Int
    let name: String
}

struct ApiError: Decodable, Sendable, CustomStringConvertible {
    let code: Int
    let message: String
    var description: String { "ApiError(code: \(code), message: \"\(message)\")" }
}

/// GET users/{id}
struct GetUser: Endpoint {
    typealias Server = DemoServer
    typealias Response = User
    typealias ErrorResponse = ApiError
    struct PathComponents { let id: Int }

    static let definition: Definition<GetUser> = Definition(method: .get, path: "users/\(path: \.id)")
    let pathComponents: PathComponents
}

/// POST users with a JSON body
struct CreateUser: Endpoint {
    typealias Server = DemoServer
    typealias Response = User
    typealias ErrorResponse = ApiError
    struct Body: Encodable { let name: String }

    static let definition: Definition<CreateUser> = Definition(method: .post, path: "users")
    let body: Body
}

/// GET search?q=…: hostile input stays one query value
struct Search: Endpoint {
    typealias Server = DemoServer
    struct Response: Decodable, Sendable { let query: String }
    struct ParameterComponents { let term: String }

    static let definition: Definition<Search> = Definition(
        method: .get,
        path: "search",
        parameters: [.query("q", path: \.term)]
    )
    let parameterComponents: ParameterComponents
}

/// GET files/{name}
struct GetFile: Endpoint {
    typealias Server = DemoServer
    typealias Response = Data
    struct PathComponents { let name: String }

    static let definition: Definition<GetFile> = Definition(method: .get, path: "files/\(path: \.name)")
    let pathComponents: PathComponents
}

func startServer(named name: String) throws -> TestServer {
    let server = try TestServer()
    server.route("/users/*") { request in
        guard let id = Int(request.rawPath.split(separator: "/").last ?? ""), id > 0 else {
            return .json(raw: #"{"code":404,"message":"no such user on \#(name)"}"#, status: 404)
        }
        return .json(User(id: id, name: "User \(id) from \(name)"))
    }
    server.route("/users") { request in
        let body = (try? JSONDecoder().decode([String: String].self, from: request.body)) ?? [:]
        return .json(User(id: 7, name: body["name"] ?? "?"), status: 201)
    }
    server.route("/search") { request in
        .json(["query": request.queryValue("q") ?? ""])
    }
    return server
}

/// Runs the demo, handing each line it reports to `output`.
enum Demo {
    static func run(output: (String) -> Void) async throws {
        let production = try startServer(named: "production")
        let staging = try startServer(named: "staging")
        defer {
            production.stop()
            staging.stop()
        }

        output("Endpoints demo — servers on \(production.baseURL) (production) and \(staging.baseURL) (staging)\n")

        let user = try await URLSession.shared.response(
            with: GetUser(pathComponents: .init(id: 42)), environment: production.baseURL)
        output("1. GET users/42 → typed response: \(user)")

        let created = try await URLSession.shared.response(
            with: CreateUser(body: .init(name: "Ada")), environment: production.baseURL)
        output("2. POST users {\"name\":\"Ada\"} → typed response: \(created)")

        do {
            _ = try await URLSession.shared.response(
                with: GetUser(pathComponents: .init(id: 0)), environment: production.baseURL)
            output("3. GET users/0 → unexpectedly succeeded")
        } catch {
            switch error {
            case .errorResponse(let http, let body):
                output("3. GET users/0 → typed error body, status \(http.statusCode): \(body)")
            default:
                output("3. GET users/0 → \(error)")
            }
        }

        let fromStaging = try await URLSession.shared.response(
            with: GetUser(pathComponents: .init(id: 42)), environment: staging.baseURL)
        output("4. Same endpoint, per-request environment (staging) → \(fromStaging)")

        let term = "swift & linux = fun/100%?"
        let echoed = try await URLSession.shared.response(
            with: Search(parameterComponents: .init(term: term)), environment: production.baseURL)
        output(
            "5. GET search?q=\(term) → the server read back \"\(echoed.query)\" (\(echoed.query == term ? "unchanged" : "CHANGED"))"
        )

        let escaped = try GetFile(pathComponents: .init(name: "../etc/passwd")).urlRequest(
            environment: production.baseURL)
        output("6. A path value is one segment: \"../etc/passwd\" → \(escaped.url!.absoluteString)")

        do {
            _ = try GetFile(pathComponents: .init(name: "..")).urlRequest(environment: production.baseURL)
        } catch {
            output("7. A value that would change the path's shape is refused before sending: \(error)")
        }
    }
}
