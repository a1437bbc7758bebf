import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension EndpointSending {
    /// Opens a WebSocket to `endpoint`: sends its handshake through the pipeline and returns the
    /// connection once the server accepted it.
    ///
    /// ```swift
    /// let connection = try await EndpointClient().webSocket(Chat(room: "general"))
    /// try await connection.send(.init(text: "hello"))
    /// for try await message in connection { print(message.text) }
    /// ```
    ///
    /// The handshake is a request like any other: built from the endpoint (a `GET` with
    /// `Upgrade: websocket`, a fresh `Sec-WebSocket-Key`, version 13 and the endpoint's
    /// ``WebSocketEndpoint/subprotocols``), authenticated (renewed and sent again after a 401),
    /// passed through the endpoint's, the client's and the call's middleware (logging redacts its
    /// credentials as usual) and sent by the client's transport, which upgrades the connection.
    /// The server's 101 is checked (`Sec-WebSocket-Accept`, `Upgrade`, `Connection`, the
    /// subprotocol among those offered, no extension).
    ///
    /// On Linux `EndpointClient()` sends with ``CurlTransport``, which upgrades.
    /// ``URLSessionTransport`` cannot upgrade yet, on any platform (see <doc:WebSockets>): it,
    /// and any transport that cannot, fails with ``WebSocketError/upgradeUnsupported(transport:)``.
    ///
    /// - Throws: `T.TaskError`: a status other than 101 is its `errorResponse`, with the body; a
    ///   101 that is not a valid acceptance, or a transport that cannot upgrade, is its
    ///   `streamError` holding a ``WebSocketError``.
    public func webSocket<T: WebSocketEndpoint>(
        _ endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = []
    ) async throws(T.TaskError) -> WebSocketConnection<T> {
        let client = endpointClient
        let handshake: WebSocketHandshake
        do {
            var random = SystemRandomNumberGenerator()
            handshake = try WebSocketHandshake(subprotocols: T.subprotocols, using: &random)
        } catch {
            throw .streamError(WebSocketError.handshakeFailed(error.description))
        }
        let sink = UpgradeSink()
        var call = client.call(endpoint, environment: environment, auth: auth, middleware: middleware)
            .adjusted { request in
                var request = request
                request.httpMethod = "GET"
                request.httpBody = nil
                for (name, value) in handshake.requestHeaderFields { request.setValue(value, forHTTPHeaderField: name) }
                return request
            }
            .carrying(Transfer(upgrade: sink))
        call.acceptableStatusCodes = [101]
        // A typed mock answers with a `Response`, not a connection.
        call.mock = nil
        guard case .body(_, let response, let recorder) = try await call.open(on: client.transport) else {
            throw .streamError(WebSocketError.upgradeUnsupported(transport: "a mock"))
        }
        guard let channel = sink.take() else {
            let transport = PipelineOverrides.current.transport ?? client.transport
            let failure = T.TaskError.streamError(
                WebSocketError.upgradeUnsupported(transport: String(describing: type(of: transport))))
            throw failure.ended(by: recorder)
        }
        let subprotocol: String?
        do {
            subprotocol = try handshake.validate(response)
        } catch {
            channel.close()
            throw T.TaskError.streamError(WebSocketError.handshakeFailed(error.description)).ended(by: recorder)
        }
        recorder.finishDecoded()
        return WebSocketConnection(channel: channel, response: response, subprotocol: subprotocol)
    }
}
