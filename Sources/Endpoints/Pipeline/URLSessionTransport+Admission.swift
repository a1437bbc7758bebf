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

    /// Waits for one of the host's slots (a credential refresh takes none), then gives the request
    /// to send, with its credentials brought up to date when it waited and they changed
    /// meanwhile, and the admission to release once the response head is in (or the send failed),
    /// saying whether the host answered.
    ///
    /// Inlined, so that a request admitted at once makes no async call: only one that queues awaits.
    @inline(__always)
    func admit(_ request: URLRequest, context: RequestContext) async throws -> (URLRequest, HostLimiter.Admission) {
        let admission = try await HostLimiter.admit(
            request, limit: hostLimit, bypass: context.isCredentialRefresh, recorder: context.recorder)
        guard admission.waited else { return (request, admission) }
        // A slot freed as the task was cancelled is handed on at once: a cancelled request is never sent.
        if Task.isCancelled {
            admission.release(answered: false)
            throw CancellationError()
        }
        guard let updated = context.currentCredentials?(request) else { return (request, admission) }
        do {
            try HeaderValidation.validate(updated)
        } catch {
            admission.release(answered: false)
            throw error
        }
        return (updated, admission)
    }
}
