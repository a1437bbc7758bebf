import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The streaming and file APIs on a session: each is the same as on ``EndpointClient`` with
/// `EndpointClient(session: self)`.
extension URLSession {
    /// Sends `endpoint` and returns its body as chunks of bytes as they arrive; see
    /// ``EndpointClient/bytes(for:environment:auth:middleware:)``.
    ///
    /// ```swift
    /// for try await chunk in try await URLSession.shared.bytes(for: LogTail()) { output.write(chunk) }
    /// ```
    public func bytes<T: Endpoint>(
        for endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = []
    ) async throws(T.TaskError) -> EndpointStream<Data, T.ErrorResponse> {
        try await EndpointClient(session: self).bytes(
            for: endpoint, environment: environment, auth: auth, middleware: middleware)
    }

    /// Sends `endpoint` and returns the server-sent events of its body as they arrive; see
    /// ``EndpointClient/events(for:environment:auth:middleware:)``.
    ///
    /// ```swift
    /// for try await event in try await URLSession.shared.events(for: PriceFeed()) { print(event.data) }
    /// ```
    public func events<T: Endpoint>(
        for endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = []
    ) async throws(T.TaskError) -> EndpointStream<ServerSentEvent, T.ErrorResponse> {
        try await EndpointClient(session: self).events(
            for: endpoint, environment: environment, auth: auth, middleware: middleware)
    }

    /// Sends `endpoint` and returns each server-sent event's data decoded as `T.Response`; see
    /// ``EndpointClient/eventValues(for:environment:auth:middleware:)``.
    public func eventValues<T: Endpoint>(
        for endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = []
    ) async throws(T.TaskError) -> EndpointStream<T.Response, T.ErrorResponse> {
        try await EndpointClient(session: self).eventValues(
            for: endpoint, environment: environment, auth: auth, middleware: middleware)
    }

    /// Sends `endpoint` and returns each JSON line of its body decoded as `T.Response`; see
    /// ``EndpointClient/lines(for:environment:auth:middleware:)``.
    public func lines<T: Endpoint>(
        for endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = []
    ) async throws(T.TaskError) -> EndpointStream<T.Response, T.ErrorResponse> {
        try await EndpointClient(session: self).lines(
            for: endpoint, environment: environment, auth: auth, middleware: middleware)
    }

    /// Sends `endpoint` and writes its body to `destination`; see
    /// ``EndpointClient/download(_:to:environment:auth:middleware:progress:)``.
    @discardableResult
    public func download<T: Endpoint>(
        _ endpoint: T,
        to destination: URL,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = [],
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(T.TaskError) -> HTTPURLResponse {
        try await EndpointClient(session: self).download(
            endpoint, to: destination, environment: environment, auth: auth, middleware: middleware,
            progress: progress)
    }

    /// Sends `endpoint` with the file at `file` as its body; see
    /// ``EndpointClient/upload(_:fromFile:environment:auth:middleware:progress:)``.
    public func upload<T: Endpoint>(
        _ endpoint: T,
        fromFile file: URL,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = [],
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(T.TaskError) -> T.Response {
        try await EndpointClient(session: self).upload(
            endpoint, fromFile: file, environment: environment, auth: auth, middleware: middleware,
            progress: progress)
    }

    /// The pages of `endpoint`, fetched as they are read; see
    /// ``EndpointClient/pages(for:environment:auth:middleware:)``.
    public func pages<T: PaginatedEndpoint>(
        for endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = []
    ) -> PageSequence<T> {
        EndpointClient(session: self).pages(for: endpoint, environment: environment, auth: auth, middleware: middleware)
    }
}
