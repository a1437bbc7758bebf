import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The client side of an authorization server: builds token, device and revocation requests,
/// authenticates the client, sends them straight to the transport (past middleware, so nothing
/// secret is logged) and turns the answers into tokens or an ``OAuthError``.
final class OAuthClient: Sendable {
    let provider: OAuth.Provider
    let grant: OAuth.Grant
    let now: @Sendable () -> Date
    /// Waits between device-flow polls; tests pass one that records the intervals.
    let sleep: @Sendable (TimeInterval) async throws -> Void
    /// Sends the requests; a transport installed for the task (EndpointsMocking) wins.
    let transport: any HTTPTransport
    let state = Locked(MutableState())

    struct MutableState {
        var grantedScopes: [String] = []
        /// Authorizations started by `authorizationURL()`: the PKCE verifier for each `state`.
        var pending: [(state: String, verifier: String)] = []
        /// Whether a renewal may ask the token endpoint now (see ``OAuthBackOff``).
        var backOff = OAuthBackOff()
    }

    init(
        provider: OAuth.Provider,
        grant: OAuth.Grant,
        now: @escaping @Sendable () -> Date,
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void = OAuthClient.realSleep,
        transport: any HTTPTransport = URLSessionTransport(session: .shared)
    ) {
        self.provider = provider
        self.grant = grant
        self.now = now
        self.sleep = sleep
        self.transport = transport
    }

    /// Waits `seconds` (cancellable).
    static let realSleep: @Sendable (TimeInterval) async throws -> Void = { seconds in
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    }

    /// What a grant starts with before any token exists: an expired, empty pair that makes the
    /// first request renew (client credentials fetch; a refresh token grant refreshes), or `nil`.
    static func placeholder(for grant: OAuth.Grant) -> JWTAuth.TokenPair? {
        switch grant {
        case .clientCredentials: JWTAuth.TokenPair(accessToken: "", refreshToken: "", expiresAt: .distantPast)
        case .refreshToken(let token): JWTAuth.TokenPair(accessToken: "", refreshToken: token, expiresAt: .distantPast)
        case .authorizationCode, .deviceCode: nil
        }
    }

    var grantedScopes: [String] { state.withLock { $0.grantedScopes } }

    func forgetScopes() { state.withLock { $0.grantedScopes = [] } }

    /// The user set tokens, signed in or logged out: a back-off ends (see ``OAuthBackOff``).
    func userActed() { state.withLock { $0.backOff.userActed() } }

    /// `JWTAuth`'s refresh handler: client credentials again, or the refresh token; during a
    /// back-off after a failed renewal, the same error at once, without a token request.
    func renew(_ refreshToken: String) async throws(OAuthError) -> JWTAuth.TokenPair {
        let epoch: UInt64
        switch state.withLock({ $0.backOff.renewal(at: now()) }) {
        case .fail(let error): throw error
        case .send(let current): epoch = current
        }
        do {
            let tokens = try await requestRenewal(refreshToken)
            state.withLock { $0.backOff.succeeded(epoch: epoch) }
            return tokens
        } catch {
            let now = now()
            state.withLock { $0.backOff.failed(error, epoch: epoch, at: now) }
            throw error
        }
    }

    /// The token request of a renewal.
    private func requestRenewal(_ refreshToken: String) async throws(OAuthError) -> JWTAuth.TokenPair {
        if case .clientCredentials(let scopes) = grant {
            return try await obtain([("grant_type", "client_credentials")] + Self.scope(scopes))
        }
        guard !refreshToken.isEmpty else {
            throw .invalidGrant(description: "the server issued no refresh token, so the session cannot be renewed")
        }
        return try await obtain(
            [("grant_type", "refresh_token"), ("refresh_token", refreshToken)], keeping: refreshToken)
    }

    /// Sends a token request and returns the new pair; a refresh token the server did not
    /// replace is kept (`keeping`).
    func obtain(_ form: [(String, String)], keeping refreshToken: String = "") async throws(OAuthError)
        -> JWTAuth.TokenPair
    {
        let (data, response) = try await post(to: provider.tokenURL, form: form)
        guard (200..<300).contains(response.statusCode) else {
            throw Self.error(status: response.statusCode, body: data)
        }
        let answer = try TokenResponse(parsing: data)
        let scopes = answer.scope.map { $0.split(separator: " ").map(String.init) } ?? grant.scopes
        state.withLock { $0.grantedScopes = scopes }
        return JWTAuth.TokenPair(
            accessToken: answer.accessToken,
            refreshToken: answer.refreshToken ?? refreshToken,
            expiresAt: answer.expiresIn.map { now().addingTimeInterval(TimeInterval($0)) }
        )
    }

    /// RFC 7009: asks the server to revoke `token`.
    func revoke(_ token: String, hint: String) async throws(OAuthError) {
        guard let url = provider.revocationURL else { return }
        let (data, response) = try await post(to: url, form: [("token", token), ("token_type_hint", hint)])
        guard (200..<300).contains(response.statusCode) else {
            throw Self.error(status: response.statusCode, body: data)
        }
    }

    /// POSTs `form` with the client's authentication, straight to the transport.
    func post(to url: URL, form: [(String, String)]) async throws(OAuthError) -> (Data, HTTPURLResponse) {
        var form = form
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.cachePolicy = .reloadIgnoringLocalCacheData
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        switch (provider.clientSecret, provider.clientAuthentication) {
        case (nil, _):
            form.append(("client_id", provider.clientID))
        case (let secret?, .post):
            form += [("client_id", provider.clientID), ("client_secret", secret)]
        case (let secret?, .basic):
            // RFC 6749 §2.3.1: each part form-urlencoded before they are joined and base64-encoded.
            let pair = Self.formEncode(provider.clientID) + ":" + Self.formEncode(secret)
            request.setValue("Basic " + Data(pair.utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        }
        request.httpBody = Data(
            form.map { Self.formEncode($0) + "=" + Self.formEncode($1) }.joined(separator: "&").utf8)
        let context = RequestContext(
            endpointName: "OAuth token endpoint", credentialHeaders: RequestContext.standardCredentialHeaders,
            authenticationAttempt: 1,
            // Never queued behind the requests that wait for it.
            isCredentialRefresh: true, currentCredentials: nil, transfer: .none)
        let transport = PipelineOverrides.current.transport ?? transport
        do {
            return try await transport.send(request, context: context)
        } catch {
            if Task.isCancelled || error is CancellationError {
                throw .unavailable(reason: "the request was cancelled")
            }
            if let error = error as? URLError {
                throw .unavailable(
                    reason: "the request to \(url.host ?? "the server") failed with URLError \(error.code.rawValue)")
            }
            throw .unavailable(reason: "the request to \(url.host ?? "the server") failed with \(type(of: error))")
        }
    }

    /// The error an unsuccessful answer means (RFC 6749 §5.2, RFC 8628 §3.5).
    static func error(status: Int, body: Data) -> OAuthError {
        struct ErrorBody: Decodable {
            let error: String
            let error_description: String?
        }
        if let body = try? JSONDecoder().decode(ErrorBody.self, from: body) {
            switch body.error {
            case "invalid_grant": return .invalidGrant(description: body.error_description)
            case "access_denied": return .accessDenied
            case "expired_token": return .expired
            case "temporarily_unavailable", "server_error":
                return .unavailable(reason: "\(OAuthError.printable(body.error)), status \(status)")
            default: return .misconfigured(error: body.error, description: body.error_description)
            }
        }
        if status >= 500 || status == 408 || status == 429 { return .unavailable(reason: "status \(status)") }
        return .invalidResponse(reason: "the server answered \(status) without an OAuth error")
    }

    static func scope(_ scopes: [String]) -> [(String, String)] {
        scopes.isEmpty ? [] : [("scope", scopes.joined(separator: " "))]
    }

    static func formEncode(_ value: String) -> String { PercentEncoding.encode(value, as: .form) }
}
