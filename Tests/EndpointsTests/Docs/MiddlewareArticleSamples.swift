import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The first samples of Endpoints.docc/MiddlewareGuide.md (the protocol and declaring the chain), which
// the README's middleware section repeats, as written there and run against a loopback server.

enum MiddlewareChainSample {
    struct UserAgent: Middleware {
        func intercept(
            _ request: URLRequest,
            context: RequestContext,
            next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
        ) async throws -> (Data, HTTPURLResponse) {
            var request = request
            request.setValue("MyApp/1.0", forHTTPHeaderField: "User-Agent")
            return try await next(request)
        }
    }

    struct ApiServer: ServerDefinition {
        var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com")!] }
        static let middleware: [any Middleware] = [RetryMiddleware(), LoggingMiddleware(level: .headers)]
    }

    struct UploadEndpoint: Endpoint {
        typealias Server = ApiServer
        typealias Response = DocSampleEcho
        struct Body: Encodable, Sendable { let name: String }
        static let definition: Definition<UploadEndpoint> = Definition(method: .post, path: "echo/upload")
        let body: Body
        static var middleware: [any Middleware] { Server.middleware + [LoggingMiddleware(level: .bodies)] }
    }

    struct HealthEndpoint: Endpoint {
        typealias Server = ApiServer
        typealias Response = Void
        static let definition: Definition<HealthEndpoint> = Definition(method: .get, path: "health")
        static var middleware: [any Middleware] { [] }  // no retries, no logging
    }

    struct ProfileEndpoint: Endpoint {
        typealias Server = ApiServer
        static let definition: Definition<ProfileEndpoint> = Definition(method: .get, path: "profile")
        struct Response: Decodable { let name: String }
    }

    struct EchoEndpoint: Endpoint {
        typealias Server = ApiServer
        typealias Response = DocSampleEcho
        static let definition: Definition<EchoEndpoint> = Definition(method: .get, path: "echo")
    }

    static func sendProfile() async throws -> ProfileEndpoint.Response {
        let profile = try await URLSession.shared.response(
            with: ProfileEndpoint(),
            middleware: [LoggingMiddleware(level: .bodies)]
        )
        return profile
    }
}

@Suite struct MiddlewareChainSampleTests {
    typealias Sample = MiddlewareChainSample

    @Test func userAgentMiddlewareSetsTheHeaderOnTheWire() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let echo = try await withLoopback(to: server) {
            try await URLSession.shared.response(with: Sample.EchoEndpoint(), middleware: [Sample.UserAgent()])
        }
        #expect(echo.headers["user-agent"] == "MyApp/1.0")
        #expect(echo.path == "/echo")
    }

    /// On a thread of its own (`.timingBound`): the sample's `RetryMiddleware()` keeps its default
    /// 30 s budget, and in a run beside two busy loops the first 503 came back after 35 s, when
    /// the process's cooperative pool stalled, so the retry was refused as over budget.
    @Test(.timingBound) func serverChainRetriesAndPerRequestLoggingStillGetsTheProfile() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let calls = TestLocked(0)
        server.route("/profile") { _ in
            let call = calls.withLock { count in
                count += 1
                return count
            }
            return call == 1 ? .status(503) : .json(["name": "Ada"])
        }
        let profile = try await withLoopback(to: server) { try await Sample.sendProfile() }
        #expect(profile.name == "Ada")
        #expect(server.requestCount == 2)  // the server's RetryMiddleware resent after the 503
    }

    @Test func anEndpointExtendsTheServersChain() async throws {
        let server = try TestServer()
        defer { server.stop() }
        #expect(Sample.UploadEndpoint.middleware.count == Sample.ApiServer.middleware.count + 1)
        #expect(Sample.UploadEndpoint.middleware.last is LoggingMiddleware)
        let echo = try await withLoopback(to: server) {
            try await URLSession.shared.response(with: Sample.UploadEndpoint(body: .init(name: "photo")))
        }
        #expect(echo.method == "POST")
        #expect(echo.path == "/echo/upload")
    }

    @Test func anEndpointReplacesTheServersChainAndIsNotRetried() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/health") { _ in .status(503) }
        #expect(Sample.HealthEndpoint.middleware.isEmpty)
        await #expect {
            try await withLoopback(to: server) { try await URLSession.shared.response(with: Sample.HealthEndpoint()) }
        } throws: { error in
            guard let error = error as? Sample.HealthEndpoint.TaskError, case .errorResponse(let http, _) = error else {
                return false
            }
            return http.statusCode == 503
        }
        #expect(server.requestCount == 1)
    }
}
