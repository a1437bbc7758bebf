import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(FoundationNetworking)
    private let isLinux = true
#else
    private let isLinux = false
#endif

@Suite struct BuiltinAuthTests {
    private let blank = URLRequest(url: URL(string: "http://127.0.0.1/x")!)

    @Test func headerKeyAuthSendsBearerByDefault() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let echo = try await AuthBase.with(server) { try await URLSession.shared.response(with: HeaderKeyEcho()) }
        #expect(echo.values("Authorization") == ["Bearer \(AuthSecret.key)"])
    }

    @Test func headerKeyAuthWithoutPrefixSendsTheBareKeyInItsHeader() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let echo = try await AuthBase.with(server) { try await URLSession.shared.response(with: ClientKeyEcho()) }
        #expect(echo.values("X-Client-Key") == [AuthSecret.key])
        #expect(echo.values("Authorization").isEmpty)
    }

    @Test func perRequestAuthOverridesTheDeclaration() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let other = HeaderKeyAuth(key: "other-key", prefix: "Token")
        let echo = try await AuthBase.with(server) {
            try await URLSession.shared.response(with: HeaderKeyEcho(), auth: other)
        }
        #expect(echo.values("Authorization") == ["Token other-key"])
    }

    @Test func headerKeyAuthRefusesHeaderInjection() async throws {
        let auth = HeaderKeyAuth(key: "abc\r\nX-Evil: 1")
        await #expect(throws: AuthenticationError.self) { try await auth.authenticate(request: blank) }
        let badName = HeaderKeyAuth(key: "abc", header: "X Key")
        await #expect(throws: AuthenticationError.self) { try await badName.authenticate(request: blank) }
    }

    @Test(arguments: [
        ("Aladdin", "open sesame", "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),
        ("test", "123£", "Basic dGVzdDoxMjPCow=="),
    ])
    func basicAuthMatchesRFC7617Vectors(username: String, password: String, expected: String) async throws {
        let request = try await BasicAuth(username: username, password: password).authenticate(request: blank)
        #expect(request.value(forHTTPHeaderField: "Authorization") == expected)
    }

    @Test func basicAuthGoesOverTheWire() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let echo = try await AuthBase.with(server) { try await URLSession.shared.response(with: BasicEcho()) }
        #expect(echo.values("Authorization") == ["Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="])
    }

    @Test(arguments: ["user:name", "user\u{0}", "tab\tuser", "line\nbreak", "del\u{7F}"])
    func basicAuthRefusesColonsAndControlCharactersInUsername(username: String) async throws {
        let auth = BasicAuth(username: username, password: AuthSecret.password)
        await #expect(throws: AuthenticationError.self) { try await auth.authenticate(request: blank) }
        let server = try TestServer()
        defer { server.stop() }
        do {
            _ = try await AuthBase.send(BasicEcho(), to: server, auth: auth)
            Issue.record("an invalid user name was sent")
        } catch {
            guard case .authenticationError(.invalidCredentials(let reason)) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(!reason.contains(AuthSecret.password))
        }
        #expect(server.requestCount == 0)
    }

    @Test func cookieAuthMergesIntoOneCookieHeader() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let echo = try await AuthBase.with(server) { try await URLSession.shared.response(with: CookieEcho()) }
        #expect(echo.values("Cookie") == ["theme=dark; lang=en; session=\(AuthSecret.cookie)"])
    }

    @Test func cookieAuthTurnsOffTheCookieStore() async throws {
        let request = try await CookieAuth(name: "session", value: "abc").authenticate(request: blank)
        #expect(request.httpShouldHandleCookies == false)
        #expect(request.value(forHTTPHeaderField: "Cookie") == "session=abc")
    }

    /// On Linux the store would replace the header, so the transport refuses instead
    /// (`CookieAuthSessionTests.storeThatWouldReplaceTheCookieRefusesLoudlyOnLinux`).
    @Test(.enabled(if: !isLinux)) func cookieAuthIsNotOverwrittenByStoredCookies() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: UUID().uuidString)
        storage.cookieAcceptPolicy = .always
        configuration.httpCookieStorage = storage
        configuration.httpShouldSetCookies = true
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        let stored = HTTPCookie(properties: [
            .name: "session", .value: "from-store", .domain: "127.0.0.1", .path: "/",
        ])!
        storage.setCookie(stored)
        let echo = try await AuthBase.with(server) { try await session.response(with: CookieEcho()) }
        #expect(echo.values("Cookie") == ["theme=dark; lang=en; session=\(AuthSecret.cookie)"])
    }

    @Test(arguments: ["has space", "semi;colon", "com,ma", "quo\"te", "back\\slash", "ctl\u{1}"])
    func cookieAuthRefusesValuesRFC6265Forbids(value: String) async throws {
        let auth = CookieAuth(name: "session", value: value)
        await #expect(throws: AuthenticationError.self) { try await auth.authenticate(request: blank) }
    }

    @Test func cookieAuthAcceptsQuotedAndBase64Values() async throws {
        _ = try await CookieAuth(name: "s", value: "\"abc\"").authenticate(request: blank)
        _ = try await CookieAuth(name: "s", value: "YWJj+/=").authenticate(request: blank)
        await #expect(throws: AuthenticationError.self) {
            try await CookieAuth(name: "bad name", value: "v").authenticate(request: blank)
        }
    }

    @Test func noAuthLeavesTheRequestAlone() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let echo = try await AuthBase.with(server) { try await URLSession.shared.response(with: NoAuthEcho()) }
        #expect(echo.values("Authorization").isEmpty)
    }

    @Test func descriptionsNeverShowSecrets() {
        let methods: [any AuthenticationMethod] = [
            HeaderKeyAuth(key: AuthSecret.key),
            HeaderKeyAuth(key: AuthSecret.key, header: "X-Client-Key", prefix: nil),
            BasicAuth(username: "Aladdin", password: AuthSecret.password),
            CookieAuth(name: "session", value: AuthSecret.cookie),
        ]
        for method in methods {
            var dumped = ""
            dump(method, to: &dumped)
            let children = Mirror(reflecting: method).children.map { "\($0.label ?? "") \($0.value)" }
            for text in [String(describing: method), "\(method)", String(reflecting: method), dumped] + children {
                for secret in [AuthSecret.key, AuthSecret.password, AuthSecret.cookie] {
                    #expect(!text.contains(secret), "\(type(of: method)) shows a secret")
                }
                // Nor the Base64 of the Basic credentials.
                #expect(!text.contains("QWxhZGRpbj"), "\(type(of: method)) shows the Basic credentials")
            }
        }
    }

    /// The secret is kept in a value whose every rendering is `<redacted>`: the default reflection
    /// of each method shows its other fields and that.
    @Test func descriptionsShowTheFieldsAndRedactTheSecret() {
        func renderings(_ value: some Any) -> [String] {
            var dumped = ""
            dump(value, to: &dumped)
            return [String(describing: value), String(reflecting: value), dumped]
        }
        let bearer = renderings(HeaderKeyAuth(key: AuthSecret.key))
        #expect(bearer[0] == #"HeaderKeyAuth(header: "Authorization", prefix: Optional("Bearer"), key: <redacted>)"#)
        #expect(
            bearer[1]
                == #"Endpoints.HeaderKeyAuth(header: "Authorization", prefix: Optional("Bearer"), key: <redacted>)"#)
        #expect(
            bearer[2] == """
                ▿ Endpoints.HeaderKeyAuth
                  - header: "Authorization"
                  ▿ prefix: Optional("Bearer")
                    - some: "Bearer"
                  - key: <redacted>

                """)
        let bare = renderings(HeaderKeyAuth(key: AuthSecret.key, header: "X-Client-Key", prefix: nil))
        #expect(bare[0] == #"HeaderKeyAuth(header: "X-Client-Key", prefix: nil, key: <redacted>)"#)
        let basic = renderings(BasicAuth(username: "Aladdin", password: AuthSecret.password))
        #expect(basic[0] == #"BasicAuth(username: "Aladdin", password: <redacted>)"#)
        #expect(basic[2] == "▿ Endpoints.BasicAuth\n  - username: \"Aladdin\"\n  - password: <redacted>\n")
        let cookie = renderings(CookieAuth(name: "session", value: AuthSecret.cookie))
        #expect(cookie[0] == #"CookieAuth(name: "session", value: <redacted>)"#)
        #expect(cookie[2] == "▿ Endpoints.CookieAuth\n  - name: \"session\"\n  - value: <redacted>\n")
        let mirror = Mirror(reflecting: CookieAuth(name: "session", value: AuthSecret.cookie))
        #expect(mirror.children.map(\.label) == ["name", "value"])
        #expect(mirror.children.map { "\($0.value)" } == ["session", "<redacted>"])
        // The secret's own mirror is empty: reflection stops there.
        #expect(mirror.children.map { Mirror(reflecting: $0.value).children.count } == [0, 0])
    }
}
