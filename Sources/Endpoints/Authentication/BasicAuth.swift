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
/// either part. Such credentials are refused: the request fails with
/// ``AuthenticationError/invalidCredentials(reason:)`` before anything is sent. Check them up front
/// with ``validate()``. The description never shows the password.
public struct BasicAuth: AuthenticationMethod, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The user name.
    public let username: String
    /// The password.
    public let password: String
    /// The `Authorization` value, or why the credentials cannot be sent: both fixed at `init`.
    private let field: Result<String, AuthenticationError>

    /// Creates the method. Invalid credentials are reported when a request is authenticated, or by
    /// ``validate()``.
    public init(username: String, password: String) {
        self.username = username
        self.password = password
        self.field = Self.field(username: username, password: password)
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

    /// Throws ``AuthenticationError/invalidCredentials(reason:)`` when the user name contains `:` or
    /// a control character, or the password contains a control character.
    ///
    /// ```swift
    /// let auth = BasicAuth(username: name, password: password)
    /// try auth.validate()   // before storing what the user typed
    /// ```
    public func validate() throws(AuthenticationError) {
        _ = try field.get()
    }

    /// The `Authorization` header value: `Basic` and the Base64 of the UTF-8 `username:password`.
    public func headerValue() throws(AuthenticationError) -> String {
        try field.get()
    }

    /// Returns `request` with the `Authorization` header set.
    public func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest {
        var request = request
        request.setValue(try headerValue(), forHTTPHeaderField: "Authorization")
        return request
    }

    /// `Authorization`.
    public var credentialHeaderNames: [String] { ["Authorization"] }

    /// The user name; the password is redacted.
    public var description: String { "BasicAuth(username: \(username), password: <redacted>)" }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// A mirror without the password, so `dump` does not print it.
    public var customMirror: Mirror {
        Mirror(self, children: ["username": username, "password": "<redacted>"])
    }
}
