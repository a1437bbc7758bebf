import Foundation

extension OAuth {
    /// The URL to open in a browser for the ``Grant/authorizationCode(redirectURI:scopes:)`` grant.
    ///
    /// Each call starts an authorization: a new PKCE verifier (kept here, never in the URL), its
    /// S256 challenge and a random `state`. When the browser reaches the redirect URI, hand that URL
    /// to ``completeAuthorization(callbackURL:)``.
    ///
    /// ```swift
    /// let session = ASWebAuthenticationSession(url: try auth.authorizationURL(), callback: .customScheme("myapp")) {
    ///     callbackURL, _ in
    ///     Task { try await auth.completeAuthorization(callbackURL: callbackURL!) }
    /// }
    /// ```
    ///
    /// Throws ``OAuthError/unsupportedFlow(reason:)`` unless the grant is `.authorizationCode` and
    /// the provider has an `authorizationURL`.
    public func authorizationURL() throws(OAuthError) -> URL {
        guard case .authorizationCode(let redirectURI, let scopes) = grant else {
            throw .unsupportedFlow(
                reason: "authorizationURL() needs the .authorizationCode grant, and this one is \(grant)")
        }
        guard let endpoint = provider.authorizationURL else {
            throw .unsupportedFlow(reason: "authorizationURL() needs a provider with an authorizationURL")
        }
        let verifier = Self.randomURLSafe(byteCount: 32)
        let state = Self.randomURLSafe(byteCount: 16)
        client.state.withLock { mutable in
            // A few authorizations may be open at once (the user restarts one); not an unbounded list.
            mutable.pending = Array(mutable.pending.suffix(7)) + [(state, verifier)]
        }
        let items =
            [
                ("response_type", "code"), ("client_id", provider.clientID),
                ("redirect_uri", redirectURI.absoluteString),
            ] + OAuthClient.scope(scopes) + [
                ("state", state), ("code_challenge", Self.challenge(for: verifier)), ("code_challenge_method", "S256"),
            ]
        let query = items.map {
            PercentEncoding.encode($0, as: .component) + "=" + PercentEncoding.encode($1, as: .component)
        }
        .joined(separator: "&")
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)!
        components.percentEncodedQuery = [components.percentEncodedQuery, query].compactMap { $0 }.joined(
            separator: "&")
        return components.url!
    }

    /// Exchanges the code in `callbackURL` (the redirect URI with `code` and `state`) for tokens,
    /// sending the PKCE verifier of the authorization whose `state` it carries.
    ///
    /// Throws ``OAuthError/invalidCallback(reason:)`` when the `state` matches no authorization
    /// this method started (each is used once), ``OAuthError/accessDenied`` when the user
    /// declined, the token endpoint's errors (a code already used or a wrong verifier is
    /// ``OAuthError/invalidGrant(description:)``), and ``OAuthError/unsupportedFlow(reason:)``
    /// unless the grant is `.authorizationCode`.
    public func completeAuthorization(callbackURL: URL) async throws(OAuthError) {
        guard case .authorizationCode(let redirectURI, _) = grant else {
            throw .unsupportedFlow(
                reason:
                    "completeAuthorization(callbackURL:) needs the .authorizationCode grant, and this one is \(grant)")
        }
        let items = URLComponents(url: callbackURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        let verifier = value("state").flatMap { state in
            client.state.withLock { mutable in
                mutable.pending.firstIndex { $0.state == state }.map { mutable.pending.remove(at: $0).verifier }
            }
        }
        guard let verifier else {
            throw .invalidCallback(reason: "its state does not match an authorization this method started")
        }
        if let error = value("error") {
            throw error == "access_denied"
                ? .accessDenied : .misconfigured(error: error, description: value("error_description"))
        }
        guard let code = value("code"), !code.isEmpty else { throw .invalidCallback(reason: "it has no code") }
        try await exchange(code: code, verifier: verifier, redirectURI: redirectURI)
    }

    /// The token request of the authorization code grant.
    func exchange(code: String, verifier: String, redirectURI: URL) async throws(OAuthError) {
        let tokens = try await client.obtain([
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI.absoluteString),
            ("code_verifier", verifier),
        ])
        await install(tokens)
    }

    /// RFC 7636 §4.2: `BASE64URL(SHA256(ASCII(verifier)))`.
    static func challenge(for verifier: String) -> String {
        base64URL(SHA256.hash(Array(verifier.utf8)))
    }

    /// `byteCount` random bytes from the system's secure generator, base64url without padding
    /// (32 bytes make a 43-character verifier, RFC 7636's minimum length).
    static func randomURLSafe(byteCount: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return base64URL((0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
