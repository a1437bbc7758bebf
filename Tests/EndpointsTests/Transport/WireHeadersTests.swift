import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sets the request's body to `raw=1` with no `Content-Type`, as a hand-made request would have.
private struct UntypedBody: Middleware {
    func intercept(
        _ request: URLRequest, context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        var request = request
        request.httpBody = Data("raw=1".utf8)
        request.setValue(nil, forHTTPHeaderField: "Content-Type")
        return try await next(request)
    }
}

/// The headers a request carries on the wire that nobody set, through every transport.
@Suite struct WireHeadersTests {
    /// No transport names a body the request did not name, but for URLSession's own rule: a POST
    /// with a body goes as `application/x-www-form-urlencoded`. libcurl names every body it posts
    /// so, empty ones included (a PUT with nothing in it went out as a form).
    @Test(
        arguments: [
            (Method.post, true, "application/x-www-form-urlencoded"), (.put, true, nil), (.delete, true, nil),
            (.post, false, nil), (.put, false, nil), (Method(rawValue: "PROPFIND"), false, nil),
        ], TestTransport.all)
    func aBodyIsNamedOnlyAsURLSessionNamesIt(
        sent: (method: Method, hasBody: Bool, contentType: String?), via transport: TestTransport
    ) async throws {
        let (method, hasBody, expected) = sent
        let server = try TestServer()
        defer { server.stop() }
        server.route("/p") { _ in .text("ok") }
        let request = Request<Data>.request(method, RequestTarget(server.url("/p").absoluteString))
            .middleware(hasBody ? [UntypedBody()] : [])
        _ = try await transport.client().response(for: request)
        let received = try #require(server.requests.last)
        #expect(received.method == method.rawValue)
        #if canImport(FoundationNetworking)
            #expect(received.header("Content-Type") == expected)
        #else
            _ = expected  // Apple's URLSession names bodies by rules of its own, not run here.
        #endif
        #expect(received.body == (hasBody ? Data("raw=1".utf8) : Data()))
    }

    /// A GET with a body (Elasticsearch's search, say) goes out through `CurlTransport`; URLSession
    /// refuses it before sending, with `URLError.dataLengthExceedsMaximum`, on Linux as Apple does.
    @Test(arguments: TestTransport.all)
    func aGetWithABodyIsSentByLibcurlAlone(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/search") { _ in .text("found") }
        let request = Request<Data>.request(.get, RequestTarget(server.url("/search").absoluteString), body: ["q": 1])
        let result: Result<Data, EndpointTaskError<EmptyCodable>>
        do { result = .success(try await transport.client().response(for: request)) } catch { result = .failure(error) }
        if transport == .urlSession {
            #expect(result.failure()?.urlErrorCode == .dataLengthExceedsMaximum)
            #expect(server.requestCount == 0)
            return
        }
        #expect(try result.get() == Data("found".utf8))
        #expect(server.requests.last?.body == Data(#"{"q":1}"#.utf8))
    }
}
