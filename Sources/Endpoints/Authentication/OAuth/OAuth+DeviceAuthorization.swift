import Foundation

extension OAuth {
    /// Signs in with the ``Grant/deviceCode(scopes:)`` grant (RFC 8628), for devices without a
    /// browser or keyboard: `show` receives the code the user enters at the verification URI on
    /// another device; the method then polls the token endpoint until the user has approved.
    ///
    /// ```swift
    /// try await auth.authorizeDevice { userCode, verificationURI in
    ///     print("Open \(verificationURI) and enter \(userCode)")
    /// }
    /// ```
    ///
    /// Polling waits the server's `interval` (5 s when it gives none) before each poll, continues
    /// on `authorization_pending`, waits 5 s longer from each `slow_down` on, and throws
    /// ``OAuthError/expired`` (`expired_token`, or the code's `expires_in` passed),
    /// ``OAuthError/accessDenied`` (`access_denied`), or the first other error. Cancelling the
    /// task stops it with ``OAuthError/unavailable(reason:)``.
    ///
    /// A programming error (it stops the program) unless the grant is `.deviceCode` and the
    /// provider has a `deviceAuthorizationURL`.
    public func authorizeDevice(
        show: (_ userCode: String, _ verificationURI: URL) async -> Void
    ) async throws(OAuthError) {
        guard case .deviceCode(let scopes) = grant, let endpoint = provider.deviceAuthorizationURL else {
            preconditionFailure(
                "authorizeDevice(show:) needs the .deviceCode grant and a provider deviceAuthorizationURL.")
        }
        let (data, response) = try await client.post(to: endpoint, form: OAuthClient.scope(scopes))
        guard (200..<300).contains(response.statusCode) else {
            throw OAuthClient.error(status: response.statusCode, body: data)
        }
        let fields = try JSONFields(parsing: data, what: "device authorization response")
        guard case .string(let deviceCode)? = fields["device_code"], !deviceCode.isEmpty,
            case .string(let userCode)? = fields["user_code"], !userCode.isEmpty,
            case .string(let uri)? = fields["verification_uri"], let verificationURI = URL(string: uri)
        else {
            throw .invalidResponse(
                reason: "the device authorization response lacks device_code, user_code or verification_uri")
        }
        var interval = 5
        // At least a second apart, even if the server says 0; an absurd interval falls back to 5 s.
        if case .integer(let given)? = fields["interval"], (0...3600).contains(given) { interval = max(1, given) }
        var deadline = Date.distantFuture
        if case .integer(let seconds)? = fields["expires_in"], seconds >= 0 {
            deadline = client.now().addingTimeInterval(TimeInterval(seconds))
        }
        await show(userCode, verificationURI)
        let grantType = "urn:ietf:params:oauth:grant-type:device_code"
        while true {
            do {
                try await client.sleep(TimeInterval(interval))
            } catch {
                throw .unavailable(reason: "the device authorization was cancelled")
            }
            if client.now() >= deadline { throw .expired }
            do {
                let tokens = try await client.obtain([("grant_type", grantType), ("device_code", deviceCode)])
                await install(tokens)
                return
            } catch .misconfigured(error: "authorization_pending", _) {
                continue
            } catch .misconfigured(error: "slow_down", _) {
                interval += 5  // RFC 8628 §3.5: for this and every later poll
            }
        }
    }
}
