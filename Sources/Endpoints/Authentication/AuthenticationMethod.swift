import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A way of putting credentials on a request, and of renewing them when the server rejects them.
///
/// Only ``authenticate(request:)`` is required:
///
/// ```swift
/// struct SignatureAuth: AuthenticationMethod {
///     let secret: String
///
///     func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest {
///         var request = request
///         request.setValue(sign(request, with: secret), forHTTPHeaderField: "X-Signature")
///         return request
///     }
/// }
/// ```
///
/// Refreshable credentials also implement ``shouldReauthenticate(for:response:)-(URLRequest,_)`` and
/// ``reauthenticate(after:)``: when the first returns `true` for a response, the pipeline calls the
/// second, then authenticates and sends the request once more. A request is retried at most once.
///
/// The pipeline finds the headers a method sets by itself: every header ``authenticate(request:)``
/// added or changed carries credentials, like `Authorization`, `Proxy-Authorization` and
/// `Cookie` always do. They are removed when a redirect leaves the request's origin and redacted
/// by logging (``RequestContext/credentialHeaders``), so `X-Signature` above needs no declaring.
///
/// The two 0.4 requirements stay declared, deprecated, because a 0.4 type's own implementations
/// are only called through them; nothing else in the pipeline depends on them.
public protocol AuthenticationMethod: Sendable {
    /// Returns `request` with credentials applied.
    func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest

    /// Whether `response` to the authenticated `request` means the credentials must be renewed.
    /// The default is `false`.
    func shouldReauthenticate(for request: URLRequest, response: HTTPURLResponse) -> Bool

    /// Renews the credentials after `request` was rejected. Implementations compare the rejected
    /// request's credentials with the current ones so that a straggler does not renew twice.
    func reauthenticate(after request: URLRequest) async throws(AuthenticationError)

    /// Endpoints 0.4's refresh trigger. The default `shouldReauthenticate(for request:response:)`
    /// still asks it about every non-2xx response; see `Compatibility/AuthenticationMethod+04.swift`.
    @available(
        *,
        deprecated,
        message:
            "Implement shouldReauthenticate(for request: URLRequest, response: HTTPURLResponse), which is asked about each non-2xx response with the rejected request."
    )
    func shouldReauthenticate(for error: any Error, response: HTTPURLResponse?) -> Bool

    /// Endpoints 0.4's refresh. The default `reauthenticate(after:)` still calls it; see
    /// `Compatibility/AuthenticationMethod+04.swift`.
    @available(
        *,
        deprecated,
        message:
            "Implement reauthenticate(after:), which receives the rejected request and throws AuthenticationError (wrap other errors in .refreshFailed(underlying:))."
    )
    func reauthenticate() async throws
}

extension AuthenticationMethod {
    /// `false` for a 2xx response; otherwise what the method's Endpoints 0.4 trigger
    /// `shouldReauthenticate(for error:response:)` says (whose default is `false`).
    public func shouldReauthenticate(for request: URLRequest, response: HTTPURLResponse) -> Bool {
        guard !(200..<300).contains(response.statusCode) else { return false }
        return Compatibility04.authentication.shouldReauthenticate(self, response: response)
    }

    /// Calls the method's Endpoints 0.4 `reauthenticate()`; does nothing when the method implements
    /// neither.
    public func reauthenticate(after request: URLRequest) async throws(AuthenticationError) {
        try await Compatibility04.authentication.reauthenticate(self)
    }

    /// `request` with the current credentials, when they changed since it was authenticated and
    /// can be applied without waiting; `nil` otherwise, and always for a method that is not
    /// ``CredentialUpdating`` (static credentials do not change).
    ///
    /// The transport calls it just before a request goes on the wire, after any time it spent
    /// queued or in middleware.
    func updatedCredentials(for request: URLRequest) -> URLRequest? {
        // The requirement of `CredentialUpdating`, not this method: the existential has no other.
        (self as? any CredentialUpdating)?.updatedCredentials(for: request)
    }
}

/// A method whose credentials can change while requests wait, such as ``JWTAuth``: a request
/// authenticated before a token refresh then carries the new token instead of being rejected once
/// more (a custom method without it gets there too, with one more round trip: the rejected request
/// finds the credentials already renewed in ``AuthenticationMethod/reauthenticate(after:)`` and is
/// resent).
///
/// Internal: only the built-in refreshing methods implement it, so it is not part of the
/// protocol a user implements.
protocol CredentialUpdating {
    /// `request` with the current credentials when they changed since it was authenticated and
    /// can be applied without waiting; `nil` otherwise. It must not wait for anything.
    func updatedCredentials(for request: URLRequest) -> URLRequest?
}

/// Sends requests unchanged: the method of servers and endpoints that declare no authentication.
///
/// ```swift
/// struct LoginEndpoint: Endpoint {
///     typealias Server = ApiServer
///     static var auth: NoAuth { NoAuth() }   // opt out of the server's authentication
///     ...
/// }
/// ```
public struct NoAuth: AuthenticationMethod, Hashable {
    /// Creates the method.
    public init() {}

    /// Returns `request` unchanged.
    public func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest { request }
}
