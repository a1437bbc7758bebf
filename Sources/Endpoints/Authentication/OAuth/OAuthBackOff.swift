import Foundation

/// When ``OAuth`` may ask the token endpoint again after a renewal failed: the state behind its
/// back-off, changed only inside ``OAuthClient``'s lock and tested alone.
///
/// The policy, as users of Alamofire's `AuthenticationInterceptor` (whose refresh window stops a
/// refresh loop) or of an OkHttp `Authenticator` (which gives up rather than retry forever) expect:
///
/// - A renewal that fails for any reason but `invalid_grant` (an answer that cannot be used, a
///   configuration error, an unavailable server, a transport failure) starts a back-off of 1 s,
///   doubled by each renewal that fails in a row, at most 60 s: 1, 2, 4, 8, 16, 32, 60, 60 s…
/// - Meanwhile no token request is made: each request fails at once with the same error.
/// - The first request after the back-off tries again; one that succeeds ends it, as does anything
///   the user does (``OAuth/setTokens(_:)``, a sign-in, ``OAuth/logOut()``).
/// - `invalid_grant` ends the session instead (requests then fail with `notAuthenticated` until
///   the user signs in again), so it starts no back-off.
///
/// A renewal that began before the user acted does not start a back-off when it fails: ``epoch``
/// tells them apart.
struct OAuthBackOff {
    /// The waits after 1, 2, 3… failures in a row.
    static let schedule = ExponentialBackoff(initial: 1, multiplier: 2, maximum: 60)

    /// Renewals that failed in a row since the last success or user action.
    private(set) var failures = 0
    /// Until when requests fail with ``error`` without a token request.
    private(set) var until: Date?
    /// The error of the last failed renewal, which requests fail with during the back-off.
    private(set) var error: OAuthError?
    /// Bumped by each user action; a renewal carries the epoch it started in.
    private(set) var epoch: UInt64 = 0

    /// What a renewal does.
    enum Step: Equatable {
        /// Ask the token endpoint; report the outcome with this epoch.
        case send(epoch: UInt64)
        /// Fail at once with the last renewal's error.
        case fail(OAuthError)
    }

    /// A renewal is about to start at `now`.
    func renewal(at now: Date) -> Step {
        if let until, let error, now < until { return .fail(error) }
        return .send(epoch: epoch)
    }

    /// The renewal started in `epoch` failed with `error` at `now`.
    mutating func failed(_ error: OAuthError, epoch: UInt64, at now: Date) {
        guard epoch == self.epoch else { return }
        if case .invalidGrant = error {
            clear()
            return
        }
        failures += 1
        until = now.addingTimeInterval(Self.schedule.ceiling(forRetry: failures))
        self.error = error
    }

    /// The renewal started in `epoch` succeeded.
    mutating func succeeded(epoch: UInt64) {
        guard epoch == self.epoch else { return }
        clear()
    }

    /// The user set tokens, signed in or logged out: the next renewal asks at once.
    mutating func userActed() {
        epoch += 1
        clear()
    }

    private mutating func clear() {
        failures = 0
        until = nil
        error = nil
    }
}
