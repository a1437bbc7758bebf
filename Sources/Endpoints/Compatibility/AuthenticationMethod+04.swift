import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Endpoints 0.4's refresh requirements of `AuthenticationMethod` (the `authentication` branch):
// `shouldReauthenticate(for error:response:)` and `reauthenticate()`. They stay requirements, so a
// 0.4 method's own implementations are still called; they are deprecated, with their defaults here.

extension AuthenticationMethod {
    /// Never: the default of Endpoints 0.4's refresh trigger.
    @available(
        *,
        deprecated,
        message:
            "Implement shouldReauthenticate(for request: URLRequest, response: HTTPURLResponse), which is asked about each non-2xx response with the rejected request."
    )
    public func shouldReauthenticate(for error: any Error, response: HTTPURLResponse?) -> Bool { false }

    /// Renews the credentials now, as 0.4's `reauthenticate()` did: calls
    /// ``reauthenticate(after:)`` with a request carrying the current credentials, so a ``JWTAuth``
    /// refreshes. Does nothing for a method that implements neither.
    @available(
        *,
        deprecated,
        message:
            "Call reauthenticate(after:) with the rejected request (or one authenticated with the current credentials)."
    )
    public func reauthenticate() async throws {
        // Reached from the default `reauthenticate(after:)` of this very type: neither is implemented.
        guard !LegacyReauthentication.forwarding.contains(ObjectIdentifier(Self.self)) else { return }
        let current = try await authenticate(request: URLRequest(url: LegacyReauthentication.placeholder))
        try await reauthenticate(after: current)
    }
}

/// The error Endpoints 0.4's `shouldReauthenticate(for error:response:)` of an
/// ``AuthenticationMethod`` receives: the server answered with a non-2xx status. (0.4 passed the
/// endpoint's task error, which an authentication method cannot name; check `response?.statusCode`
/// instead.)
@available(
    *,
    deprecated,
    message:
        "Implement shouldReauthenticate(for request: URLRequest, response: HTTPURLResponse), which receives the response itself."
)
public struct RejectedResponse: Error, Sendable, CustomStringConvertible {
    /// The response that was not 2xx.
    public let httpResponse: HTTPURLResponse

    /// Wraps `httpResponse`.
    public init(httpResponse: HTTPURLResponse) { self.httpResponse = httpResponse }

    /// `The server answered with status 401.`
    public var description: String { "The server answered with status \(httpResponse.statusCode)." }
}

/// How the defaults of the current refresh requirements reach the 0.4 ones.
///
/// The defaults in `AuthenticationMethod.swift` call through this protocol; its only conformer's
/// witnesses are deprecated like the requirements they call, so the core refers to no deprecated
/// declaration. Without this folder those defaults would answer `false` and do nothing.
protocol AuthenticationMethod04Forwarding: Sendable {
    /// What `method`'s 0.4 trigger says about the non-2xx `response`.
    func shouldReauthenticate<Method: AuthenticationMethod>(_ method: Method, response: HTTPURLResponse) -> Bool

    /// Calls `method`'s 0.4 `reauthenticate()`, reporting what it throws as an ``AuthenticationError``.
    func reauthenticate<Method: AuthenticationMethod>(_ method: Method) async throws(AuthenticationError)
}

/// The forwarding to Endpoints 0.4's requirements.
struct Authentication04: AuthenticationMethod04Forwarding {
    @available(*, deprecated, message: "Forwards to Endpoints 0.4's refresh trigger.")
    func shouldReauthenticate<Method: AuthenticationMethod>(_ method: Method, response: HTTPURLResponse) -> Bool {
        method.shouldReauthenticate(for: RejectedResponse(httpResponse: response), response: response)
    }

    @available(*, deprecated, message: "Forwards to Endpoints 0.4's refresh.")
    func reauthenticate<Method: AuthenticationMethod>(_ method: Method) async throws(AuthenticationError) {
        var forwarding = LegacyReauthentication.forwarding
        forwarding.insert(ObjectIdentifier(Method.self))
        do {
            try await LegacyReauthentication.$forwarding.withValue(forwarding) { try await method.reauthenticate() }
        } catch let error as AuthenticationError {
            throw error
        } catch {
            throw .refreshFailed(underlying: error)
        }
    }
}

/// Where the core reaches the 0.4 spellings it must still honour.
enum Compatibility04 {
    /// The defaults of ``AuthenticationMethod``'s refresh requirements call the 0.4 ones through it.
    static let authentication: any AuthenticationMethod04Forwarding = Authentication04()
}

/// Breaks the cycle between the two defaults: the types whose default `reauthenticate(after:)` is
/// calling their `reauthenticate()` in this task. A task-local, so concurrent refreshes never see
/// each other's.
enum LegacyReauthentication {
    @TaskLocal static var forwarding: Set<ObjectIdentifier> = []
    static let placeholder = URL(string: "endpoints-reauthenticate:current")!
}
