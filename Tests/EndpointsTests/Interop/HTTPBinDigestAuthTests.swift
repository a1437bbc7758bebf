import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `GET /digest-auth/{qop}/user/passwd/{algorithm}/{staleAfter}`: httpbin's Digest challenge and
/// check; with a cookie store, the nonce turns stale after `staleAfter` authenticated requests.
private struct HTTPBinDigest: Endpoint {
    typealias Server = HTTPBinServer
    struct Response: Decodable, Sendable {
        let authenticated: Bool
        let user: String
    }
    struct PathComponents: Sendable {
        let qop: String
        let algorithm: String
        let staleAfter: String
    }

    static let auth = DigestAuth(username: "user", password: "passwd")
    static let definition: Definition<HTTPBinDigest> = Definition(
        path: "digest-auth/\(path: \.qop)/user/passwd/\(path: \.algorithm)/\(path: \.staleAfter)")

    let pathComponents: PathComponents

    init(qop: String, algorithm: String, staleAfter: String = "never") {
        pathComponents = PathComponents(qop: qop, algorithm: algorithm, staleAfter: staleAfter)
    }
}

/// Records the `Authorization` of every request sent through it (`nil` for none).
struct AuthorizationLog: Middleware {
    let sent = Shared<[String?]>([])

    func intercept(
        _ request: URLRequest, context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        sent.update { $0.append(request.value(forHTTPHeaderField: "Authorization")) }
        return try await next(request)
    }
}

/// ``DigestAuth`` against httpbin's Digest routes, a third-party implementation of RFC 7616's
/// server side, through every transport.
@Suite(
    .enabled(
        if: HTTPBin.url != nil,
        "HTTPBIN_URL is not set; run `scripts/httpbin.sh run swift test` to include the httpbin interop suite"
    )
)
struct HTTPBinDigestAuthTests {
    /// No cookies, as the libcurl transport keeps none by default: httpbin's Digest routes answer
    /// by their cookies too (a `last_nonce` cookie makes the next answer with that nonce stale).
    private static let cookieless: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        return URLSession(configuration: configuration)
    }()

    private func client(_ transport: TestTransport, log: AuthorizationLog) -> EndpointClient {
        transport.client(session: Self.cookieless, middleware: [log])
    }

    /// The first request is refused with the challenge and sent once more with its answer; the
    /// next answers the same challenge at once, its nonce counted twice. `none` is httpbin's
    /// RFC 2069 challenge, without `qop`.
    @Test(arguments: ["auth", "auth-int", "none"], ["MD5", "SHA-256"])
    func answersTheChallengeThenSendsAtOnce(qop: String, algorithm: String) async throws {
        for transport in TestTransport.all {
            let log = AuthorizationLog()
            let sender = client(transport, log: log)
            let auth = DigestAuth(username: "user", password: "passwd")
            let endpoint = HTTPBinDigest(qop: qop, algorithm: algorithm)
            let first = try await sender.response(with: endpoint, auth: auth)
            #expect(first.authenticated && first.user == "user", "\(transport)")
            let second = try await sender.response(with: endpoint, auth: auth)
            #expect(second.authenticated, "\(transport)")
            let sent = log.sent.value
            try #require(sent.count == 3, "\(transport): \(sent)")
            #expect(sent[0] == nil)
            #expect(sent[1]?.hasPrefix("Digest username=\"user\"") == true)
            if qop != "none" {
                #expect(sent[1]?.contains("qop=\(qop)") == true)
                #expect(sent[1]?.contains("nc=00000001") == true)
                #expect(sent[2]?.contains("nc=00000002") == true)
            }
            #expect(sent[2]?.contains("algorithm=\(algorithm)") == true)
        }
    }

    /// A wrong password: the answer is refused, and the 401 reaches the caller as the endpoint's
    /// error response after one resend; the next request, answered at once, is refused without one.
    @Test(arguments: TestTransport.all)
    func aWrongPasswordIsRefusedOnce(via transport: TestTransport) async throws {
        let log = AuthorizationLog()
        let sender = client(transport, log: log)
        let auth = DigestAuth(username: "user", password: "wrong")
        for expectedSends in [2, 3] {
            do {
                _ = try await sender.response(with: HTTPBinDigest(qop: "auth", algorithm: "MD5"), auth: auth)
                Issue.record("a wrong password was accepted")
            } catch {
                #expect(error.statusCode == 401, "got \(error)")
            }
            #expect(log.sent.value.count == expectedSends)
        }
    }
}

extension HTTPBinDigestAuthTests {
    /// A client through `transport` that keeps cookies in a store of its own.
    private func clientKeepingCookies(_ transport: TestTransport, log: AuthorizationLog) throws -> EndpointClient {
        let store = URLSessionConfiguration.ephemeral
        switch transport {
        case .urlSession:
            return EndpointClient(session: URLSession(configuration: store), middleware: [log])
        #if canImport(FoundationNetworking)
            case .curl:
                return EndpointClient(transport: try CurlTransport(cookies: store.httpCookieStorage), middleware: [log])
        #endif
        }
    }

    /// httpbin turns the nonce stale after one authenticated request (it counts in a cookie): the
    /// next request, answered at once with that nonce, is refused with `stale=true` and sent once
    /// more with the new nonce, counted from 1, and succeeds.
    @Test(arguments: TestTransport.all)
    func aStaleNonceIsAnsweredWithTheNewOne(via transport: TestTransport) async throws {
        let log = AuthorizationLog()
        let sender = try clientKeepingCookies(transport, log: log)
        let auth = DigestAuth(username: "user", password: "passwd")
        let endpoint = HTTPBinDigest(qop: "auth", algorithm: "SHA-256", staleAfter: "1")
        #expect(try await sender.response(with: endpoint, auth: auth).authenticated)
        #expect(try await sender.response(with: endpoint, auth: auth).authenticated)
        let sent = log.sent.value
        try #require(sent.count == 4, "\(sent)")
        let nonces = sent.map { $0.flatMap(DigestAuth.nonce(inAuthorization:)) }
        #expect(nonces[0] == nil)
        #expect(nonces[1] != nil && nonces[2] == nonces[1] && nonces[3] != nonces[1])
        #expect(sent[2]?.contains("nc=00000002") == true)
        #expect(sent[3]?.contains("nc=00000001") == true)
    }
}

extension HTTPBinDigestAuthTests {
    /// Sixteen first requests at once: each is answered, with one send that carries the answer
    /// (those that started before any challenge came were refused once first).
    @Test(arguments: TestTransport.all)
    func concurrentFirstRequestsAreAllAnswered(via transport: TestTransport) async throws {
        let log = AuthorizationLog()
        let sender = client(transport, log: log)
        let auth = DigestAuth(username: "user", password: "passwd")
        let endpoint = HTTPBinDigest(qop: "auth", algorithm: "SHA-256")
        let answers = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<16 { group.addTask { try await sender.response(with: endpoint, auth: auth).authenticated } }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(answers == Array(repeating: true, count: 16))
        let sent = log.sent.value
        #expect(sent.compactMap { $0 }.count == 16)
        #expect((1...16).contains(sent.count - 16), "\(sent.count) sends")
    }
}

/// `GET /protected` on the current test's loopback server.
private struct LoopbackProtected: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Data
    static let auth = DigestAuth(username: "user", password: "passwd")
    static let definition: Definition<LoopbackProtected> = Definition(path: "protected")
}

/// Serves `/protected` on `server`: a Digest challenge with `nonce` to a request without Digest
/// credentials, else `body` with `headers`. It checks no answer: these tests look at the client.
private func serveProtected(
    on server: TestServer, nonce: String, body: String, headers: [(name: String, value: String)] = []
) {
    server.route("/protected") { request in
        guard request.header("Authorization")?.hasPrefix("Digest ") == true else {
            return TestServer.Response(
                status: 401, headers: [("WWW-Authenticate", #"Digest realm="r", nonce="\#(nonce)", qop="auth""#)])
        }
        return TestServer.Response(headers: headers, body: Data(body.utf8))
    }
}

/// ``DigestAuth`` beside ``HTTPCache``, against a loopback server whose protected answer is
/// cacheable: each request's `Authorization` differs, so the cache neither stores nor answers.
@Suite struct DigestAuthCacheTests {
    @Test func responsesToDigestRequestsAreNotStored() async throws {
        let server = try TestServer()
        defer { server.stop() }
        serveProtected(on: server, nonce: "n", body: "secret", headers: [("Cache-Control", "max-age=600")])
        let log = AuthorizationLog()
        let client = EndpointClient(
            transport: TestTransport.all[0].transport(), middleware: [HTTPCache(), log])
        let auth = DigestAuth(username: "u", password: "p")
        for _ in 0..<2 {
            let answer = try await Loopback.$baseURL.withValue(server.baseURL) {
                try await client.typedResponse(with: LoopbackProtected(), auth: auth)
            }
            #expect(answer.value == Data("secret".utf8))
            #expect(answer.httpResponse.cacheOutcome == .bypass)
        }
        #expect(log.sent.value.count == 3)
    }
}

/// ``DigestAuth`` beside ``LoggingMiddleware``: the `Authorization` it sets is a credential like any
/// header a method sets, so no level of logging shows its nonce or its response hash.
@Suite struct DigestAuthLoggingTests {
    @Test(arguments: LogLevel.allCases)
    func noPartOfTheAnswerIsLogged(level: LogLevel) async throws {
        let server = try TestServer()
        defer { server.stop() }
        serveProtected(on: server, nonce: "NONCE-5ecr3t", body: "ok")
        let capture = LogCapture()
        let client = EndpointClient(
            transport: TestTransport.all[0].transport(),
            middleware: [LoggingMiddleware(level: level, sink: capture.sink)])
        let answer = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await client.response(with: LoopbackProtected(), auth: DigestAuth(username: "user", password: "passwd"))
        }
        #expect(answer == Data("ok".utf8))
        let text = capture.text
        #expect(!text.contains("cnonce") && !text.contains("response=\"") && !text.contains("Digest username"))
        if level == .headers || level == .bodies {
            // The header was logged, redacted: the check above looked where it would be.
            #expect(text.contains("Authorization: <redacted>"), "\(text)")
        }
    }
}
