import Foundation

/// Which header values, body fields and query items logging and `URLRequest.cURLDescription(redaction:credentialHeaders:)`
/// hide, and which ones you chose to reveal.
///
/// By default (``standard``) these are replaced with `<redacted>`:
/// - the headers `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`, and every header
///   in ``RequestContext/credentialHeaders`` (so the header of a `HeaderKeyAuth` is hidden too);
/// - the well-known API-key headers (`X-API-Key`, `Api-Key`, `ApiKey`, `X-ApiKey`, `X-Client-Key`,
///   `X-App-Key`, `X-Application-Key`, `X-Auth-Key`, `X-Access-Key`, `X-Secret-Key`,
///   `X-Functions-Key`, `Ocp-Apim-Subscription-Key`), even where no context says which headers an
///   endpoint's authentication set;
/// - JSON fields at any depth, form fields, multipart fields and query items whose name, compared
///   case-insensitively and ignoring `_` and `-`, is or ends with `password`, `token`, `secret`,
///   `access_token`, `refresh_token` or `api_key` (`newPassword`, `id_token` and `client_secret` match too,
///   and so does a bracketed name with such a part, `user[password]` or `tokens[0]`);
/// - header names that match the same way (`X-Auth-Token`);
/// - the user and password of a URL (`https://user:pass@host`).
///
/// Reveal a name you need to see while debugging, or hide one of your own:
///
/// ```swift
/// let redaction = Redaction.standard
///     .revealing("X-Request-Token")
///     .redacting(headers: ["X-Session"], fields: ["pin"])
/// ```
///
/// A header of your own is hidden when it is in ``RequestContext/credentialHeaders`` (logging
/// reads them; pass them to `cURLDescription(redaction:credentialHeaders:)`) or added with
/// ``redacting(headers:fields:)``.
public struct Redaction: Sendable, Hashable {
    /// Header names always hidden, lower-cased.
    var headers: Set<String>
    /// Field and query item names hidden, matched as described on ``Redaction``.
    var fields: Set<String>
    /// Header and field names shown even though they match; compared like `fields`.
    var revealed: Set<String>
    /// Whether anything is hidden at all; `false` for ``disabled``.
    var isEnabled: Bool

    /// What replaces a hidden value.
    static let placeholder = "<redacted>"

    /// Creates a redaction policy.
    /// - Parameters:
    ///   - headers: Header names to hide (any case).
    ///   - fields: Field, query item and header names to hide wherever they appear (any case).
    ///   - revealed: Names to show even though they match.
    init(hiding headers: Set<String>, fields: Set<String>, revealing revealed: Set<String> = []) {
        self.headers = Set(headers.map { $0.lowercased() })
        self.fields = Set(fields.map(Redaction.normalize))
        self.revealed = Set(revealed.map(Redaction.normalize))
        self.isEnabled = true
    }

    /// The default policy described on ``Redaction``.
    public static let standard = Redaction(
        hiding: Set(["authorization", "proxy-authorization", "cookie", "set-cookie"]).union(wellKnownKeyHeaders),
        fields: ["password", "token", "access_token", "refresh_token", "secret", "api_key"]
    )

    /// Header names that carry API keys by convention, hidden by ``standard`` (lower-cased).
    static let wellKnownKeyHeaders: Set<String> = [
        "x-api-key", "api-key", "apikey", "x-apikey", "x-client-key", "x-app-key", "x-application-key",
        "x-auth-key", "x-access-key", "x-secret-key", "x-functions-key", "ocp-apim-subscription-key",
    ]

    /// Hides nothing. Only for output that stays on your machine, such as a cURL line you paste
    /// into a terminal to reproduce a request:
    ///
    /// ```swift
    /// print(request.cURLDescription(redaction: .disabled))
    /// ```
    public static let disabled: Redaction = {
        var redaction = Redaction(hiding: [], fields: [])
        redaction.isEnabled = false
        return redaction
    }()

    /// A copy that shows the given header or field names.
    ///
    /// ```swift
    /// LoggingMiddleware(level: .bodies, redaction: .standard.revealing("token"))
    /// ```
    public func revealing(_ names: String...) -> Redaction {
        var copy = self
        copy.revealed.formUnion(names.map(Redaction.normalize))
        return copy
    }

    /// A copy that also hides the given headers and fields.
    public func redacting(headers: Set<String> = [], fields: Set<String> = []) -> Redaction {
        var copy = self
        copy.headers.formUnion(headers.map { $0.lowercased() })
        copy.fields.formUnion(fields.map(Redaction.normalize))
        return copy
    }

    /// Whether the value of header `name` is hidden.
    /// - Parameters:
    ///   - name: The header name, in any case.
    ///   - credentialHeaders: Further header names to hide, such as ``RequestContext/credentialHeaders``.
    func hidesHeader(_ name: String, credentialHeaders: Set<String> = []) -> Bool {
        guard isEnabled, !revealed.contains(Redaction.normalize(name)) else { return false }
        let lower = name.lowercased()
        return headers.contains(lower) || credentialHeaders.contains(lower) || matchesField(name)
    }

    /// Whether the value of a JSON field, form field or query item called `name` is hidden.
    func hidesField(_ name: String) -> Bool {
        guard isEnabled, !revealed.contains(Redaction.normalize(name)) else { return false }
        return matchesField(name)
    }

    /// The value to show for header `name`.
    func headerValue(_ value: String, name: String, credentialHeaders: Set<String> = []) -> String {
        hidesHeader(name, credentialHeaders: credentialHeaders) ? Redaction.placeholder : value
    }

    private func matchesField(_ name: String) -> Bool {
        let normalized = Redaction.normalize(name)
        if fields.contains(where: { normalized.hasSuffix($0) }) { return true }
        // Bracketed names (multipart's `user[password]` and `tokens[0]`, Rails-style forms) match
        // when any of their parts does.
        guard name.utf8.contains(UInt8(ascii: "[")) else { return false }
        return name.split(whereSeparator: { $0 == "[" || $0 == "]" }).contains { part in
            let normalized = Redaction.normalize(String(part))
            return fields.contains { normalized.hasSuffix($0) }
        }
    }

    /// Lower-cased, without `_` and `-`: `Access_Token` and `accessToken` become `accesstoken`.
    static func normalize(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { $0 != "_" && $0 != "-" })
    }
}
