import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Replacements for parts of the pipeline, scoped to a task tree: the seam test support uses.
///
/// EndpointsMocking installs its typed mocks and fake transports here with `withMock` and
/// friends; you rarely need this type directly. Overrides are task-local values, so they apply to
/// the task that installs them and its child tasks, and concurrent tests never see each other's.
///
/// ```swift
/// try await PipelineOverrides.$current.withValue(PipelineOverrides(transport: myTransport)) {
///     try await URLSession.shared.response(with: PingEndpoint())   // goes to myTransport
/// }
/// ```
package struct PipelineOverrides: Sendable {
    // A task-local, not global state: each task tree sees only what it installed.
    /// The overrides of the current task (none by default).
    @TaskLocal package static var current = PipelineOverrides()

    /// Answers endpoints before anything is built or authenticated; `nil` answers none.
    package var mocks: (any EndpointMockResolver)?
    /// Sends requests instead of the session; `nil` uses the session.
    package var transport: (any HTTPTransport)?

    /// Creates overrides.
    package init(mocks: (any EndpointMockResolver)? = nil, transport: (any HTTPTransport)? = nil) {
        self.mocks = mocks
        self.transport = transport
    }

    var isEmpty: Bool { mocks == nil && transport == nil }
}

/// Answers requests for endpoints with typed values instead of sending them.
package protocol EndpointMockResolver: Sendable {
    /// The mocked outcome for `endpoint`, or `nil` to send it for real.
    func resolve<T: Endpoint>(_ endpoint: T) async -> Result<T.Response, T.TaskError>?
}
