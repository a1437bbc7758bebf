import Foundation

extension OAuth {
    /// What to show the user during the device flow (RFC 8628 §3.2): the code to enter, where to
    /// enter it, and until when it is valid.
    ///
    /// ```swift
    /// try await auth.authorizeDevice { device in
    ///     if let direct = device.verificationURIComplete {
    ///         showQRCode(direct)   // the code is in it: scanning it is enough
    ///     }
    ///     print("Open \(device.verificationURI) and enter \(device.userCode)")
    ///     if let expiresAt = device.expiresAt { print("The code expires at \(expiresAt).") }
    /// }
    /// ```
    ///
    /// It holds nothing secret: the device code the method polls with stays inside the method.
    public struct DeviceAuthorization: Sendable, Hashable {
        /// The code the user enters at ``verificationURI``.
        public let userCode: String
        /// Where the user enters ``userCode``, on another device.
        public let verificationURI: URL
        /// The verification URI with the code in it (`verification_uri_complete`), for a QR code or
        /// a link that needs no typing; `nil` when the server sends none.
        public let verificationURIComplete: URL?
        /// When the code expires (the server's `expires_in` from when it answered); `nil` when it
        /// gave none. Polling ends with ``OAuthError/expired`` then.
        public let expiresAt: Date?
    }

    /// Signs in with the ``Grant/deviceCode(scopes:)`` grant (RFC 8628), for devices without a
    /// browser or keyboard: `show` receives what the user needs (a ``DeviceAuthorization``: the
    /// code to enter at the verification URI on another device, the URI with the code in it for a
    /// QR code, and the code's expiry); the method then polls the token endpoint until the user
    /// has approved.
    ///
    /// ```swift
    /// try await auth.authorizeDevice { device in
    ///     print("Open \(device.verificationURI) and enter \(device.userCode)")
    /// }
    /// ```
    ///
    /// Polling waits the server's `interval` (5 s when it gives none) before each poll, continues
    /// on `authorization_pending`, waits 5 s longer from each `slow_down` on, and throws
    /// ``OAuthError/expired`` (`expired_token`, or the code's `expires_in` passed),
    /// ``OAuthError/accessDenied`` (`access_denied`), or the first other error. Cancelling the
    /// task stops it with ``OAuthError/unavailable(reason:)``. `expires_in` and `interval` may be
    /// JSON numbers or strings of digits (Azure AD v1 sends strings).
    ///
    /// Throws ``OAuthError/unsupportedFlow(reason:)``, sending nothing, unless the grant is
    /// `.deviceCode` and the provider has a `deviceAuthorizationURL`.
    public func authorizeDevice(show: (DeviceAuthorization) async -> Void) async throws(OAuthError) {
        guard case .deviceCode(let scopes) = grant else {
            throw .unsupportedFlow(
                reason: "authorizeDevice(show:) needs the .deviceCode grant, and this one is \(grant)")
        }
        guard let endpoint = provider.deviceAuthorizationURL else {
            throw .unsupportedFlow(reason: "authorizeDevice(show:) needs a provider with a deviceAuthorizationURL")
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
        var complete: URL?
        if case .string(let text)? = fields["verification_uri_complete"] { complete = URL(string: text) }
        var interval = 5
        // At least a second apart, even if the server says 0; an absurd interval falls back to 5 s.
        if let given = (try? fields.seconds("interval")) ?? nil, given <= 3600 { interval = max(1, given) }
        var deadline = Date.distantFuture
        var expiresAt: Date?
        if let seconds = (try? fields.seconds("expires_in")) ?? nil {
            deadline = client.now().addingTimeInterval(TimeInterval(seconds))
            expiresAt = deadline
        }
        await show(
            DeviceAuthorization(
                userCode: userCode, verificationURI: verificationURI, verificationURIComplete: complete,
                expiresAt: expiresAt))
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
