import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Regression tests for what the fuzz targets in Fuzz/ found (scripts/fuzz.sh). Each test names
// the target and the property that failed.

@Suite struct FuzzFindingTests {
    /// FuzzHeaders: `JWTAuth` put an access token with CR or LF into `Authorization`, which
    /// Foundation on Linux drops without a word, so the request went out unauthenticated.
    @Test(arguments: ["a\r\nX-Injected: 1", "line\nbreak", "nul\u{0}", "bell\u{07}"])
    func jwtAccessTokenWithAControlCharacterIsRefused(token: String) async {
        let auth = JWTAuth(
            initialTokens: JWTAuth.TokenPair(accessToken: token, refreshToken: "refresh"),
            refreshHandler: { _ in throw CancellationError() }
        )
        let request = URLRequest(url: URL(string: "https://api.example.com/")!)
        let error = await #expect(throws: AuthenticationError.self) {
            _ = try await auth.authenticate(request: request)
        }
        guard case .invalidCredentials(let reason) = error else {
            Issue.record("expected invalidCredentials, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("control character"))
    }

    @Test func jwtAccessTokenWithoutControlCharactersIsSent() async throws {
        let auth = JWTAuth(
            initialTokens: JWTAuth.TokenPair(accessToken: "eyJ.abc-_~+/=", refreshToken: "refresh"),
            refreshHandler: { _ in throw CancellationError() }
        )
        let sent = try await auth.authenticate(request: URLRequest(url: URL(string: "https://api.example.com/")!))
        #expect(sent.value(forHTTPHeaderField: "Authorization") == "Bearer eyJ.abc-_~+/=")
    }

    /// FuzzCURL: a `'` followed by a combining mark was one `Character`, so the quoting did not
    /// escape it and the rest of the value ran as shell code when the command was pasted.
    @Test func cURLQuotingEscapesAQuoteFollowedByACombiningMark() {
        var request = URLRequest(url: URL(string: "https://api.example.com/")!)
        request.setValue("it'\u{301}s; echo injected '", forHTTPHeaderField: "X-Note")
        let command = request.cURLDescription(redaction: .disabled)
        #expect(command.contains("-H 'X-Note: it'\\''\u{301}s; echo injected '\\'''"), "\(command)")
    }
}
