import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A step every request of a server or endpoint goes through, between authentication and the
/// transport: logging, retries, fault injection, or your own.
///
/// A middleware receives the authenticated request and `next`, which sends it on through the rest
/// of the chain. It may change the request, call `next` more than once (retries), change the
/// response, or throw:
///
/// ```swift
/// struct UserAgent: Middleware {
///     func intercept(
///         _ request: URLRequest,
///         context: RequestContext,
///         next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
///     ) async throws -> (Data, HTTPURLResponse) {
///         var request = request
///         request.setValue("MyApp/1.0", forHTTPHeaderField: "User-Agent")
///         return try await next(request)
///     }
/// }
/// ```
///
/// Order: the server's ``ServerDefinition/middleware`` (or the endpoint's
/// ``Endpoint/middleware``), then middleware given per request; the first in the list is the
/// outermost. When authentication renews credentials and resends, the whole chain runs again.
///
/// Built in: ``LoggingMiddleware`` (with ``Redaction``), ``RetryMiddleware`` and
/// ``ChaosMiddleware``; see <doc:MiddlewareGuide> for how they fit together and a custom example.
public protocol Middleware: Sendable {
    /// Handles `request`, usually by calling `next`.
    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse)
}

/// What middleware and transports know about the request they handle.
public struct RequestContext: Sendable {
    /// The endpoint type's name, e.g. `ProfileEndpoint`.
    public let endpointName: String
    /// The header names that carry credentials for this request (lower-cased): the standard ones and
    /// every header the endpoint's authentication added or changed on it, whatever its name.
    /// Logging redacts them; redirects to another origin drop them.
    public let credentialHeaders: Set<String>
    /// 1 for the first send, 2 when authentication renewed credentials and resent.
    public let authenticationAttempt: Int
    /// Whether the request is sent by a token refresh (a ``JWTAuth`` refresh handler, say): it
    /// skips the per-host queue, since the requests ahead of it may all be waiting for it.
    public let isCredentialRefresh: Bool
    /// The request with the current credentials when they changed since it was authenticated; a
    /// transport that queued it calls this before sending (the pipeline's authentication method's
    /// ``AuthenticationMethod/updatedCredentials(for:)``).
    let currentCredentials: (@Sendable (URLRequest) -> URLRequest?)?
    /// An upload's file and a download's destination (see `RequestContext+Transfer.swift`).
    let transfer: Transfer
    /// Whether the call accepts a 304 (``HTTPCache`` then hands it a 304 it revalidated with,
    /// rather than the stored body).
    var acceptsNotModified = false
    /// Whether a transport follows the redirects this request gets: `true` unless the endpoint's
    /// definition (or the ad-hoc request) says `followsRedirects: false`, in which case the 3xx,
    /// with its `Location`, is the answer. A transport of your own should honour it.
    public internal(set) var followsRedirects = true
    /// Measures the request and reports its events (see `Pipeline/Metrics`); `nil` outside the pipeline.
    let recorder: RequestRecorder?

    /// Creates a context.
    /// - Parameters:
    ///   - endpointName: The endpoint type's name.
    ///   - credentialHeaders: Headers that carry credentials, besides the standard ones.
    ///   - authenticationAttempt: 1, or 2 for the resend after credentials were renewed.
    public init(endpointName: String, credentialHeaders: Set<String> = [], authenticationAttempt: Int = 1) {
        self.init(
            endpointName: endpointName, credentialHeaders: RequestContext.credentialHeaders(adding: credentialHeaders),
            authenticationAttempt: authenticationAttempt, isCredentialRefresh: false, currentCredentials: nil,
            transfer: .none)
    }

    /// The pipeline's context: also whether a refresh sends it, and how to bring its credentials
    /// up to date after it waited. `credentialHeaders` is the whole set, lower-cased, the standard
    /// ones included (``credentialHeaders(adding:)``, ``credentialHeaders(setBy:on:)``).
    init(
        endpointName: String,
        credentialHeaders: Set<String>,
        authenticationAttempt: Int,
        isCredentialRefresh: Bool,
        currentCredentials: (@Sendable (URLRequest) -> URLRequest?)?,
        transfer: Transfer,
        recorder: RequestRecorder? = nil
    ) {
        self.endpointName = endpointName
        self.credentialHeaders = credentialHeaders
        self.authenticationAttempt = authenticationAttempt
        self.isCredentialRefresh = isCredentialRefresh
        self.currentCredentials = currentCredentials
        self.transfer = transfer
        self.recorder = recorder
    }

    /// The standard credential headers with `names` (any case) added: the standard set itself,
    /// without a new set, when `names` adds none (every request of `NoAuth`, Basic, cookie and
    /// bearer methods, whose `Authorization` and `Cookie` are standard).
    static func credentialHeaders(adding names: some Sequence<String>) -> Set<String> {
        var headers = standardCredentialHeaders
        for name in names { insert(name, into: &headers) }
        return headers
    }

    /// The standard credential headers with those `authenticated` carries with a value `original`
    /// does not have under the same name: the headers an authentication method added or changed,
    /// whatever their names, so that a custom method's `X-Signature` is treated as a credential
    /// without declaring it. A header set again under another case counts as changed, so none is
    /// missed. The standard set itself, without a new set, when the method set only standard ones.
    static func credentialHeaders(setBy authenticated: URLRequest, on original: URLRequest) -> Set<String> {
        var headers = standardCredentialHeaders
        guard let fields = authenticated.allHTTPHeaderFields else { return headers }
        let before = original.allHTTPHeaderFields ?? [:]
        for (name, value) in fields where before[name] != value { insert(name, into: &headers) }
        return headers
    }

    /// Adds `name` lower-cased to `headers`, copying the set only when it is not there yet.
    private static func insert(_ name: String, into headers: inout Set<String>) {
        guard !headers.contains(name) else { return }
        let lowercased = name.lowercased()
        if !headers.contains(lowercased) { headers.insert(lowercased) }
    }

    /// `authorization`, `proxy-authorization`, `cookie`.
    static let standardCredentialHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie"]
}
