import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A static cookie, merged with the cookies the request already has.
///
/// ```swift
/// struct LegacyServer: ServerDefinition {
///     static let auth = CookieAuth(name: "session", value: sessionId)
///     ...
/// }
/// // An endpoint that sends `Cookie: theme=dark` goes out with `Cookie: theme=dark; session=…`.
/// ```
///
/// The request carries exactly one `Cookie` header: existing cookies are kept in order, a cookie of
/// the same name is replaced, and this one is appended. The request's `httpShouldHandleCookies` is
/// turned off so that the session's cookie store neither adds its cookies nor overwrites this
/// header (cookies the server sets are then not stored either, on Apple platforms).
///
/// On Linux, URLSession ignores `httpShouldHandleCookies`: when the session's configuration has
/// `httpShouldSetCookies` on (as `URLSession.shared` does) and its cookie store holds cookies for
/// the URL, it replaces the whole `Cookie` header with them and this cookie would silently not
/// arrive. The request then fails with ``AuthenticationError/invalidCredentials(reason:)``
/// before it is sent. Send CookieAuth endpoints with a session that leaves cookies to you:
///
/// ```swift
/// let configuration = URLSessionConfiguration.default
/// configuration.httpShouldSetCookies = false
/// let session = URLSession(configuration: configuration)
/// let profile = try await session.response(with: ProfileEndpoint())
/// ```
///
/// The name must be an RFC 6265 token and the value RFC 6265 cookie-octets (optionally in double
/// quotes): no spaces, commas, semicolons, backslashes, quotes or control characters. Anything else
/// fails the request with ``AuthenticationError/invalidCredentials(reason:)`` before it is sent;
/// percent-encode such values yourself. Printing or dumping the method shows the name and
/// `value: <redacted>`.
public struct CookieAuth: AuthenticationMethod {
    /// The cookie name.
    let name: String
    /// The cookie value, shown as `<redacted>`.
    let value: Secret<String>

    /// Creates the method. A name or value that breaks RFC 6265 is reported when a request is
    /// authenticated.
    public init(name: String, value: String) {
        self.name = name
        self.value = Secret(value)
    }

    /// Throws ``AuthenticationError/invalidCredentials(reason:)`` when the name or value breaks
    /// RFC 6265.
    func checkCookie() throws(AuthenticationError) {
        guard CredentialText.isToken(name) else {
            throw .invalidCredentials(reason: "a cookie name must be an RFC 6265 token.")
        }
        guard Self.isValidValue(value.value) else {
            throw .invalidCredentials(
                reason: "the value of cookie \"\(name)\" contains characters RFC 6265 does not allow; "
                    + "percent-encode it."
            )
        }
    }

    /// Returns `request` with this cookie merged into its single `Cookie` header; throws
    /// ``AuthenticationError/invalidCredentials(reason:)`` when the name or value breaks RFC 6265.
    public func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest {
        try checkCookie()
        var request = request
        let header = CookieHeader.merged(
            request.value(forHTTPHeaderField: "Cookie"), with: [(name, value.value)], replacing: true)
        request.setValue(header, forHTTPHeaderField: "Cookie")
        request.httpShouldHandleCookies = false
        return request
    }

    /// RFC 6265 §4.1.1: `*cookie-octet / ( DQUOTE *cookie-octet DQUOTE )`.
    static func isValidValue(_ value: String) -> Bool {
        var scalars = Substring(value).unicodeScalars[...]
        if scalars.count >= 2, scalars.first == "\"", scalars.last == "\"" {
            scalars = scalars.dropFirst().dropLast()
        }
        return scalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x21, 0x23...0x2B, 0x2D...0x3A, 0x3C...0x5B, 0x5D...0x7E: true
            default: false
            }
        }
    }
}
