import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A static key in a header, with an optional prefix.
///
/// ```swift
/// struct ApiServer: ServerDefinition {
///     static let auth = HeaderKeyAuth(key: "my-api-key")   // Authorization: Bearer my-api-key
///     ...
/// }
///
/// // A custom API-key header with the bare key:
/// static let auth = HeaderKeyAuth(key: clientKey, header: "X-Client-Key", prefix: nil)
/// ```
///
/// A header name that is not an RFC 9110 token, or a key or prefix containing a control character
/// (which would let a value inject headers), fails the request with
/// ``AuthenticationError/invalidCredentials(reason:)`` before anything is sent.
/// Printing or dumping the method shows the header and the prefix, and `key: <redacted>`.
public struct HeaderKeyAuth: AuthenticationMethod {
    /// The header that carries the key, `Authorization` by default.
    let header: String
    /// Written before the key with one space between, `Bearer` by default; `nil` sends the bare key.
    let prefix: String?
    /// The header value (the prefix and the key), or why it cannot be sent: both fixed at `init`,
    /// and shown as `<redacted>`.
    let key: Secret<Result<String, AuthenticationError>>

    /// Creates the method.
    ///
    /// - Parameters:
    ///   - key: The key to send.
    ///   - header: The header name; `Authorization` by default.
    ///   - prefix: The scheme written before the key (`Bearer` by default); `nil` sends the key alone.
    public init(key: String, header: String = "Authorization", prefix: String? = "Bearer") {
        self.header = header
        self.prefix = prefix
        self.key = Secret(Self.value(key: key, header: header, prefix: prefix))
    }

    private static func value(key: String, header: String, prefix: String?) -> Result<String, AuthenticationError> {
        guard CredentialText.isToken(header) else {
            return .failure(
                .invalidCredentials(reason: "the header name \"\(header)\" is not a valid HTTP field name."))
        }
        guard !CredentialText.containsControl(key) else {
            return .failure(
                .invalidCredentials(reason: "the key for the \(header) header contains a control character."))
        }
        if let prefix, CredentialText.containsControl(prefix) || prefix.contains(" ") {
            return .failure(
                .invalidCredentials(
                    reason: "the prefix for the \(header) header contains a space or control character."))
        }
        return .success(prefix.map { "\($0) \(key)" } ?? key)
    }

    /// Returns `request` with the header set to the prefix and the key, replacing any value it had;
    /// throws ``AuthenticationError/invalidCredentials(reason:)`` when they cannot be sent.
    public func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest {
        var request = request
        request.setValue(try key.value.get(), forHTTPHeaderField: header)
        return request
    }
}
