import EndpointsTestServer
import Foundation

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An authorization server on `EndpointsTestServer` whose token endpoint answers what the test
/// scripts (a 503, a malformed body, a token with CR/LF…), and an `/api` that records what reached it.
final class FakeAuthorizationServer: Sendable {
    let http: TestServer
    /// The next token answers; the last one repeats.
    let answers: Locked<[TestServer.Response]>
    let tokenRequests = Locked<[TestServer.Request]>([])
    let apiAuthorizations = Locked<[String]>([])
    /// Awaited before each token answer (see ``holdTokenAnswers(until:)``).
    private let tokenHold = Locked<(@Sendable () -> Bool)?>(nil)

    init(_ answers: TestServer.Response...) throws {
        http = try TestServer()
        self.answers = Locked(answers)
        http.route("/token") { [self] request in
            tokenRequests.withLock { $0.append(request) }
            if let ready = tokenHold.withLock({ $0 }) {
                // Waits on the condition itself, however long the machine takes to get there.
                while !ready() { try? await Task.sleep(nanoseconds: 1_000_000) }
            }
            return self.answers.withLock { answers in answers.count > 1 ? answers.removeFirst() : answers[0] }
        }
        http.route("/api") { [self] request in
            apiAuthorizations.withLock { $0.append(request.header("Authorization") ?? "") }
            return .json(raw: #"{"ok":true}"#)
        }
    }

    func stop() { http.stop() }

    /// Holds every token answer until `ready()` is true (say, until every request of a burst waits
    /// for the refresh the token request belongs to).
    func holdTokenAnswers(until ready: @escaping @Sendable () -> Bool) { tokenHold.withLock { $0 = ready } }

    func answer(_ response: TestServer.Response) { answers.withLock { $0 = [response] } }

    var tokenRequestCount: Int { tokenRequests.withLock { $0.count } }
    var apiCount: Int { apiAuthorizations.withLock { $0.count } }

    /// The form fields of token request `index`.
    func form(_ index: Int) -> [String: String] {
        let body = tokenRequests.withLock { String(decoding: $0[index].body, as: UTF8.self) }
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    func provider(
        tokenPath: String = "/token",
        clientID: String = "app",
        secret: String? = "app-secret",
        authentication: OAuth.Provider.ClientAuthentication = .basic
    ) -> OAuth.Provider {
        OAuth.Provider(
            tokenURL: http.url(tokenPath), authorizationURL: http.url("/authorize"), revocationURL: http.url("/revoke"),
            clientID: clientID, clientSecret: secret, clientAuthentication: authentication)
    }

    /// `GET /api` with `auth`.
    func api(_ auth: OAuth, middleware: [any Middleware] = []) async throws(EndpointTaskError<EmptyCodable>) {
        _ = try await URLSession.shared.response(
            for: Request<Data>.get(RequestTarget(http.url("/api").absoluteString)).auth(auth).middleware(middleware))
    }

    /// A token response with `fields` as raw JSON members, e.g. `"access_token": "a"`.
    static func tokens(_ members: String, status: Int = 200) -> TestServer.Response {
        .json(raw: "{\(members)}", status: status)
    }

    static let good = tokens(#""access_token": "fresh-access", "token_type": "Bearer", "expires_in": 3600"#)

    /// Expired tokens with a refresh token, so the first request refreshes.
    static let expired = JWTAuth.TokenPair(
        accessToken: "old-access", refreshToken: "old-refresh", expiresAt: .distantPast)
}
