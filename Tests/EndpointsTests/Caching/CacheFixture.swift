import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A loopback server, a cache with a clock the test moves, and a client sending through both (and
/// `transport`, over a session of its own for URLSession's).
final class CacheFixture: Sendable {
    let server: TestServer
    let clock = TestLocked(Date(timeIntervalSince1970: 1_800_000_000))
    let cache: HTTPCache
    let session: URLSession
    let transport: TestTransport

    init(
        storage: HTTPCache.Storage = .memory(maximumBytes: 1 << 20), coalescing: Bool = false,
        via transport: TestTransport = .urlSession
    ) throws {
        self.transport = transport
        server = try TestServer()
        let clock = self.clock
        cache = HTTPCache(storage: storage, coalescing: coalescing, servesStaleWhenOffline: true) {
            clock.withLock { $0 }
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    deinit { server.stop() }

    var client: EndpointClient { transport.client(session: session, middleware: [cache]) }

    /// Moves the cache's clock forward.
    func advance(_ seconds: TimeInterval) { clock.withLock { $0 += seconds } }

    /// Counts the requests to `path` and answers each with `respond(request, index)`.
    @discardableResult
    func route(
        _ path: String, _ respond: @escaping @Sendable (TestServer.Request, Int) -> TestServer.Response
    ) -> TestLocked<[TestServer.Request]> {
        let seen = TestLocked<[TestServer.Request]>([])
        server.route(path) { request in
            let index = seen.withLock { seen in
                seen.append(request)
                return seen.count - 1
            }
            return respond(request, index)
        }
        return seen
    }

    /// GETs `path` through the cache: the body and the response.
    func get(
        _ path: String,
        headers: [(String, String)] = [],
        auth: (any AuthenticationMethod)? = nil,
        accepting codes: StatusCodes = .successful
    ) async throws -> (String, HTTPURLResponse) {
        var request = Request<Data>.get(RequestTarget(server.url(path).absoluteString)).acceptableStatusCodes(codes)
        for (name, value) in headers { request = request.header(Header(name), value) }
        if let auth { request = request.auth(auth) }
        let result = try await client.typedResponse(for: request)
        return (String(decoding: result.value, as: UTF8.self), result.httpResponse)
    }

    /// Sends `method` to `path` through the cache.
    func send(_ method: Method, _ path: String) async throws {
        _ = try await client.typedResponse(
            for: Request<Data>.request(method, RequestTarget(server.url(path).absoluteString)))
    }
}

extension TestServer.Response {
    /// A 200 text response with `headers`.
    static func text(_ body: String, _ headers: [(String, String)]) -> TestServer.Response {
        TestServer.Response(status: 200, headers: headers.map { (name: $0.0, value: $0.1) }, body: Data(body.utf8))
    }
}
