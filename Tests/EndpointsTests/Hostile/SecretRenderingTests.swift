import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private enum Secret {
    static let key = "sk-live-hostile-0123456789"
    static let access = "eyJhbGciOiJIUzI1NiJ9.hostile-access"
    static let refresh = "hostile-refresh-secret"
    static let fresh = "eyJhbGciOiJIUzI1NiJ9.hostile-fresh-access"
    static let password = "hostile-password-42"
    static let cookie = "hostileCookieValue42"

    static let all = [key, access, refresh, fresh, password, cookie]

    static func expectNone(in text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in all {
            #expect(!text.contains(secret), "\(text)", sourceLocation: sourceLocation)
        }
    }
}

/// `GET /secret/{path}?api_key={key}`, answering `{"code","message"}` errors.
private struct SecretPathEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = [String: String]
    typealias ErrorResponse = APIError
    static let definition: Definition<SecretPathEndpoint> = Definition(
        path: "secret/\(path: \.path)", parameters: [.query("api_key", path: \.key)])
    struct PathComponents { let path: String }
    struct ParameterComponents { let key: String }
    let pathComponents: PathComponents
    let parameterComponents: ParameterComponents
    init(path: String, key: String) {
        pathComponents = PathComponents(path: path)
        parameterComponents = ParameterComponents(key: key)
    }
}

/// Renders every request it passes with the context's credential headers hidden.
private struct CURLRecorder: Middleware {
    let lines: Shared<[String]>

    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        lines.update { $0.append(request.cURLDescription(credentialHeaders: context.credentialHeaders)) }
        lines.update { $0.append(request.cURLDescription()) }
        return try await next(request)
    }
}

/// `GET /echo` authenticated by a key in a header of the test's choosing.
private struct KeyHeaderEndpoint: Endpoint {
    typealias Server = KeyHeaderServer
    typealias Response = Echo
    typealias ErrorResponse = APIError
    static let definition: Definition<KeyHeaderEndpoint> = Definition(path: "echo")
}

private struct KeyHeaderServer: ServerDefinition {
    var baseUrls: [TypicalEnvironments: URL] { [.production: Loopback.baseURL] }
    static let auth = HeaderKeyAuth(key: Secret.key, header: "X-Client-Key", prefix: nil)
}

/// Issue 12: secrets never show in cURL output, descriptions or mirrors.
@Suite struct SecretRenderingTests {
    @Test(arguments: ["X-Client-Key", "X-API-Key", "Api-Key", "apikey", "Ocp-Apim-Subscription-Key"])
    func defaultCURLHidesWellKnownKeyHeaders(header: String) async throws {
        let auth = HeaderKeyAuth(key: Secret.key, header: header, prefix: nil)
        let request = try await auth.authenticate(request: URLRequest(url: URL(string: "https://api.example.com/v1")!))
        let line = request.cURLDescription()
        Secret.expectNone(in: line)
        #expect(line.lowercased().contains("\(header.lowercased()): <redacted>"))
        #expect(request.cURLDescription(redaction: .disabled).contains(Secret.key), "disabled shows it")
    }

    /// Over loopback: a middleware renders the authenticated request with its context, which knows
    /// the endpoint's credential header whatever its name.
    @Test(arguments: ["X-Client-Key", "X-Tenant-Credential"])
    func contextCURLHidesTheEndpointsOwnCredentialHeader(header: String) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let lines = Shared<[String]>([])
        let auth = HeaderKeyAuth(key: Secret.key, header: header, prefix: nil)
        _ = try await send(KeyHeaderEndpoint(), to: server, auth: auth, middleware: [CURLRecorder(lines: lines)]).get()
        #expect(server.requests.last?.header(header) == Secret.key, "the key went on the wire")
        let withContext = try #require(lines.value.first)
        Secret.expectNone(in: withContext)
        #expect(withContext.lowercased().contains("\(header.lowercased()): <redacted>"))
        if header == "X-Client-Key" { Secret.expectNone(in: lines.value[1]) }
    }

    @Test func builtInMethodsShowNoSecretInDescriptionsOrDumps() {
        let values: [Any] = [
            HeaderKeyAuth(key: Secret.key, header: "X-Client-Key", prefix: nil),
            BasicAuth(username: "ada", password: Secret.password),
            CookieAuth(name: "session", value: Secret.cookie),
            JWTAuth.TokenPair(accessToken: Secret.access, refreshToken: Secret.refresh, expiresAt: Date()),
            JWTAuth(
                initialTokens: .init(accessToken: Secret.access, refreshToken: Secret.refresh),
                refreshHandler: { _ in .init(accessToken: Secret.fresh, refreshToken: Secret.refresh) }),
        ]
        for value in values {
            var dumped = ""
            dump(value, to: &dumped)
            Secret.expectNone(in: dumped)
            Secret.expectNone(in: String(describing: value))
            Secret.expectNone(in: String(reflecting: value))
            for child in Mirror(reflecting: value).children { Secret.expectNone(in: "\(child.value)") }
        }
    }

    /// A `JWTAuth` dumped while its refresh is in flight (the state then holds the token being
    /// replaced) and after it, over loopback.
    @Test func jwtAuthDumpDuringAndAfterARefreshShowsNoToken() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/api/data") { request in
            request.header("Authorization") == "Bearer \(Secret.fresh)"
                ? .json(["token": "ok"]) : .json(raw: #"{"code":401,"message":"expired"}"#, status: 401)
        }
        let started = Gate()
        let release = Gate()
        let auth = JWTAuth(
            initialTokens: .init(accessToken: Secret.access, refreshToken: Secret.refresh),
            refreshHandler: { _ in
                await started.open()
                await release.wait()
                return .init(accessToken: Secret.fresh, refreshToken: Secret.refresh + "-2")
            }
        )
        async let outcome = send(HostileProtectedEndpoint(), to: server, auth: auth)
        await started.wait()
        var during = ""
        dump(auth, to: &during)
        #expect(during.contains("refreshing: true"))
        Secret.expectNone(in: during + String(describing: auth) + String(reflecting: auth))
        await release.open()
        #expect(try await outcome.get().token == "ok")
        var after = ""
        dump(auth, to: &after)
        Secret.expectNone(in: after + String(describing: auth) + String(reflecting: auth))
        Secret.expectNone(in: String(describing: AuthenticationError.refreshFailed(underlying: URLError(.timedOut))))
    }

    /// Errors and typed responses, dumped or reflected, show a response's status and its URL with
    /// the credentials hidden, never its header fields (`Set-Cookie`), through every transport:
    /// the URL's user and password, a key in its query, a cookie the server set.
    @Test(arguments: TestTransport.all)
    func errorsAndResponsesShowNoSecretInDumps(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let cookie = "session=\(Secret.cookie); HttpOnly"
        server.route("/secret/denied") { _ in
            TestServer.Response(
                status: 401, headers: [("Set-Cookie", cookie), ("Content-Type", "application/json")],
                body: Data(#"{"code":401,"message":"no"}"#.utf8))
        }
        server.route("/secret/garbled") { _ in
            TestServer.Response(status: 200, headers: [("Set-Cookie", cookie)], body: Data("not json".utf8))
        }
        server.route("/secret/fine") { _ in
            TestServer.Response(status: 200, headers: [("Set-Cookie", cookie)], body: Data(#"{"token":"ok"}"#.utf8))
        }
        let base = URL(string: "http://ada:\(Secret.password)@127.0.0.1:\(server.port)")!
        let closed = URL(string: "http://ada:\(Secret.password)@127.0.0.1:9")!
        // No cookie store: the Set-Cookie above must not reach URLSession.shared's, which other
        // tests send to 127.0.0.1 with.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let client = transport.client(session: session)
        var rendered: [(String, Any)] = []
        for (path, at) in [("denied", base), ("garbled", base), ("fine", closed)] {
            let result: Result<SecretPathEndpoint.Response, SecretPathEndpoint.TaskError> =
                await Loopback.$baseURL.withValue(at) {
                    do throws(SecretPathEndpoint.TaskError) {
                        return .success(
                            try await client.response(with: SecretPathEndpoint(path: path, key: Secret.key)))
                    } catch {
                        return .failure(error)
                    }
                }
            let error = try #require(result.failure(), "\(path)")
            rendered.append((path, error))
        }
        let typed = try await Loopback.$baseURL.withValue(base) {
            try await client.typedResponse(with: SecretPathEndpoint(path: "fine", key: Secret.key))
        }
        rendered.append(("typed", typed))
        for (name, value) in rendered {
            var dumped = ""
            dump(value, to: &dumped)
            Secret.expectNone(in: dumped)
            Secret.expectNone(in: String(describing: value))
            Secret.expectNone(in: String(reflecting: value))
            #expect(dumped.contains("<redacted>"), "\(name): \(dumped)")
        }
        var dumped = ""
        dump(rendered[0].1, to: &dumped)
        #expect(dumped.contains("status: 401"), "\(dumped)")
    }

}
