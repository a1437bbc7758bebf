import Foundation

// Spellings that earlier builds of this release made public and the authentication cut of
// issue 24 no longer does. Descriptions now come from each type's mirror (the secrets are
// redacted there), so `String(describing:)` and `"\(value)"` are the way to read them; the
// pipeline finds the headers a method sets by itself, so no method declares them. Kept so that
// code using them still compiles, with a warning that says what to write instead.

// MARK: - Descriptions

extension BasicAuth {
    /// The user name; the password is redacted.
    @available(*, deprecated, message: "Write String(describing: auth) or \"\\(auth)\"; the password stays redacted.")
    public var description: String { String(describing: self) }
}

extension HeaderKeyAuth {
    /// The header and prefix; the key is redacted.
    @available(*, deprecated, message: "Write String(describing: auth) or \"\\(auth)\"; the key stays redacted.")
    public var description: String { String(describing: self) }

    /// The header given to `init`.
    @available(
        *, deprecated,
        message:
            "The pipeline finds the headers a method sets by itself; in a middleware, read context.credentialHeaders."
    )
    public var credentialHeaderNames: [String] { [header] }
}

extension CookieAuth {
    /// The name; the value is redacted.
    @available(*, deprecated, message: "Write String(describing: auth) or \"\\(auth)\"; the value stays redacted.")
    public var description: String { String(describing: self) }

    /// `Cookie`.
    @available(
        *, deprecated,
        message:
            "The pipeline finds the headers a method sets by itself; in a middleware, read context.credentialHeaders."
    )
    public var credentialHeaderNames: [String] { ["Cookie"] }
}

extension JWTAuth {
    /// The configuration and whether tokens are set; never the tokens.
    @available(*, deprecated, message: "Write String(describing: auth) or \"\\(auth)\"; the tokens stay redacted.")
    public var description: String { String(describing: self) }
}

extension JWTAuth.TokenPair {
    /// The expiry only; both tokens are redacted.
    @available(*, deprecated, message: "Write String(describing: tokens) or \"\\(tokens)\"; the tokens stay redacted.")
    public var description: String { String(describing: self) }
}

extension OAuth {
    /// The provider and grant, and whether tokens are set; never a secret or a token.
    @available(*, deprecated, message: "Write String(describing: auth) or \"\\(auth)\"; secrets stay redacted.")
    public var description: String { String(describing: self) }
}

extension OAuth.Provider {
    /// The token endpoint and the client ID; the secret is redacted.
    @available(
        *, deprecated, message: "Write String(describing: provider) or \"\\(provider)\"; the secret stays redacted."
    )
    public var description: String { String(describing: self) }
}

extension RequestBase {
    /// The base URL, without header values (they may hold credentials).
    @available(*, deprecated, message: "Write String(describing: base) or \"\\(base)\"; header values stay hidden.")
    public var description: String { String(describing: self) }
}

extension AdHocRequest {
    /// The method and the URL or path as written, without the query or any header value.
    @available(
        *, deprecated, message: "Write String(describing: request) or \"\\(request)\"; header values stay hidden."
    )
    public var description: String { String(describing: self) }
}
