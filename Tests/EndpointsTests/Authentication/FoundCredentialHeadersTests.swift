import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A custom method that signs into a header of its own and declares nothing about it.
private struct SignatureAuth: AuthenticationMethod {
    static let signature = "sig-s3cr3t-0123456789"

    func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest {
        var request = request
        request.setValue(Self.signature, forHTTPHeaderField: "X-Signature")
        return request
    }
}

/// `GET /{route}` with `X-Trace: trace-1`, signed by ``SignatureAuth``, decoded as ``Echo``.
private struct SignedEchoEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Echo
    typealias ErrorResponse = APIError

    static let auth = SignatureAuth()
    static let definition: Definition<SignedEchoEndpoint> = Definition(
        path: "\(path: \.route)", headers: [Header("X-Trace").value("trace-1")])

    let pathComponents: Route

    init(_ route: String) { pathComponents = Route(route: route) }
}

/// Keeps each context's credential headers and each request as cURL rendered with them.
private struct ContextRecorder: Middleware {
    let contexts = Locked<[RequestContext]>([])
    let lines = Locked<[String]>([])

    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        contexts.withLock { $0.append(context) }
        lines.withLock { $0.append(request.cURLDescription(credentialHeaders: context.credentialHeaders)) }
        return try await next(request)
    }
}

/// The pipeline treats every header an authentication method adds or changes as a credential,
/// without the method declaring it: dropped on a redirect to another origin, redacted in logs.
@Suite struct FoundCredentialHeadersTests {
    private func redirect(_ path: String, on server: TestServer, to target: URL) {
        server.route(path) { _ in TestServer.Response(status: 302, headers: [("Location", target.absoluteString)]) }
    }

    @Test(arguments: [false, true])
    func aCustomHeaderIsDroppedOnARedirectToAnotherOrigin(viaHostName: Bool) async throws {
        let origin = try TestServer()
        let other = try TestServer()
        defer {
            origin.stop()
            other.stop()
        }
        // Another port, or the same socket under another host name (`localhost` for `127.0.0.1`).
        let server = viaHostName ? origin : other
        var target = server.url("/echo/final")
        if viaHostName {
            target = URL(string: target.absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost"))!
        }
        redirect("/start", on: origin, to: target)
        let echo = try await send(SignedEchoEndpoint("start"), to: origin).get()
        #expect(echo.path == "/echo/final")
        let first = try #require(origin.requests.first)
        #expect(first.header("X-Signature") == SignatureAuth.signature, "the origin gets the signature")
        let final = try #require(server.requests.last)
        #expect(final.rawPath == "/echo/final")
        #expect(final.header("X-Signature") == nil, "the signature reached another origin")
        #expect(final.header("X-Trace") == "trace-1", "a header the method did not set is kept")
    }

    @Test func aSameOriginRedirectKeepsTheCustomHeader() async throws {
        let server = try TestServer()
        defer { server.stop() }
        redirect("/start", on: server, to: server.url("/echo/final"))
        _ = try await send(SignedEchoEndpoint("start"), to: server).get()
        #expect(server.requests.last?.header("X-Signature") == SignatureAuth.signature)
    }

    @Test func loggingAndCURLRedactTheCustomHeader() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let recorder = ContextRecorder()
        let logged = Locked<[String]>([])
        let logging = LoggingMiddleware(level: .headers) { line in logged.withLock { $0.append(line) } }
        _ = try await send(SignedEchoEndpoint("echo"), to: server, middleware: [logging, recorder]).get()
        #expect(server.requests.last?.header("X-Signature") == SignatureAuth.signature)

        let context = try #require(recorder.contexts.withLock { $0.first })
        #expect(context.credentialHeaders.contains("x-signature"))
        #expect(!context.credentialHeaders.contains("x-trace"))
        let curl = try #require(recorder.lines.withLock { $0.first })
        #expect(curl.contains("X-Signature: <redacted>"), "\(curl)")
        #expect(curl.contains("X-Trace: trace-1"), "\(curl)")
        let lines = logged.withLock { $0 }
        #expect(lines.contains { $0.contains("X-Signature: <redacted>") }, "\(lines)")
        for text in lines + [curl] {
            #expect(!text.contains(SignatureAuth.signature), "\(text)")
        }
    }

    @Test func theHeadersAMethodAddsOrChangesAreCredentials() {
        var original = URLRequest(url: URL(string: "https://api.example.com/")!)
        original.setValue("trace-1", forHTTPHeaderField: "X-Trace")
        original.setValue("old", forHTTPHeaderField: "X-Signature")
        var authenticated = original
        authenticated.setValue("new", forHTTPHeaderField: "X-Signature")
        authenticated.setValue("key", forHTTPHeaderField: "X-Api-Key")
        authenticated.setValue("Bearer token", forHTTPHeaderField: "Authorization")
        let standard = RequestContext.standardCredentialHeaders
        #expect(
            RequestContext.credentialHeaders(setBy: authenticated, on: original)
                == standard.union(["x-signature", "x-api-key"]))
        // Nothing set: the standard headers alone.
        #expect(RequestContext.credentialHeaders(setBy: original, on: original) == standard)
        #expect(RequestContext.credentialHeaders(setBy: URLRequest(url: original.url!), on: original) == standard)
        // The public initializer adds the names it is given to the same standard set.
        #expect(
            RequestContext(endpointName: "E", credentialHeaders: ["X-Signature"]).credentialHeaders
                == standard.union(["x-signature"]))
    }

    @Test func noAuthSendsTheStandardHeadersOnly() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let recorder = ContextRecorder()
        _ = try await send(EchoEndpoint(), to: server, middleware: [recorder]).get()
        #expect(recorder.contexts.withLock { $0.first?.credentialHeaders } == RequestContext.standardCredentialHeaders)
    }
}
