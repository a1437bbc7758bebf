import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The pipeline against httpbin, a third-party HTTP server, over loopback.
///
/// Run with `scripts/httpbin.sh run swift test --filter HTTPBinInteropTests`; `.ci/run` always
/// does. A plain `swift test` has no `HTTPBIN_URL` and skips the suite, saying why.
@Suite(
    .enabled(
        if: HTTPBin.url != nil,
        "HTTPBIN_URL is not set; run `scripts/httpbin.sh run swift test` to include the httpbin interop suite"
    )
)
struct HTTPBinInteropTests {
    /// Sends `endpoint` to httpbin, keeping the typed error.
    private func send<E: Endpoint>(
        _ endpoint: E,
        auth: E.Auth = E.auth,
        middleware: [any Middleware] = []
    ) async -> Result<E.Response, E.TaskError> {
        do throws(E.TaskError) {
            return .success(try await URLSession.shared.response(with: endpoint, auth: auth, middleware: middleware))
        } catch {
            return .failure(error)
        }
    }

    @Test(arguments: [
        "plain", "a b", "a+b", "a&b=c", "100%", "50%25", "?#/", "semi;colon", "quote\"d", "ümlaut", "emoji 🎉",
        "line\nbreak", "",
    ])
    func queryRoundTrips(_ value: String) async throws {
        let echo = try await send(HTTPBinGet(q: value)).get()
        #expect(echo.args?["q"] == value)
    }

    @Test func postsJSON() async throws {
        let payload = HTTPBinPayload(name: "Ada \"Countess\" Lovelace", count: 1815, tags: ["math", "ü", ""])
        let echo = try await send(HTTPBinPostJSON(body: payload)).get()
        #expect(echo.json == payload)
        #expect(echo.header("Content-Type") == "application/json")
    }

    @Test func postsAForm() async throws {
        let form = HTTPBinPostForm.ParameterComponents(name: "Zoë & Co", note: "1+1=2; 100% sure")
        let echo = try await send(HTTPBinPostForm(parameterComponents: form)).get()
        #expect(echo.form == ["name": "Zoë & Co", "note": "1+1=2; 100% sure"])
        #expect(echo.header("Content-Type") == "application/x-www-form-urlencoded")
    }

    @Test func postsMultipart() async throws {
        let form: MultipartForm = [
            .field(name: "title", value: "Holiday \"2026\""),
            .field(name: "count", value: 3),
            .file(
                name: "notes", filename: "notes.txt", contentType: "text/plain", data: Data("line one\nline two".utf8)),
        ]
        let echo = try await send(HTTPBinMultipart(body: form)).get()
        #expect(echo.method == "POST")
        #expect(echo.form?["title"] == "Holiday \"2026\"")
        #expect(echo.form?["count"] == "3")
        #expect(echo.files?["notes"] == "line one\nline two")
        #expect(echo.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
    }

    @Test(arguments: [200, 201, 204])
    func successStatuses(_ code: Int) async throws {
        try await send(HTTPBinStatus(code)).get()
    }

    @Test(arguments: [400, 401, 404, 418, 500, 503])
    func errorStatuses(_ code: Int) async throws {
        let error = try #require(await send(HTTPBinStatus(code)).failure())
        #expect(error.statusCode == code, "got \(error)")
    }

    @Test(arguments: [302, 307])
    func sameOriginRedirectKeepsCredentials(status: Int) async throws {
        let target = try #require(HTTPBin.url).appendingPathComponent("anything")
        let echo = try await send(HTTPBinRedirect(to: target, status: status)).get()
        #expect(echo.header("Authorization") == "Bearer interop-token")
        #expect(echo.method == (status == 307 ? "POST" : "GET"))
        if status == 307 {
            #expect(echo.json == HTTPBinPayload(name: "redirected", count: 1, tags: []))
        } else {
            #expect(echo.data == "")
        }
    }

    @Test(arguments: [302, 307])
    func crossOriginRedirectDropsCredentials(status: Int) async throws {
        let target = try #require(HTTPBin.localhostURL).appendingPathComponent("anything")
        let echo = try await send(HTTPBinRedirect(to: target, status: status)).get()
        #expect(echo.header("Host")?.hasPrefix("localhost:") == true)
        #expect(echo.header("Authorization") == nil)
        #expect(echo.method == (status == 307 ? "POST" : "GET"))
    }

    @Test func delayWithinTheTimeoutSucceeds() async throws {
        let echo = try await send(HTTPBinDelay(seconds: 1)).get()
        #expect(echo.url?.hasSuffix("/delay/1") == true)
    }

    @Test func fractionalTimeoutFires() async throws {
        let result = await send(HTTPBinDelay(seconds: 2), middleware: [TimeoutMiddleware(seconds: 0.5)])
        let error = try #require(result.failure())
        #expect(error.urlErrorCode == .timedOut, "got \(error)")
    }

    @Test func basicAuthSucceeds() async throws {
        let response = try await send(HTTPBinBasicAuth()).get()
        #expect(response.authenticated)
        #expect(response.user == "user")
    }

    /// httpbin answers a wrong password with `401` and `WWW-Authenticate: Basic`: it arrives once,
    /// as an error, without URLSession answering the challenge itself.
    @Test func wrongBasicAuthFailsOnce() async throws {
        let error = try #require(
            await send(HTTPBinBasicAuth(), auth: BasicAuth(username: "user", password: "wrong")).failure()
        )
        #expect(error.statusCode == 401, "got \(error)")
        #expect(!error.description.contains("wrong"))
    }

    @Test func bearerSucceeds() async throws {
        let response = try await send(HTTPBinBearer()).get()
        #expect(response.authenticated)
        #expect(response.token == "interop-bearer")
    }

    @Test func missingBearerIsUnauthorized() async throws {
        let error = try #require(
            await send(HTTPBinBearer(), auth: HeaderKeyAuth(key: "x", header: "X-Unused", prefix: nil)).failure()
        )
        #expect(error.statusCode == 401, "got \(error)")
    }

    @Test func cookiesAreSent() async throws {
        let response = try await send(HTTPBinCookies()).get()
        #expect(response.cookies["session"] == "interop-cookie")
    }

    @Test func gzipIsDecompressed() async throws {
        let response = try await send(HTTPBinGzip()).get()
        #expect(response.gzipped)
        #expect(response.method == "GET")
    }

    @Test func bytesAreRaw() async throws {
        let data = try await send(HTTPBinBytes(count: 4096)).get()
        #expect(data.count == 4096)
        // Not compared with a second fetch: httpbin seeds one process-wide generator, which the
        // streaming interop tests' /bytes requests share when they run at the same time.
        #expect(Set(data).count > 1, "binary bytes, not a repeated filler")
    }

    @Test func headersAreSent() async throws {
        let echo = try await send(HTTPBinHeaders(headerComponents: .init(trace: "trace-42"))).get()
        #expect(echo.header("X-Trace-Id") == "trace-42")
        #expect(echo.header("Accept") == "application/json")
    }
}
