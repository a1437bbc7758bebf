import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Seed 001 (an `Api.send(.get(...))` client with interceptors) in our API: typed results from an
// absolute URL, a base URL and an API key declared once for many requests (production and staging
// are environments of one server), interceptors as middleware, and an error body decoded for a bad
// status. The samples name their hosts; `withLoopback` sends them to a local TestServer.

struct AppUser: Codable, Sendable, Equatable {
    let id: Int
    let name: String
}

struct CreateUser: Encodable, Sendable {
    let name: String
}

struct MobileApiError: Decodable, Sendable, Equatable {
    let code: Int
    let message: String
}

/// The production and staging targets of seed 001 are two environments of one server, whose API
/// key goes in a header of every request, and whose requests are all logged.
struct MobileServer: ServerDefinition {
    var baseUrls: [Environments: URL] {
        [
            .production: URL(string: "https://mobile.example.com")!,
            .staging: URL(string: "https://staging.mobile.example.com")!,
        ]
    }

    static let auth = HeaderKeyAuth(key: "my-api-key", header: "API-Key", prefix: nil)
    static var middleware: [any Middleware] { [LoggingMiddleware(level: .bodies, sink: MobileLog.sink)] }
}

enum MobileApi {
    static let services = RequestBase(MobileServer.self)
}

extension Request where Response == [AppUser] {
    static var allUsers: Self { .get("users", on: MobileApi.services) }
}

extension Request where Response == AppUser {
    static func createUser(_ user: CreateUser) -> Self {
        .post("users", on: MobileApi.services, body: user)
    }
}

/// Where the sample's logging goes: kept, so a test can read it.
enum MobileLog {
    static let lines = TestLocked([String]())
    static let sink: @Sendable (String) -> Void = { line in lines.withLock { $0.append(line) } }
}

/// A users service; the tests read the API key it was sent from its recorded requests.
func usersServer() throws -> TestServer {
    let server = try TestServer()
    let users = [AppUser(id: 1, name: "Leanne"), AppUser(id: 2, name: "Ervin")]
    server.route("/users") { request in
        if request.method == "POST" {
            let new = (try? JSONDecoder().decode([String: String].self, from: request.body)) ?? [:]
            return .json(AppUser(id: 3, name: new["name"] ?? "?"), status: 201)
        }
        return .json(users)
    }
    server.route("/broken") { _ in .json(raw: #"{"code": 503, "message": "down for maintenance"}"#, status: 503) }
    return server
}

@Suite struct Seed001Samples {
    @Test func typedResultFromAnAbsoluteURL() async throws {
        let server = try usersServer()
        defer { server.stop() }
        try await withLoopback(to: server) {
            let users: [AppUser] = try await URLSession.shared.response(
                for: .get("https://jsonplaceholder.typicode.com/users"))
            #expect(users.map(\.name) == ["Leanne", "Ervin"])
        }
    }

    @Test func completionHandlerReturnsSomethingCancellable() async throws {
        let server = try usersServer()
        defer { server.stop() }
        let names = try await withLoopback(to: server) {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[String], any Error>) in
                do {
                    let task = try URLSession.shared.endpointTask(
                        for: .get("https://jsonplaceholder.typicode.com/users")
                    ) {
                        (result: Result<[AppUser], Request<[AppUser]>.TaskError>) in
                        switch result {
                        case let .success(users):
                            continuation.resume(returning: users.map(\.name))
                        case let .failure(error):
                            continuation.resume(throwing: error)
                        }
                    }
                    task.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        #expect(names == ["Leanne", "Ervin"])

        // The task is the cancellable: cancelled before it ran, it completes with `.cancelled`.
        let cancelled = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<Request<[AppUser]>.TaskError?, any Error>) in
            do {
                let task = try URLSession.shared.endpointTask(for: Request<[AppUser]>.allUsers) { result in
                    continuation.resume(returning: result.failure())
                }
                task.cancel()
                task.resume()
            } catch {
                continuation.resume(throwing: error)
            }
        }
        #expect(cancelled?.isCancelled == true)
    }

    @Test func aTaskThatCannotBeBuiltThrowsWhenItIsMade() {
        #expect(throws: Request<[AppUser]>.TaskError.self) {
            try URLSession.shared.endpointTask(for: Request<[AppUser]>.get("not a url")) { _ in }
        }
    }

    @Test func baseURLAndAPIKeyDeclaredOnce() async throws {
        let server = try usersServer()
        defer { server.stop() }
        try await withLoopback(to: server) {
            let users = try await URLSession.shared.response(for: .allUsers)
            #expect(users.count == 2)
            let created = try await URLSession.shared.response(for: .createUser(CreateUser(name: "Clementine")))
            #expect(created == AppUser(id: 3, name: "Clementine"))
        }
        #expect(server.requests.map { $0.header("API-Key") } == ["my-api-key", "my-api-key"])
        #expect(server.requests.map(\.method) == ["GET", "POST"])
    }

    @Test func stagingIsAnotherEnvironmentOfTheSameServer() throws {
        let staging = RequestBase(MobileServer.self, environment: .staging)
        let request = try Request<[AppUser]>.get("users", on: staging).urlRequest()
        #expect(request.url?.absoluteString == "https://staging.mobile.example.com/users")
    }

    @Test func interceptorsAreMiddlewareAndTheKeyIsRedacted() async throws {
        let server = try usersServer()
        defer { server.stop() }
        let marker = "seed-001-\(UUID().uuidString)"
        try await withLoopback(to: server) {
            _ = try await URLSession.shared.response(for: Request<[AppUser]>.allUsers.header("X-Marker", marker))
        }
        let logged = MobileLog.lines.withLock { $0 }.filter { $0.contains(marker) }
        #expect(!logged.isEmpty)
        #expect(!logged.joined().contains("my-api-key"))
    }

    @Test func aBadStatusDecodesTheErrorBody() async throws {
        let server = try usersServer()
        defer { server.stop() }
        let broken = Request<[AppUser]>.get("broken", on: MobileApi.services).errorBody(MobileApiError.self)
        let result = await outcome(loopback: server) { () async throws(EndpointTaskError<MobileApiError>) in
            try await URLSession.shared.response(for: broken)
        }
        guard case .errorResponse(let http, let apiError) = result.failure() else {
            Issue.record("expected .errorResponse, got \(result)")
            return
        }
        #expect(http.statusCode == 503)
        #expect(apiError == MobileApiError(code: 503, message: "down for maintenance"))
    }
}
