/// A ``JWTAuth``'s refresh handler sent a request authenticated by that same `JWTAuth`.
///
/// That request would wait for the refresh that is waiting for it, so it fails at once instead, and
/// every request waiting for the refresh fails with
/// `.authenticationError(.refreshFailed(underlying: RefreshReentrancyError()))`. The fix is to give
/// the refresh endpoint no authentication — it authenticates with the refresh token, not the
/// access token:
///
/// ```swift
/// struct RefreshEndpoint: Endpoint {
///     typealias Server = ApiServer
///     static var auth: NoAuth { NoAuth() }
///     ...
/// }
/// ```
///
/// Detection follows the refresh task and its child tasks (a task-local value); a request sent
/// from a `Task.detached` inside the refresh handler cannot be recognised and would wait.
public struct RefreshReentrancyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Creates the error: the pipeline does, when it finds the reentrant request.
    init() {}

    /// What happened and how to fix it.
    public var description: String {
        "A JWTAuth refresh handler sent a request that is authenticated by the same JWTAuth, so it would wait "
            + "on the very refresh that is waiting on it. Give the refresh endpoint `static var auth: NoAuth "
            + "{ NoAuth() }`: it authenticates with the refresh token, not the access token."
    }
}

extension RefreshReentrancyError {
    /// The reentrancy error inside `error`, however deeply the refresh handler's request wrapped
    /// it (its endpoint's `TaskError`, `AuthenticationError.custom`, `.refreshFailed`).
    static func found(in error: any Error) -> RefreshReentrancyError? {
        switch error {
        case let error as RefreshReentrancyError:
            return error
        case let error as AuthenticationError:
            switch error {
            case .custom(let underlying), .refreshFailed(let underlying): return found(in: underlying)
            default: return nil
            }
        case let error as any AuthenticationErrorCarrying:
            return error.authenticationFailure.flatMap { found(in: $0) }
        default:
            return nil
        }
    }
}

/// An error that may wrap an ``AuthenticationError``, whatever its generic parameters.
protocol AuthenticationErrorCarrying: Error {
    var authenticationFailure: AuthenticationError? { get }
}

extension EndpointTaskError: AuthenticationErrorCarrying {
    var authenticationFailure: AuthenticationError? {
        if case .authenticationError(let error) = self { return error }
        return nil
    }
}

/// The `JWTAuth` instances whose refresh handler or callbacks are running in the current task
/// tree. A task-local, so it reaches the handler's requests without any global state.
enum RefreshScope {
    @TaskLocal static var active: Set<ObjectIdentifier> = []
}
