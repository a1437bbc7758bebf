import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server whose environment is its base URL, so each test passes its own loopback server's URL.
struct MiddlewareTestServer: ServerDefinition {
    typealias Environments = URL
    var baseUrls: [URL: URL] { [:] }
    static var defaultEnvironment: URL { URL(string: "http://127.0.0.1:9")! }
    func baseURL(for environment: URL) -> URL? { environment }
}

/// The `{"code", "message"}` body of `/status/{code}`.
struct MiddlewareErrorBody: Decodable, Sendable, Equatable {
    let code: Int
    let message: String
}

/// The parts of `/echo`'s body the tests compare.
struct MiddlewareEcho: Decodable, Sendable, Equatable {
    let method: String
    let path: String
    let query: String?
    let headers: [String: String]
    let bodyBase64: String
}

/// `GET /{route}`, the body as `Data`.
struct MiddlewareGet: Endpoint {
    typealias Server = MiddlewareTestServer
    typealias Response = Data
    typealias ErrorResponse = MiddlewareErrorBody

    struct PathComponents: Sendable { let route: String }

    static let definition: Definition<MiddlewareGet> = Definition(method: .get, path: "\(path: \.route)")

    let pathComponents: PathComponents
    init(_ route: String) { pathComponents = PathComponents(route: route) }
}

/// `POST /{route}`, optionally with an `Idempotency-Key`.
struct MiddlewarePost: Endpoint {
    typealias Server = MiddlewareTestServer
    typealias Response = Data
    typealias ErrorResponse = MiddlewareErrorBody

    struct PathComponents: Sendable { let route: String }
    struct HeaderComponents: Sendable { let idempotencyKey: String? }

    static let definition: Definition<MiddlewarePost> = Definition(
        method: .post,
        path: "\(path: \.route)",
        headers: [Header("Idempotency-Key").value(path: \.idempotencyKey)]
    )

    let pathComponents: PathComponents
    let headerComponents: HeaderComponents
    init(_ route: String, idempotencyKey: String? = nil) {
        pathComponents = PathComponents(route: route)
        headerComponents = HeaderComponents(idempotencyKey: idempotencyKey)
    }
}

/// A clock that never waits: it records each wait and moves its own time forward by it.
final class TestClock: MiddlewareClock {
    private let state: TestLocked<(now: Date, slept: [TimeInterval])>

    init(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        state = TestLocked((now: start, slept: []))
    }

    var now: Date { state.withLock { $0.now } }
    var slept: [TimeInterval] { state.withLock { $0.slept } }

    func sleep(seconds: TimeInterval) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.now += seconds
            state.slept.append(seconds)
        }
    }
}

/// Collects log messages.
final class LogCapture: Sendable {
    private let messages = TestLocked([String]())

    var text: String { messages.withLock { $0.joined(separator: "\n") } }
    var all: [String] { messages.withLock { $0 } }

    var sink: @Sendable (String) -> Void { { [self] message in messages.withLock { $0.append(message) } } }
}

/// A value behind a lock, for test doubles.
final class TestLocked<Value>: @unchecked Sendable {
    // @unchecked Sendable: every access to `value` goes through `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// A fresh ephemeral session, so cookies and connections never cross tests.
func makeMiddlewareTestSession() -> URLSession {
    URLSession(configuration: .ephemeral)
}

/// Sends a raw request through `middleware` and the real transport, as the pipeline does.
func sendThrough(
    _ middleware: some Middleware,
    _ request: URLRequest,
    session: URLSession,
    context: RequestContext = RequestContext(endpointName: "Raw")
) async throws -> (Data, HTTPURLResponse) {
    let transport = URLSessionTransport(session: session)
    return try await middleware.intercept(request, context: context) { request in
        try await transport.send(request, context: context)
    }
}
