import Foundation

extension JWTAuth {
    /// Fails when called from this instance's own refresh handler or callbacks, which would wait
    /// on themselves.
    func checkNotReentrant() throws(AuthenticationError) {
        if RefreshScope.active.contains(ObjectIdentifier(self)) {
            throw .custom(underlying: RefreshReentrancyError())
        }
    }

    /// Runs the refresh handler for refresh `refreshID` in a task of its own.
    ///
    /// `Task {}` rather than `Task.detached`: the refresh must outlive the request that started it
    /// (cancelling that request must not cancel the refresh the others wait for), which any
    /// unstructured task gives, and it must keep the starting task's task-local values — mocks and
    /// transports installed with `PipelineOverrides`, and ``RefreshScope`` — which only `Task {}` copies.
    ///
    /// High priority: every request waiting on the refresh needs it first, and in a burst of a
    /// thousand requests a default-priority refresh waited behind the requests' own work.
    func startRefresh(_ refreshID: UInt64, refreshToken: String) {
        Task(priority: .high) { await self.refresh(refreshID, refreshToken: refreshToken) }
    }

    private func refresh(_ refreshID: UInt64, refreshToken: String) async {
        let scope = RefreshScope.active.union([ObjectIdentifier(self)])
        do {
            let tokens = try await RefreshScope.$active.withValue(scope) { try await refreshHandler(refreshToken) }
            if let reason = Self.unusableReason(tokens.accessToken) {
                throw AuthenticationError.invalidCredentials(
                    reason: "the refresh handler returned tokens where \(reason)")
            }
            guard state.withLock({ $0.commitRefresh(refreshID, tokens: tokens) }) else {
                return  // setTokens or clearTokens came first: these tokens are stale.
            }
            if let onTokensUpdated {
                await RefreshScope.$active.withValue(scope) { await onTokensUpdated(tokens) }
            }
            resume(state.withLock { $0.finishRefresh(refreshID) }, with: .success(()))
        } catch {
            // A reentrant refresh request is reported as itself, not wrapped in that request's errors.
            let error: any Error = RefreshReentrancyError.found(in: error) ?? error
            // A transient failure keeps the user signed in: nobody is told to log out. A rejection
            // is told before any request fails, as new tokens are told before they are used, so a
            // caller that sees the failure finds the app already signed out: the refresh stays in
            // flight, requests coming meanwhile waiting for it, until the callback has run.
            if Self.isRefreshRejection(error) {
                guard state.withLock({ $0.rejectRefresh(refreshID, error: error) }) else { return }
                if let onRefreshFailed {
                    await RefreshScope.$active.withValue(scope) { await onRefreshFailed(error) }
                }
            }
            guard let waiters = state.withLock({ $0.failRefresh(refreshID, error: error) }) else { return }
            resume(waiters, with: .failure(.refreshFailed(underlying: error)))
        }
    }

    /// Waits until refresh `refreshID` ends. Returns its outcome at once when it already has; a cancelled
    /// caller stops waiting at once with `.custom(underlying: CancellationError())`, while the
    /// refresh goes on for the others.
    func waitForRefresh(_ refreshID: UInt64) async -> RefreshOutcome {
        let waiterID = state.withLock { $0.nextID() }
        let cancelled = RefreshOutcome.failure(.custom(underlying: CancellationError()))
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<RefreshOutcome, Never>) in
                let outcome = state.withLock { state -> RefreshOutcome? in
                    if Task.isCancelled { return cancelled }
                    if state.addWaiter(waiterID, to: refreshID, continuation) { return nil }
                    return state.outcome(ofEnded: refreshID)
                }
                if let outcome { continuation.resume(returning: outcome) }
            }
        } onCancel: {
            state.withLock { $0.removeWaiter(waiterID) }?.resume(returning: cancelled)
        }
    }

    func resume(_ waiters: [CheckedContinuation<RefreshOutcome, Never>], with outcome: RefreshOutcome) {
        for waiter in waiters { waiter.resume(returning: outcome) }
    }
}
