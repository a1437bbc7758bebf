import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where `scripts/apache.sh run` started Apache httpd, from `APACHE_URL`.
private enum Apache {
    static let url: URL? = ProcessInfo.processInfo.environment["APACHE_URL"].flatMap { URL(string: $0) }
}

/// The Apache httpd of `scripts/apache.sh`.
private struct ApacheServer: ServerDefinition {
    var baseUrls: [TypicalEnvironments: URL] {
        guard let url = Apache.url else { return [:] }
        return [.production: url]
    }
}

/// `GET /{area}/{file}?note=…`, behind mod_auth_digest (realm "endpoints").
private struct ApacheDigest: Endpoint {
    typealias Server = ApacheServer
    struct Response: Decodable, Sendable { let authenticated: Bool }
    struct PathComponents: Sendable {
        let area: String
        let file: String
    }
    struct ParameterComponents: Sendable { let note: String }

    static let auth = DigestAuth(username: "user", password: "passwd")
    static let definition: Definition<ApacheDigest> = Definition(
        path: "\(path: \.area)/\(path: \.file)", parameters: [.query("note", path: \.note)])

    let pathComponents: PathComponents
    let parameterComponents: ParameterComponents

    init(area: String = "digest", file: String = "data.json", note: String = "a b&c") {
        pathComponents = PathComponents(area: area, file: file)
        parameterComponents = ParameterComponents(note: note)
    }
}

/// ``DigestAuth`` against Apache httpd's mod_auth_digest, through every transport: the server most
/// Digest deployments run, which checks the answer's `uri` against the request line (a query
/// with escapes here) and refuses a nonce past its lifetime as stale.
@Suite(
    .enabled(
        if: Apache.url != nil,
        "APACHE_URL is not set; run `scripts/apache.sh run swift test` to include the Apache Digest suite"
    )
)
struct ApacheDigestAuthTests {
    @Test(arguments: TestTransport.all)
    func answersTheChallengeThenSendsAtOnce(via transport: TestTransport) async throws {
        let log = AuthorizationLog()
        let client = transport.client(middleware: [log])
        let auth = DigestAuth(username: "user", password: "passwd")
        #expect(try await client.response(with: ApacheDigest(), auth: auth).authenticated)
        #expect(try await client.response(with: ApacheDigest(note: "second"), auth: auth).authenticated)
        let sent = log.sent.value
        try #require(sent.count == 3, "\(sent)")
        #expect(sent[0] == nil)
        #expect(sent[1]?.contains(#"uri="/digest/data.json?note=a%20b%26c""#) == true, "\(sent[1] ?? "")")
        #expect(sent[2]?.contains("nc=00000002") == true)
    }

    @Test(arguments: TestTransport.all)
    func aWrongPasswordIsRefusedAfterOneResend(via transport: TestTransport) async throws {
        let log = AuthorizationLog()
        let client = transport.client(middleware: [log])
        do {
            _ = try await client.response(with: ApacheDigest(), auth: DigestAuth(username: "user", password: "wrong"))
            Issue.record("a wrong password was accepted")
        } catch {
            #expect(error.statusCode == 401, "got \(error)")
        }
        #expect(log.sent.value.count == 2)
    }

    /// The nonce lives 3 s there: once it has passed, the answer at once is refused with
    /// `stale=true` and sent again with the new nonce. (The wait is the behaviour: the server's
    /// nonce lifetime. It was 1 s, which the first request outlived on a starved machine, its
    /// answer sent more than a second after the challenge: 1 run in 5 beside two busy loops.)
    @Test(arguments: TestTransport.all)
    func aNonceThatOutlivedItsLifetimeIsRenewed(via transport: TestTransport) async throws {
        let log = AuthorizationLog()
        let client = transport.client(middleware: [log])
        let auth = DigestAuth(username: "user", password: "passwd")
        let endpoint = ApacheDigest(area: "short-nonce")
        #expect(try await client.response(with: endpoint, auth: auth).authenticated)
        try await Task.sleep(nanoseconds: 4_100_000_000)
        #expect(try await client.response(with: endpoint, auth: auth).authenticated)
        let sent = log.sent.value
        try #require(sent.count == 4, "\(sent)")
        let nonces = sent.map { $0.flatMap(DigestAuth.nonce(inAuthorization:)) }
        #expect(nonces[0] == nil && nonces[2] == nonces[1] && nonces[3] != nonces[1])
        #expect(sent[3]?.contains("nc=00000001") == true)
    }

    /// A 302 within the origin: the request to its new URL is signed again for that URL, which
    /// Apache checks against the request line (the answer for the old URL is a 400 there).
    @Test(arguments: TestTransport.all)
    func aRedirectWithinTheOriginIsSignedAgain(via transport: TestTransport) async throws {
        let log = AuthorizationLog()
        let client = transport.client(middleware: [log])
        let auth = DigestAuth(username: "user", password: "passwd")
        let moved = ApacheDigest(file: "moved.json")
        #expect(try await client.response(with: moved, auth: auth).authenticated)
        #expect(try await client.response(with: moved, auth: auth).authenticated)
        let sent = log.sent.value
        try #require(sent.count == 3, "\(sent)")
        #expect(sent[1]?.contains(#"uri="/digest/moved.json?note=a%20b%26c""#) == true, "\(sent[1] ?? "")")
    }
}
