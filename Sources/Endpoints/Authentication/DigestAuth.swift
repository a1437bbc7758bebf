import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HTTP Digest credentials (RFC 7616): the password never goes over the wire, only a hash of it
/// with the server's nonce and the request.
///
/// ```swift
/// struct CameraServer: ServerDefinition {
///     static let auth = DigestAuth(username: "admin", password: "open sesame")
///     ...
/// }
/// ```
///
/// The first request to an origin goes without credentials; its `401` carries the server's
/// challenge (`WWW-Authenticate: Digest realm=…, nonce=…`), and the pipeline sends the request
/// once more with the answer. Later requests to that origin answer the same challenge at once,
/// counting each use of the nonce (`nc`), until the server says the nonce is stale (`stale=true`,
/// answered by sending again with the new one) or names the next one (`Authentication-Info:
/// nextnonce=…`). A `401` to credentials sent with the latest nonce means they are wrong: it
/// reaches the caller as the endpoint's error response, and nothing is sent again.
///
/// What it answers:
/// - `MD5` (the default), `SHA-256` and `SHA-512-256`, each also as `-sess`; of several
///   challenges, the first it can answer, as the server lists them in its order of preference.
/// - `qop=auth`, and `auth-int` (which signs the body) when only it is offered. The body must
///   then be in memory: an upload from a file or a sequence joins the request after
///   authentication and is signed as none, so such a server refuses it with a `401`; a
///   `URLRequest` of your own with an `httpBodyStream` fails with
///   ``AuthenticationError/invalidCredentials(reason:)``.
/// - RFC 2069 challenges without `qop`, `userhash=true`, and a non-ASCII user name as
///   `username*` (RFC 8187).
///
/// The answer signs the request's URL and method, so a redirect within the origin is signed
/// again for its new URL (one to another origin carries no credentials, as always).
///
/// It keeps state (the challenges, the nonce counts), so declare it once: `static let auth = …`
/// (a debug build asserts it). The password cannot be read back, and printing or dumping the
/// method shows `DigestAuth(username: "admin", password: <redacted>)`. ``HTTPCache`` does not
/// store responses to Digest requests: each request's `Authorization` differs, and none proves
/// the password to the cache.
public final class DigestAuth: AuthenticationMethod, CredentialUpdating, CustomReflectable {
    /// The user name.
    let username: String
    /// The password, shown as `<redacted>`.
    private let password: Secret<String>
    /// Why the credentials cannot be sent, fixed at `init`; `nil` when they can.
    private let invalid: AuthenticationError?
    private let state = Locked(DigestState())

    /// Creates the method. Invalid credentials (a control character in either part) are reported
    /// when a request is authenticated, before anything is sent.
    public init(username: String, password: String) {
        self.username = username
        self.password = Secret(password)
        invalid =
            CredentialText.containsControl(username) || CredentialText.containsControl(password)
            ? .invalidCredentials(reason: "a Digest user name or password cannot contain control characters.")
            : nil
    }

    /// Returns `request` with `Authorization: Digest …` answering its origin's latest challenge,
    /// or unchanged before the origin challenged.
    public func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest {
        if let invalid { throw invalid }
        return try signed(request) ?? request
    }

    /// `request` signed with its origin's latest challenge, its nonce counted once more; `nil`
    /// before the origin challenged.
    private func signed(_ request: URLRequest) throws(AuthenticationError) -> URLRequest? {
        guard let url = request.url, let origin = RedirectPolicy.Origin(url),
            let session = state.withLock({ $0.use(origin: origin) })
        else { return nil }
        let body: [UInt8]? = request.httpBodyStream == nil ? Array(request.httpBody ?? Data()) : nil
        let sent = DigestChallenge.Request(
            method: request.httpMethod ?? "GET", target: Self.requestTarget(of: url), body: body)
        guard
            let authorization = session.challenge.authorization(
                username: username, password: password.value, for: sent, nonceCount: session.nonceCount,
                cnonce: session.cnonce)
        else {
            throw .invalidCredentials(
                reason:
                    "the server asks for Digest qop=auth-int, which signs the body, and this request's body is streamed."
            )
        }
        var request = request
        request.setValue(authorization, forHTTPHeaderField: "Authorization")
        return request
    }

    /// Whether `response` is a `401` with a Digest challenge to answer: when the request went
    /// without Digest credentials, with a stale nonce, or with a nonce other than the origin's
    /// latest. The challenge is kept here, since ``reauthenticate(after:)`` is not handed the
    /// response; so is the `nextnonce` of any other response's `Authentication-Info`.
    public func shouldReauthenticate(for request: URLRequest, response: HTTPURLResponse) -> Bool {
        guard let url = request.url, let origin = RedirectPolicy.Origin(url) else { return false }
        guard response.statusCode == 401 else {
            if let info = response.value(forHTTPHeaderField: "Authentication-Info"),
                let next = AuthChallenge.parameters(of: info)["nextnonce"], !next.isEmpty
            {
                state.withLock { $0.nextNonce(next, origin: origin, cnonce: Self.newClientNonce()) }
            }
            return false
        }
        guard let field = response.value(forHTTPHeaderField: "WWW-Authenticate"),
            let challenge = DigestChallenge.first(in: field)
        else { return false }
        let sentNonce = request.value(forHTTPHeaderField: "Authorization").flatMap(Self.nonce(inAuthorization:))
        let cnonce = Self.newClientNonce()
        return state.withLock { $0.challenged(origin: origin, by: challenge, sentNonce: sentNonce, cnonce: cnonce) }
    }

    /// Nothing to renew: ``shouldReauthenticate(for:response:)`` kept the challenge, and the
    /// pipeline authenticates the request again with it.
    public func reauthenticate(after request: URLRequest) async throws(AuthenticationError) {}

    /// `request` signed again when its answer no longer fits: it was signed for another URL (a
    /// redirect within the origin, which the transport passes here) or with a nonce the origin has
    /// replaced since (while the request waited in a queue). `nil` when it fits, and for a request
    /// without Digest credentials (one redirected to another origin lost them, and gets none).
    func updatedCredentials(for request: URLRequest) -> URLRequest? {
        guard invalid == nil,
            let sent = request.value(forHTTPHeaderField: "Authorization").flatMap(Self.parameters(ofAuthorization:)),
            let url = request.url, let origin = RedirectPolicy.Origin(url)
        else { return nil }
        let latest = state.withLock { $0.sessions[origin]?.challenge.nonce }
        guard sent["uri"] != Self.requestTarget(of: url) || sent["nonce"] != latest else { return nil }
        return try? signed(request)
    }

    /// `DigestAuth(username: "admin", password: <redacted>)`.
    public var customMirror: Mirror {
        Mirror(self, children: ["username": username, "password": password], displayStyle: .struct)
    }

    /// The nonce of a `Digest` `Authorization` value, or `nil` for another scheme.
    static func nonce(inAuthorization value: String) -> String? { parameters(ofAuthorization: value)?["nonce"] }

    /// The parameters of a `Digest` `Authorization` value, or `nil` for another scheme.
    private static func parameters(ofAuthorization value: String) -> [String: String]? {
        guard let credentials = AuthChallenge.parse(value).first, credentials.scheme.lowercased() == "digest"
        else { return nil }
        return credentials.parameters
    }

    /// The request-target of `url` as sent: its path as written (`/` when empty) and its query.
    static func requestTarget(of url: URL) -> String {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return "/" }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }

    /// 16 random bytes as hex: the client nonce of a session.
    static func newClientNonce() -> String {
        var random = SystemRandom()
        return Hex.lowercase((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &random) })
    }
}
