import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The custom middleware of Endpoints.docc/MiddlewareGuide.md, as written there: the seed's
// ErrorInterceptor, decoding a generic error body into a typed error.

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

/// A server that declares the middleware for all its endpoints, as in the article.
struct ErrorBodyServer: ServerDefinition {
    typealias Environments = URL
    var baseUrls: [URL: URL] { [:] }
    static var defaultEnvironment: URL { URL(string: "http://127.0.0.1:9")! }
    func baseURL(for environment: URL) -> URL? { environment }
    static var middleware: [any Middleware] { [ErrorBodyMiddleware()] }
}

/// `GET /{route}` on ``ErrorBodyServer``.
struct ErrorBodyGet: Endpoint {
    typealias Server = ErrorBodyServer
    typealias Response = Data

    struct PathComponents: Sendable { let route: String }
    static let definition: Definition<ErrorBodyGet> = Definition(method: .get, path: "\(path: \.route)")
    let pathComponents: PathComponents
}

/// Records the order middleware runs in.
struct OrderRecorder: Middleware {
    let name: String
    let trail: TestLocked<[String]>

    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        trail.withLock { $0.append("→\(name)") }
        let result = try await next(request)
        trail.withLock { $0.append("←\(name)") }
        return result
    }
}

@Suite struct MiddlewareArticleTests {
    @Test func errorBodyBecomesATypedMiddlewareError() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let session = makeMiddlewareTestSession()
        await #expect {
            // The built-in /status/418 answers 418 with {"code": 418, "message": "status code"}.
            try await session.response(
                with: ErrorBodyGet(pathComponents: .init(route: "418")),
                environment: server.url("/status")
            )
        } throws: { error in
            guard let error = error as? ErrorBodyGet.TaskError, case .middlewareError(let inner) = error else {
                return false
            }
            return inner as? MyApiError == MyApiError(code: 418, message: "status code")
        }
        server.route("/teapot") { _ in .json(raw: #"{"code":7,"message":"I'm a teapot"}"#, status: 422) }
        await #expect {
            try await session.response(
                with: ErrorBodyGet(pathComponents: .init(route: "teapot")), environment: server.baseURL)
        } throws: { error in
            guard let error = error as? ErrorBodyGet.TaskError,
                case .middlewareError(let apiError as MyApiError) = error
            else { return false }
            return apiError == MyApiError(code: 7, message: "I'm a teapot")
        }
    }

    @Test func successAndUndecodableErrorsPassThrough() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/ok") { _ in .json(raw: #"{"code":1,"message":"fine"}"#) }
        server.route("/plain-error") { _ in .text("nope", status: 500) }
        let session = makeMiddlewareTestSession()
        let data = try await session.response(
            with: ErrorBodyGet(pathComponents: .init(route: "ok")), environment: server.baseURL)
        #expect(String(decoding: data, as: UTF8.self) == #"{"code":1,"message":"fine"}"#)
        await #expect {
            try await session.response(
                with: ErrorBodyGet(pathComponents: .init(route: "plain-error")), environment: server.baseURL)
        } throws: { error in
            guard let error = error as? ErrorBodyGet.TaskError, case .errorResponse(let http, _) = error else {
                return false
            }
            return http.statusCode == 500
        }
    }

    @Test func serverMiddlewareIsOutsidePerRequestMiddlewareAndTheFirstIsOutermost() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let trail = TestLocked([String]())
        _ = try await makeMiddlewareTestSession().response(
            with: ErrorBodyGet(pathComponents: .init(route: "echo")),
            environment: server.baseURL,
            middleware: [OrderRecorder(name: "a", trail: trail), OrderRecorder(name: "b", trail: trail)]
        )
        #expect(trail.withLock { $0 } == ["→a", "→b", "←b", "←a"])
    }

    @Test func loggingInsideRetrySeesEveryAttemptAndOutsideSeesOneCall() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let calls = TestLocked(0)
        server.route("/twice") { _ in
            calls.withLock { count in
                count += 1
                return count
            } == 1 ? .status(503) : .json(raw: "{}")
        }
        let inner = LogCapture()
        let outer = LogCapture()
        _ = try await makeMiddlewareTestSession().response(
            with: MiddlewareGet("twice"),
            environment: server.baseURL,
            middleware: [
                LoggingMiddleware(sink: outer.sink), RetryMiddleware(clock: TestClock()),
                LoggingMiddleware(sink: inner.sink),
            ]
        )
        #expect(inner.all.filter { $0.hasPrefix("←") }.map { $0.split(separator: " ")[2] } == ["503", "200"])
        #expect(outer.all.filter { $0.hasPrefix("←") }.map { $0.split(separator: " ")[2] } == ["200"])
    }
}
