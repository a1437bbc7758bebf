/// The resolver a `withMock` scope installs: its registry, then the registries of the scopes
/// around it, innermost first.
///
/// Looking up innermost first is what makes nested scopes merge and an inner mock shadow an
/// outer one. Every registry in the chain records the call, so an outer scope also sees what
/// nested scopes sent.
struct MockScope: EndpointMockResolver {
    /// Innermost first.
    let registries: [MockRegistry]
    /// A resolver installed around the scopes that is not a `MockScope` (someone else's).
    let outer: (any EndpointMockResolver)?

    /// A scope for `registry` inside whatever is installed now.
    init(_ registry: MockRegistry, inside current: (any EndpointMockResolver)?) {
        if let scope = current as? MockScope {
            registries = [registry] + scope.registries
            outer = scope.outer
        } else {
            registries = [registry]
            outer = current
        }
    }

    func resolve<T: Endpoint>(_ endpoint: T) async -> Result<T.Response, T.TaskError>? {
        let action = registries.lazy.compactMap { $0.action(for: T.self) }.first
        let call = RecordedCall(endpoint: endpoint, wasMocked: action != nil)
        for registry in registries { registry.record(call) }

        if let action, let outcome = await action.run(endpoint) {
            return outcome
        }
        if let outer, let outcome = await outer.resolve(endpoint) {
            return outcome
        }
        if registries.contains(where: \.isStrict) {
            return .failure(.middlewareError(UnmockedEndpointError(endpointName: String(describing: T.self))))
        }
        return nil
    }
}

extension MockScope: AdHocRequestMockResolver {
    func resolve<Response, ErrorResponse>(
        _ request: AdHocRequest<Response, ErrorResponse>
    ) async -> Result<Response, EndpointTaskError<ErrorResponse>>? {
        for registry in registries { registry.recordRequest(named: request.name) }
        if let outcome = registries.lazy.compactMap({ $0.requestAction(for: request) }).first {
            return await outcome(request)
        }
        if let outer = outer as? any AdHocRequestMockResolver, let outcome = await outer.resolve(request) {
            return outcome
        }
        if registries.contains(where: \.isStrict) {
            return .failure(.middlewareError(UnmockedEndpointError(endpointName: request.name)))
        }
        return nil
    }
}
