import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Spellings of an earlier version of ``RequestContext``, from before the pipeline brought
/// credentials up to date itself.
extension RequestContext {
    /// Creates a context; `credentialUpdate` is no longer used.
    @available(
        *, deprecated,
        message: "The pipeline brings credentials up to date before the transport; drop credentialUpdate."
    )
    public init(
        endpointName: String,
        credentialHeaders: Set<String> = [],
        authenticationAttempt: Int = 1,
        credentialUpdate: (@Sendable (URLRequest) -> URLRequest?)?
    ) {
        self.init(
            endpointName: endpointName, credentialHeaders: credentialHeaders,
            authenticationAttempt: authenticationAttempt)
    }

    /// `request` itself: the pipeline now brings credentials up to date after a request waited for
    /// a connection and before any transport sees it, so transports need not (and cannot) reach
    /// back into authentication.
    @available(*, deprecated, message: "Requests reach the transport with current credentials; send them as they are.")
    public func withCurrentCredentials(_ request: URLRequest) -> URLRequest { request }
}
