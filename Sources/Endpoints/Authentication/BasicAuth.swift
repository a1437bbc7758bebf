import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HTTP Basic credentials (RFC 7617), encoded as UTF-8.
///
/// ```swift
/// struct IntranetServer: ServerDefinition {
///     static let auth = BasicAuth(username: "Aladdin", password: "open sesame")
///     // Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==
///     ...
/// }
/// ```
///
/// RFC 7617 forbids a `:` in the user name (it separates the password) and control characters in
/// either part. Such credentials are refused: ``authenticate(request:)`` throws
/// ``AuthenticationError/invalidCredentials(reason:)`` and the request fails before anything is
/// sent. The password cannot be read back, and printing or dumping the method shows
/// `BasicAuth(username: "Aladdin", password: <redacted>)`.
public struct BasicAuth: AuthenticationMethod {
    /// The user name, for the description.
    let username: String
    /// The `Authorization` value made from the password, or why the credentials cannot be sent:
    /// both fixed at `init`, and shown as `<redacted>`. The password itself is not kept.
    let password: Secret<Result<String, AuthenticationError>>

    /// Creates the method. Invalid credentials are reported when a request is authenticated.
    public init(username: String, password: String) {
        self.username = username
        self.password = Secret(Self.field(username: username, password: password))
    }

    private static func field(username: String, password: String) -> Result<String, AuthenticationError> {
        if username.contains(":") {
            return .failure(.invalidCredentials(reason: "a Basic user name cannot contain ':' (RFC 7617)."))
        }
        if CredentialText.containsControl(username) {
            return .failure(
                .invalidCredentials(reason: "a Basic user name cannot contain control characters (RFC 7617)."))
        }
        if CredentialText.containsControl(password) {
            return .failure(
                .invalidCredentials(reason: "a Basic password cannot contain control characters (RFC 7617)."))
        }
        return .success("Basic " + Data("\(username):\(password)".utf8).base64EncodedString())
    }

    /// Returns `request` with the `Authorization` header set to `Basic` and the Base64 of the
    /// UTF-8 `username:password`; throws ``AuthenticationError/invalidCredentials(reason:)`` when
    /// the user name contains `:` or a control character, or the password a control character.
    ///
    /// ```swift
    /// let request = try await BasicAuth(username: "Aladdin", password: "open sesame")
    ///     .authenticate(request: URLRequest(url: URL(string: "https://intranet.example.com")!))
    /// // Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==
    /// ```
    public func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest {
        var request = request
        request.setValue(try password.value.get(), forHTTPHeaderField: "Authorization")
        return request
    }
}
