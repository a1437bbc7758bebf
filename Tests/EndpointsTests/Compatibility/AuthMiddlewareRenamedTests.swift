import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The deprecated forwarders of `Compatibility/Auth+Middleware+Renamed.swift` and
// `Compatibility/Multipart+Readback04.swift`: code written against the spellings that are no
// longer public still compiles (with a warning) and gets the same answers as the current API.
// Public API only, as such code sees it.
@Suite struct AuthMiddlewareRenamedTests {
    private let blank = URLRequest(url: URL(string: "https://example.com/a")!)

    @Test func basicAuthValidateAndHeaderValueForwardToTheCheckAuthenticateMakes() async throws {
        let auth = BasicAuth(username: "Aladdin", password: "open sesame")
        try auth.validate()
        let authenticated = try await auth.authenticate(request: blank)
        #expect(try auth.headerValue() == authenticated.value(forHTTPHeaderField: "Authorization"))
        #expect(throws: AuthenticationError.self) { try BasicAuth(username: "a:b", password: "p").validate() }
    }

    @Test func cookieAuthValidateForwardsToTheCheckAuthenticateMakes() throws {
        try CookieAuth(name: "session", value: "abc").validate()
        #expect(throws: AuthenticationError.self) { try CookieAuth(name: "bad name", value: "v").validate() }
    }

    @Test func jwtIsRejectionClassifiesAsJWTAuthDoes() {
        #expect(JWTAuth.isRejection(JWTAuth.RefreshRejection()))
        #expect(!JWTAuth.isRejection(URLError(.timedOut)))
    }

    @Test func cURLDescriptionWithAContextHidesItsCredentialHeaders() {
        var request = blank
        request.setValue("tenant-secret", forHTTPHeaderField: "X-Tenant")
        let context = RequestContext(endpointName: "E", credentialHeaders: ["X-Tenant"])
        let line = request.cURLDescription(context: context)
        #expect(line == request.cURLDescription(credentialHeaders: context.credentialHeaders))
        #expect(!line.contains("tenant-secret"))
    }

    @Test func retryAfterStillParses() {
        let now = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
        #expect(RetryAfter.delay(from: "120", now: now) == 120)
        #expect(RetryAfter.delay(from: "Thu, 01 Jan 2026 00:00:30 GMT", now: now) == 30)
        #expect(RetryAfter.date(from: "Thu, 01 Jan 2026 00:00:30 GMT", now: now) == now + 30)
    }

    @Test func systemClockAndDefaultSetsAreTheDefaults() async throws {
        let clock = SystemMiddlewareClock()
        #expect(abs(clock.now.timeIntervalSinceNow) < 60)
        try await clock.sleep(seconds: 0)
        _ = RetryMiddleware(retryableStatusCodes: RetryMiddleware.defaultRetryableStatusCodes, clock: clock)
        #expect(RetryMiddleware.defaultRetryableStatusCodes == [408, 429, 502, 503, 504])
        #expect(RetryMiddleware.defaultRetryableErrorCodes.contains(.timedOut))
    }

    @Test func logSinkAndRedactionInitStillWork() {
        let sink: LogSink = { _ in }
        _ = LoggingMiddleware(sink: sink)
        _ = LoggingMiddleware(sink: LogSinks.standardError)
        let redaction = Redaction(headers: ["X-Session"], fields: ["pin"])
        var request = blank
        request.setValue("s", forHTTPHeaderField: "X-Session")
        request.setValue("Bearer t", forHTTPHeaderField: "Authorization")
        let line = request.cURLDescription(redaction: redaction)
        #expect(line.contains("X-Session: <redacted>"))
        #expect(line.contains("Authorization: Bearer t"))  // a policy from scratch hides only what it names
    }

    @Test func multipartValuesReadBackAsIn04() {
        let file = MultipartForm.File(filename: "a.txt", contentType: "text/plain", data: Data("hi".utf8))
        #expect(file.fileName == "a.txt" && file.contentType == "text/plain" && file.data == Data("hi".utf8))
        let json = MultipartFormJSON(["k": "v"], fileName: "m.json")
        #expect(json.value == ["k": "v"] && json.fileName == "m.json" && json.contentType == "application/json")
        #expect(MultipartFormEncoder(boundary: "b").boundary == "b")
    }
}
