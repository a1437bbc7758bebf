import Foundation

/// What a request waiting for a refresh is told when it ends.
typealias RefreshOutcome = Result<Void, AuthenticationError>

/// The mutable state of one ``JWTAuth``, changed only inside its lock. Each transition returns
/// what to do next; continuations are resumed and callbacks run after the lock is released.
struct JWTState {
    /// A refresh in flight: requests that arrive or are rejected meanwhile wait for it.
    struct Refresh {
        let id: UInt64
        /// The access token being replaced, to tell stragglers from requests that need a refresh.
        let replacing: String
        var waiters: [UInt64: CheckedContinuation<RefreshOutcome, Never>] = [:]
    }

    /// The last refresh failed: its tokens were dropped, and requests fail fast until new tokens are set.
    struct Failure {
        let rejectedAccessToken: String
        let error: any Error
    }

    var tokens: JWTAuth.TokenPair?
    /// Bumped whenever the tokens change (refresh, `setTokens`, `clearTokens`).
    var generation: UInt64 = 0
    var refresh: Refresh?
    var failure: Failure?
    /// How the most recent refresh ended, for a request that comes to wait for it only after it
    /// ended (the refresh task can finish before the request that started it starts waiting).
    private var ended: (id: UInt64, outcome: RefreshOutcome)?
    private var lastID: UInt64 = 0

    init(tokens: JWTAuth.TokenPair?) { self.tokens = tokens }

    mutating func nextID() -> UInt64 {
        lastID += 1
        return lastID
    }

    /// What `authenticate` does next.
    enum AuthenticateStep {
        case send(accessToken: String)
        case wait(refreshID: UInt64)
        case startRefresh(refreshID: UInt64, refreshToken: String)
        case fail(AuthenticationError)
    }

    mutating func authenticate(now: Date, leeway: TimeInterval, mayRefresh: Bool) -> AuthenticateStep {
        if let refresh { return .wait(refreshID: refresh.id) }
        guard let tokens else { return .fail(.notAuthenticated) }
        guard mayRefresh, tokens.expires(within: leeway, of: now) else {
            return .send(accessToken: tokens.accessToken)
        }
        return startRefresh(tokens)
    }

    /// What `reauthenticate(after:)` does next.
    enum ReauthenticateStep {
        case retry
        case wait(refreshID: UInt64)
        case startRefresh(refreshID: UInt64, refreshToken: String)
        case fail(AuthenticationError)
    }

    mutating func reauthenticate(rejected accessToken: String?) -> ReauthenticateStep {
        if let refresh {
            // Rejected with the token being replaced, or with an older one: the new tokens will do.
            return .wait(refreshID: refresh.id)
        }
        guard let tokens else {
            if let failure, failure.rejectedAccessToken == accessToken {
                return .fail(.refreshFailed(underlying: failure.error))
            }
            return .fail(.notAuthenticated)
        }
        // A straggler sent with tokens that have been replaced since: retry with the current ones.
        guard tokens.accessToken == accessToken else { return .retry }
        guard case .startRefresh(let id, let refreshToken) = startRefresh(tokens) else { return .retry }
        return .startRefresh(refreshID: id, refreshToken: refreshToken)
    }

    private mutating func startRefresh(_ tokens: JWTAuth.TokenPair) -> AuthenticateStep {
        let id = nextID()
        refresh = Refresh(id: id, replacing: tokens.accessToken)
        return .startRefresh(refreshID: id, refreshToken: tokens.refreshToken)
    }

    /// Registers a waiter on refresh `refreshID`; `false` when that refresh is over (or the task is cancelled).
    mutating func addWaiter(
        _ waiterID: UInt64,
        to refreshID: UInt64,
        _ continuation: CheckedContinuation<RefreshOutcome, Never>
    ) -> Bool {
        guard refresh?.id == refreshID else { return false }
        refresh?.waiters[waiterID] = continuation
        return true
    }

    /// The outcome of refresh `refreshID`, which is no longer in flight: its recorded outcome, or
    /// success when it was superseded (the tokens that replaced it are what the caller should use).
    func outcome(ofEnded refreshID: UInt64) -> RefreshOutcome {
        guard let ended, ended.id == refreshID else { return .success(()) }
        return ended.outcome
    }

    mutating func removeWaiter(_ waiterID: UInt64) -> CheckedContinuation<RefreshOutcome, Never>? {
        refresh?.waiters.removeValue(forKey: waiterID)
    }

    /// Installs the refreshed tokens if refresh `refreshID` is still the current one. The refresh
    /// stays in flight (new requests keep waiting) until ``finishRefresh(_:)``.
    mutating func commitRefresh(_ refreshID: UInt64, tokens: JWTAuth.TokenPair) -> Bool {
        guard refresh?.id == refreshID else { return false }
        self.tokens = tokens
        generation += 1
        failure = nil
        return true
    }

    /// Ends refresh `refreshID` and returns its waiters; none when it was superseded.
    mutating func finishRefresh(_ refreshID: UInt64) -> [CheckedContinuation<RefreshOutcome, Never>] {
        guard let refresh, refresh.id == refreshID else { return [] }
        self.refresh = nil
        ended = (refreshID, .success(()))
        return Array(refresh.waiters.values)
    }

    /// Records that refresh `refreshID` was rejected: the tokens are dropped, and the refresh stays
    /// in flight (new requests keep waiting, as they do while ``JWTAuth/onTokensUpdated`` runs)
    /// until ``failRefresh(_:error:)`` ends it, so that ``JWTAuth/onRefreshFailed`` has run before
    /// any request sees the failure. `false` when the refresh was superseded by `setTokens` or
    /// `clearTokens` (its failure is then moot).
    mutating func rejectRefresh(_ refreshID: UInt64, error: any Error) -> Bool {
        guard let refresh, refresh.id == refreshID else { return false }
        tokens = nil
        generation += 1
        failure = Failure(rejectedAccessToken: refresh.replacing, error: error)
        return true
    }

    /// Ends failed refresh `refreshID` and returns its waiters, or `nil` when it was superseded.
    /// A transient failure keeps the tokens, so a later request refreshes again; a rejected one
    /// dropped them in ``rejectRefresh(_:error:)`` first.
    mutating func failRefresh(_ refreshID: UInt64, error: any Error) -> [CheckedContinuation<RefreshOutcome, Never>]? {
        guard let refresh, refresh.id == refreshID else { return nil }
        self.refresh = nil
        ended = (refreshID, .failure(.refreshFailed(underlying: error)))
        return Array(refresh.waiters.values)
    }

    /// Replaces the tokens (or clears them), discarding any refresh in flight; returns its waiters.
    mutating func replaceTokens(with tokens: JWTAuth.TokenPair?) -> [CheckedContinuation<RefreshOutcome, Never>] {
        self.tokens = tokens
        generation += 1
        failure = nil
        let waiters = refresh.map { Array($0.waiters.values) } ?? []
        refresh = nil
        return waiters
    }
}
