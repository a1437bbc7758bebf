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
public protocol AuthenticationMethod: Sendable {
    /// Returns `request` with credentials applied.
    func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest

    /// Whether `response` to the authenticated `request` means the credentials must be renewed.
    /// The default is `false`.
    func shouldReauthenticate(for request: URLRequest, response: HTTPURLResponse) -> Bool

    /// Renews the credentials after `request` was rejected. Implementations compare the rejected
    /// request's credentials with the current ones so that a straggler does not renew twice.
    func reauthenticate(after request: URLRequest) async throws(AuthenticationError)

    /// The names of the headers this method sets. They are removed when a redirect leaves the
    /// request's origin, and redacted by logging.
    var credentialHeaderNames: [String] { get }

    /// `request` with the current credentials, when they changed since it was authenticated and
    /// can be applied without waiting; `nil` otherwise (the default).
    ///
    /// The transport calls it just before a request goes on the wire, after any time it spent
    /// queued or in middleware. A request authenticated before a token refresh then carries the new
    /// token instead of being rejected once more. It must not wait for anything.
    func updatedCredentials(for request: URLRequest) -> URLRequest?

    /// Endpoints 0.4's refresh trigger (the `authentication` branch), still honoured: the default
    /// `shouldReauthenticate(for request:response:)` asks it for every non-2xx response,
    /// passing a ``RejectedResponse`` as the error. Prefer the request-based requirement in new code.
    func shouldReauthenticate(for error: any Error, response: HTTPURLResponse?) -> Bool

    /// Endpoints 0.4's refresh (the `authentication` branch), still honoured: the default
    /// `reauthenticate(after:)` calls it, and reports an error it throws as
    /// ``AuthenticationError/refreshFailed(underlying:)`` (an ``AuthenticationError`` as it is).
    func reauthenticate() async throws
}

extension AuthenticationMethod {
    /// What the 0.4 requirement `shouldReauthenticate(for error:response:)` says for a
    /// non-2xx response (whose default is `false`); never for a 2xx one.
    public func shouldReauthenticate(for request: URLRequest, response: HTTPURLResponse) -> Bool {
        guard !(200..<300).contains(response.statusCode) else { return false }
        return shouldReauthenticate(for: RejectedResponse(httpResponse: response), response: response)
    }

    /// Calls the 0.4 requirement `reauthenticate()`; does nothing when the method implements neither.
    public func reauthenticate(after request: URLRequest) async throws(AuthenticationError) {
        var forwarding = LegacyReauthentication.forwarding
        forwarding.insert(ObjectIdentifier(Self.self))
        do {
            try await LegacyReauthentication.$forwarding.withValue(forwarding) { try await reauthenticate() }
        } catch let error as AuthenticationError {
            throw error
        } catch {
            throw .refreshFailed(underlying: error)
        }
    }

    /// Never: the default of the 0.4 requirement.
    public func shouldReauthenticate(for error: any Error, response: HTTPURLResponse?) -> Bool { false }

    /// Renews the credentials now, as 0.4's `reauthenticate()` did: calls
    /// ``reauthenticate(after:)`` with a request carrying the current credentials, so a ``JWTAuth``
    /// refreshes (joining a refresh in flight). Does nothing for a method that implements neither.
    public func reauthenticate() async throws {
        // Reached from the default `reauthenticate(after:)` of this very type: neither is implemented.
        guard !LegacyReauthentication.forwarding.contains(ObjectIdentifier(Self.self)) else { return }
        let current = try await authenticate(request: URLRequest(url: LegacyReauthentication.placeholder))
        try await reauthenticate(after: current)
    }

    /// `Authorization`.
    public var credentialHeaderNames: [String] { ["Authorization"] }

    /// Never: static credentials do not change.
    public func updatedCredentials(for request: URLRequest) -> URLRequest? { nil }
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

    /// None.
    public var credentialHeaderNames: [String] { [] }
}

/// Breaks the cycle between the two defaults: the types whose default `reauthenticate(after:)` is
/// calling their `reauthenticate()` in this task. A task-local, so concurrent refreshes never see
/// each other's.
enum LegacyReauthentication {
    @TaskLocal static var forwarding: Set<ObjectIdentifier> = []
    static let placeholder = URL(string: "endpoints-reauthenticate:current")!
}

/// The error a 0.4-style `shouldReauthenticate(for error:response:)` of an ``AuthenticationMethod``
/// receives: the server answered with a non-2xx status. (0.4 passed the endpoint's task error,
/// which an authentication method cannot name; check `response?.statusCode` instead.)
public struct RejectedResponse: Error, Sendable, CustomStringConvertible {
    /// The response that was not 2xx.
    public let httpResponse: HTTPURLResponse

    /// Wraps `httpResponse`.
    public init(httpResponse: HTTPURLResponse) { self.httpResponse = httpResponse }

    /// `The server answered with status 401.`
    public var description: String { "The server answered with status \(httpResponse.statusCode)." }
}
