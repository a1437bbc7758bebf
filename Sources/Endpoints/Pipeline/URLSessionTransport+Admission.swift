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
}
