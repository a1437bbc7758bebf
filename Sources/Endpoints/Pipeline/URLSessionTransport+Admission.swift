import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSessionTransport {
    /// This transport's per-host limit: the session's connection pool, shared by every transport
    /// made over the same session (``URLSession/shared`` makes a transport per request).
    var hostLimit: HostLimiter.Limit? {
        maximumRequestsPerHost.map { HostLimiter.Limit(pool: session, maximumPerHost: $0) }
    }

    /// Waits for one of the host's slots, then gives the request to send (its credentials brought
    /// up to date when it waited) and the admission to release: ``HostLimiter/admit(_:limit:context:)``
    /// under this transport's limit.
    @inline(__always)
    func admit(_ request: URLRequest, context: RequestContext) async throws -> (URLRequest, HostLimiter.Admission) {
        try await HostLimiter.admit(request, limit: hostLimit, context: context)
    }
}
