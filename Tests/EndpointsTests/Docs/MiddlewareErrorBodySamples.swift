import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// "Writing your own: decoding a generic error body" of Endpoints.docc/MiddlewareGuide.md (and the
// README's middleware section), as written there and run against a loopback server.

enum MiddlewareErrorBodySample {
    struct MyApiError: Error, Decodable, Equatable {
        let code: Int
        let message: String
    }

    struct ErrorBodyMiddleware: Middleware {
        func intercept(
            _ request: URLRequest,
            context: RequestContext,
            next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
        ) async throws -> (Data, HTTPURLResponse) {
            let (data, response) = try await next(request)
            if !(200..<300).contains(response.statusCode),
                let apiError = try? JSONDecoder().decode(MyApiError.self, from: data)
            {
                throw apiError
            }
            return (data, response)
        }
    }

    struct ApiServer: ServerDefinition {
        var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com")!] }
        static var middleware: [any Middleware] { [ErrorBodyMiddleware()] }
    }

    struct UsersEndpoint: Endpoint {
        typealias Server = ApiServer
        static let definition: Definition<UsersEndpoint> = Definition(method: .get, path: "users")
        struct Response: Decodable { let names: [String] }
    }

    /// The sample; `print` is whatever the caller passes, so the test can read what it printed.
    static func loadUsers(print: (Int, String) -> Void) async {
        do {
            let users = try await URLSession.shared.response(with: UsersEndpoint())
            _ = users
        } catch {
            if case .middlewareError(let apiError as MyApiError) = error {
                print(apiError.code, apiError.message)
            }
        }
    }
}

@Suite struct MiddlewareErrorBodySampleTests {
    typealias Sample = MiddlewareErrorBodySample

    @Test func theGenericErrorBodyReachesTheCallerAsMyApiError() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/users") { _ in .json(raw: #"{"code":42,"message":"quota exceeded"}"#, status: 429) }
        let printed = TestLocked([String]())
        await withLoopback(to: server) {
            await Sample.loadUsers { code, message in printed.withLock { $0.append("\(code) \(message)") } }
        }
        #expect(printed.withLock { $0 } == ["42 quota exceeded"])
    }

    @Test func successAndOtherBodiesAreLeftAlone() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/users") { _ in .json(["names": ["Ada"]]) }
        let users = try await withLoopback(to: server) {
            try await URLSession.shared.response(with: Sample.UsersEndpoint())
        }
        #expect(users.names == ["Ada"])

        server.route("/users") { _ in .text("down for maintenance", status: 500) }
        await #expect {
            try await withLoopback(to: server) { try await URLSession.shared.response(with: Sample.UsersEndpoint()) }
        } throws: { error in
            // The text is no MyApiError, so the endpoint's own handling applies: a non-2xx error.
            (error as? Sample.UsersEndpoint.TaskError)?.statusCode == 500
        }
    }
}
