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
    /// On Linux `EndpointClient()` sends with ``CurlTransport``, which upgrades the connection
    /// itself. ``URLSessionTransport`` opens a `URLSessionWebSocketTask` on Apple platforms; on
    /// Linux, where FoundationNetworking's libcurl has no WebSocket support, it fails with
    /// ``WebSocketError/upgradeUnsupported(transport:)``, as does any transport that cannot
    /// upgrade (see <doc:WebSockets>).
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
            var random = SystemRandom()
            handshake = try WebSocketHandshake(subprotocols: T.subprotocols, using: &random)
        } catch {
            throw .streamError(WebSocketError.handshakeFailed(error.description))
        }
        let sink = UpgradeSink(maximumMessageSize: T.maximumMessageSize)
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
        guard let link = sink.take() else {
            let transport = PipelineOverrides.current.transport ?? client.transport
            let failure = T.TaskError.streamError(
                WebSocketError.upgradeUnsupported(transport: String(describing: type(of: transport))))
            throw failure.ended(by: recorder)
        }
        let subprotocol: String?
        switch link {
        case .frames:
            do {
                subprotocol = try handshake.validate(response)
            } catch {
                link.close()
                throw T.TaskError.streamError(WebSocketError.handshakeFailed(error.description)).ended(by: recorder)
            }
        case .messages(let channel):
            // URLSession checked the 101 against the key it sent.
            subprotocol = channel.subprotocol
        }
        recorder.finishDecoded()
        return WebSocketConnection(link: link, response: response, subprotocol: subprotocol)
    }
}
