import Endpoints
import EndpointsTestServer
import Foundation
import Testing

@testable import EndpointsDemo

/// The README's first command, `swift run endpoints-demo`, runs this tour: each section must
/// report what it shows, from real loopback calls.
@Suite struct DemoTests {
    /// Collects the transcript's lines.
    final class Lines: @unchecked Sendable {
        // @unchecked Sendable: `lines` is read and written only while holding `lock`.
        private let lock = NSLock()
        private var lines: [String] = []

        func append(_ line: String) {
            lock.lock()
            lines.append(line)
            lock.unlock()
        }

        var text: String {
            lock.lock()
            defer { lock.unlock() }
            return lines.joined(separator: "\n")
        }
    }

    /// How long the demo's access tokens live here: 6 s (the demo's own are 3 s), times
    /// `ENDPOINTS_TEST_TIME_SCALE`. The tour refreshes a token and then uses the new one for
    /// several sections; under ThreadSanitizer, or on 2 cores with the whole suite running beside
    /// it, that took longer than 3 s (a clean-clone CI run on 2026-12-06, its parallel tests at
    /// twice their usual time), and a token that expires between its refresh and its use is
    /// rejected twice (a 401). The tour waits once for a token to expire, so this adds 3 s to it.
    static let tokenLifetime: TimeInterval =
        6 * (ProcessInfo.processInfo.environment["ENDPOINTS_TEST_TIME_SCALE"].flatMap(Double.init) ?? 1)

    /// Runs the tour on a thread of its own: a refreshed token must be used within its lifetime,
    /// and plain `swift test` starts every test at once, whose continuations keep the cooperative
    /// pool busy for seconds (the test server answers from its own threads).
    static func tour(_ options: DemoOptions, into lines: Lines) async throws {
        try await OwnThread.run { try await Demo.run(options: options) { lines.append($0) } }
    }

    /// Whether `text` contains `part` (Foundation's `range(of:)`: the standard library's
    /// `String.contains(_:)` for strings needs macOS 13).
    func has(_ text: String, _ part: String) -> Bool { text.range(of: part) != nil }

    @Test func theTourReportsEverySection() async throws {
        let lines = Lines()
        var options = DemoOptions()
        options.tokenLifetime = Self.tokenLifetime
        try await Self.tour(options, into: lines)
        let report = lines.text
        var expected = [
            "1. Typed endpoints: login, a profile, a paginated list",
            "POST login → Tokens; the access token expires in \(Int(Self.tokenLifetime.rounded())) s",
            #"GET me → Profile(id: 1, name: "Ada Lovelace (production)", email: "ada@example.com")"#,
            "GET items?page=3&perPage=10 → 5 items (21…25), next page none",
            "25 items in all",
            "2. A typed error",
            #"GET users/99 → .errorResponse, status 404, body ApiError(code: 404, message: "no such user")"#,
            "do throws(Login.TaskError)) → .errorResponse, status 401",
            "3. Per-request environment and credentials",
            #"name: "Ada Lovelace (staging)""#,
            "4. 20 concurrent requests on an expired token share one refresh",
            "20 × GET me → 20 profiles",
            "refreshes: 1\n",
            "the service performed 1 refresh(es)",
            "5. A retry after a 503 with Retry-After",
            "503 GET http://127.0.0.1:",
            #"GET status → "ok" after"#,
            "6. A redacted log line and its cURL",
            #"{"password":"<redacted>","username":"ada"}"#,
            #""accessToken":"<redacted>""#,
            "curl -X 'POST' 'http://127.0.0.1:",
            "7. A mocked call",
            #"→ Profile(id: 7, name: "Grace Hopper (mock)", email: "grace@example.com")"#,
            "requests the service received meanwhile: 0",
            "8. A stream of server-sent events",
            #"event {"n": 5}"#,
            "GET ticks → 5 events in",
            "9. A download resumed after a dropped connection",
            "download #1 → .urlLoadError, URLError -1005: the connection dropped; 98304 bytes kept beside the file",
            "download #2 → 206, Content-Range: bytes 98304-262143/262144; the file has 262144 bytes",
            "10. An ad-hoc request",
            #"GET version (Request<Status>.get(…).map(\.status)) → "1.0""#,
            #"→ .errorResponse, status 404, body ApiError(code: 404, message: "no such user")"#,
            "11. OAuth 2.0: client credentials",
            #"5 × GET me → 5 profiles; token requests: 1; granted scopes: ["profile"]"#,
            "clientSecret: <redacted>",
            "12. An HTTP cache revalidates with a 304",
            #"GET catalog #1 → ["tea", "coffee", "cocoa"], status 200, cache: miss"#,
            #"GET catalog #2 → ["tea", "coffee", "cocoa"], status 200, cache: revalidated"#,
            "13. One request's timeline: events and metrics",
            "ServiceStatus +",
            "attempt sent (initial)",
            "head received: 503",
            "retry in 1000.0 ms after status 503",
            "attempt sent (retry)",
            #"GET status → "ok", its metrics:"#,
            "ServiceStatus ",
            "#2 retry",
            "14. A typed WebSocket: a ticker",
            "GET quotes → 101, upgraded, with the client's bearer token",
            #"send {"symbol": "ACME", "count": 3}"#,
            #"→ Quote(symbol: "ACME", price: 101.25, sequence: 1)"#,
            #"→ Quote(symbol: "ACME", price: 103.75, sequence: 3)"#,
            "closed with 1000 after 3 quotes, each decoded as it arrived",
        ]
        #if canImport(FoundationNetworking)
            // The default client sends through libcurl on Linux, which measures the connection.
            expected += ["The last attempt's connection, as the transport measured it:", "http/1.1 to 127.0.0.1:"]
        #endif
        for part in expected {
            #expect(has(report, part), "missing from the transcript: \(part)")
        }
        // The secrets never reach the transcript.
        #expect(!has(report, DemoService.password))
        #expect(!has(report, DemoService.clientSecret))
        #expect(!has(report, "-access-") && !has(report, "-refresh-"))
    }

    @Test func theTourRunsAgainstAnotherBaseURLWithLogging() async throws {
        let other = try DemoService(name: "elsewhere", tokenLifetime: Self.tokenLifetime)
        defer { other.stop() }
        let options = try DemoOptions(arguments: ["--base-url", other.baseURL.absoluteString, "--log-level", "basic"])
        #expect(options.logLevel == .basic)
        let lines = Lines()
        try await Self.tour(options, into: lines)
        let report = lines.text
        #expect(has(report, "production: \(other.baseURL)"))
        #expect(has(report, #"Ada Lovelace (elsewhere)"#))
        #expect(has(report, "→ #1 POST \(other.baseURL)/login [Login]"))
        #expect(has(report, "refreshes: 1\n"))
        #expect(other.refreshes >= 1)
    }

    @Test(arguments: [["--log-level", "loud"], ["--base-url"], ["--base-url", "not a url"], ["--verbose"]])
    func badArgumentsAreRefusedWithTheUsage(arguments: [String]) {
        #expect {
            try DemoOptions(arguments: arguments)
        } throws: { error in
            has("\(error)", DemoOptions.usage)
        }
    }
}
