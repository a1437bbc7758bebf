/// A ``JWTAuth``'s refresh handler sent a request authenticated by that same `JWTAuth`.
///
/// That request would wait for the refresh that is waiting for it, so it fails at once instead, as
/// `AuthenticationError.custom(underlying: RefreshReentrancyError())`; the refresh then fails with
/// it as the underlying error. The fix is to give the refresh endpoint no authentication — it
/// authenticates with the refresh token, not the access token:
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
    /// Creates the error.
    public init() {}

    /// What happened and how to fix it.
    public var description: String {
        "A JWTAuth refresh handler sent a request that is authenticated by the same JWTAuth, so it would wait "
            + "on the very refresh that is waiting on it. Give the refresh endpoint `static var auth: NoAuth "
            + "{ NoAuth() }`: it authenticates with the refresh token, not the access token."
    }
}

/// The `JWTAuth` instances whose refresh handler or callbacks are running in the current task
/// tree. A task-local, so it reaches the handler's requests without any global state.
enum RefreshScope {
    @TaskLocal static var active: Set<ObjectIdentifier> = []
}
