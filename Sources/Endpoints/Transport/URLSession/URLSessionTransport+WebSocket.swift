import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Sends a WebSocket handshake with a `URLSessionWebSocketTask` on the transport's session and
    /// returns the answer's head; for a 101 the task goes to `sink`.
    ///
    /// The task writes its own `Sec-WebSocket-Key`, `Upgrade` and `Connection` fields and checks
    /// the server's `Sec-WebSocket-Accept`; the request's other fields (credentials, the offered
    /// `Sec-WebSocket-Protocol`) go as they are. The task reads messages of up to the endpoint's
    /// ``WebSocketEndpoint/maximumMessageSize``. `http` and `https` URLs are sent as `ws` and
    /// `wss`. A status other than 101 (a 401 that refreshes credentials) comes back with an empty
    /// body: URLSession does not hand the body of a refused handshake over. The per-host limit
    /// does not apply (a WebSocket holds its connection for long).
    ///
    /// On Linux, FoundationNetworking's libcurl has no WebSocket support: the task fails with
    /// `URLError.unsupportedURL`, reported as ``WebSocketError/upgradeUnsupported(transport:)``.
    func upgrade(
        _ request: URLRequest, context: RequestContext, into sink: UpgradeSink
    ) async throws -> (ResponseBody, HTTPURLResponse) {
        var request = request
        if let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: true) {
            switch components.scheme?.lowercased() {
            case "http": components.scheme = "ws"
            case "https": components.scheme = "wss"
            default: break
            }
            request.url = components.url ?? url
        }
        for name in ["Sec-WebSocket-Key", "Sec-WebSocket-Version", "Upgrade", "Connection"] {
            request.setValue(nil, forHTTPHeaderField: name)
        }
        let task = session.webSocketTask(with: request)
        task.maximumMessageSize = sink.maximumMessageSize
        let channel = WebSocketTaskChannel(task: task)
        let response: HTTPURLResponse
        do {
            response = try await channel.open()
        } catch let error as URLError {
            #if canImport(FoundationNetworking)
                if error.code == .unsupportedURL {
                    throw WebSocketError.upgradeUnsupported(
                        transport: "URLSessionTransport (FoundationNetworking's libcurl has no WebSocket support)")
                }
            #endif
            throw error
        }
        guard response.statusCode == 101 else { return (ResponseBody(Data()), response) }
        sink.deliver(.messages(channel))
        return (ResponseBody(Data()), response)
    }
}

/// One `URLSessionWebSocketTask` as a ``UpgradedMessageChannel``: URLSession frames the messages,
/// answers pings and checks the handshake.
///
/// One receive is outstanding at a time: the first is issued with the task (its outcome also
/// says whether the handshake failed, as the per-task delegate is not called on Linux), each
/// next one when the reader takes a message, so a slow reader leaves messages in URLSession's
/// hands and no more than one here.
final class WebSocketTaskChannel: NSObject, URLSessionWebSocketDelegate, UpgradedMessageChannel, Sendable {
    private typealias Received = Result<URLSessionWebSocketTask.Message, any Error>

    private struct State {
        let task: URLSessionWebSocketTask
        var opening: CheckedContinuation<HTTPURLResponse, any Error>?
        var subprotocol: String?
        /// A receive's outcome nobody asked for yet.
        var received: Received?
        var reader: CheckedContinuation<Received, Never>?
    }

    /// Held in `state`: `URLSessionWebSocketTask` is not `Sendable` on every platform.
    private let state: Locked<State>

    init(task: URLSessionWebSocketTask) {
        state = Locked(State(task: task))
    }

    var subprotocol: String? { state.withLock { $0.subprotocol } }

    /// Starts the task and returns the handshake's answer: the 101, or a refusal's head.
    func open() async throws -> HTTPURLResponse {
        let task = state.withLock { $0.task }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                state.withLock { $0.opening = continuation }
                task.delegate = self
                task.resume()
                receiveNext(on: task)
            }
        } onCancel: {
            cancel()
        }
    }

    /// Cancels the task: a handshake under way fails with `CancellationError`.
    private func cancel() {
        state.withLock { $0.task }.cancel()
    }

    private func receiveNext(on task: URLSessionWebSocketTask) {
        task.receive { [self] result in received(result) }
    }

    private func received(_ result: Received) {
        enum Action {
            case opened(CheckedContinuation<HTTPURLResponse, any Error>, HTTPURLResponse)
            case refused(CheckedContinuation<HTTPURLResponse, any Error>, any Error, HTTPURLResponse?)
            case deliver(CheckedContinuation<Received, Never>)
            case none
        }
        let action = state.withLock { state -> Action in
            if let opening = state.opening {
                state.opening = nil
                guard case .failure(let error) = result else {
                    state.received = result
                    return .opened(opening, Self.head(of: state.task, subprotocol: state.subprotocol))
                }
                return .refused(opening, error, state.task.response as? HTTPURLResponse)
            }
            guard let reader = state.reader else {
                state.received = result
                return .none
            }
            state.reader = nil
            return .deliver(reader)
        }
        switch action {
        case .opened(let opening, let head): opening.resume(returning: head)
        case .refused(let opening, let error, let head): Self.refuse(opening, error: error, head: head)
        case .deliver(let reader): reader.resume(returning: result)
        case .none: break
        }
    }

    /// The 101 as URLSession received it, or one made of what is known when it hands none over.
    private static func head(of task: URLSessionWebSocketTask, subprotocol: String?) -> HTTPURLResponse {
        if let response = task.response as? HTTPURLResponse { return response }
        let url = task.originalRequest?.url ?? URL(string: "ws://localhost")!
        let fields = subprotocol.map { ["Sec-WebSocket-Protocol": $0] } ?? [:]
        return HTTPURLResponse(url: url, statusCode: 101, httpVersion: "HTTP/1.1", headerFields: fields)!
    }

    /// A handshake that failed: a status other than 101 is the answer (the pipeline judges it),
    /// anything else the error.
    private static func refuse(
        _ opening: CheckedContinuation<HTTPURLResponse, any Error>, error: any Error, head: HTTPURLResponse?
    ) {
        if let head, head.statusCode != 101 { return opening.resume(returning: head) }
        if (error as? URLError)?.code == .cancelled { return opening.resume(throwing: CancellationError()) }
        opening.resume(throwing: error)
    }

    // MARK: URLSessionWebSocketDelegate

    func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?
    ) {
        let (opening, head) = state.withLock { state in
            state.subprotocol = `protocol`
            defer { state.opening = nil }
            return (state.opening, Self.head(of: state.task, subprotocol: `protocol`))
        }
        opening?.resume(returning: head)
    }

    func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
        didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?
    ) {
        // The reader's receive fails next; it reads the code and reason from the task.
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let opening = state.withLock { state in
            defer { state.opening = nil }
            return state.opening
        }
        guard let opening else { return }
        Self.refuse(
            opening, error: error ?? URLError(.badServerResponse), head: task.response as? HTTPURLResponse)
    }

    // MARK: UpgradedMessageChannel

    func receive() async throws -> WebSocketFrameDecoder.Event? {
        let result = await withCheckedContinuation { (reader: CheckedContinuation<Received, Never>) in
            let ready = state.withLock { state -> Received? in
                guard let received = state.received else {
                    state.reader = reader
                    return nil
                }
                state.received = nil
                return received
            }
            if let ready { reader.resume(returning: ready) }
        }
        let task = state.withLock { $0.task }
        switch result {
        case .success(let message):
            receiveNext(on: task)
            switch message {
            case .string(let text): return .message(.text(text))
            case .data(let data): return .message(.binary(data))
            @unknown default: return try await receive()
            }
        case .failure(let error):
            // After a close frame the task knows its code; without one the connection was lost.
            guard task.closeCode != .invalid else { throw error }
            let code =
                task.closeCode == .noStatusReceived
                ? nil : WebSocketCloseCode(rawValue: UInt16(clamping: task.closeCode.rawValue))
            return .close(code: code, reason: task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? "")
        }
    }

    func send(_ message: WebSocketMessage) async throws {
        let task = state.withLock { $0.task }
        let outgoing: URLSessionWebSocketTask.Message
        switch message {
        case .text(let text): outgoing = .string(text)
        case .binary(let data): outgoing = .data(data)
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            task.send(outgoing) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    func ping() async throws {
        let task = state.withLock { $0.task }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            task.sendPing { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    func close(code: WebSocketCloseCode, reason: String) {
        let task = state.withLock { $0.task }
        task.cancel(
            with: URLSessionWebSocketTask.CloseCode(rawValue: Int(code.rawValue)) ?? .normalClosure,
            reason: reason.isEmpty ? nil : Data(reason.utf8))
    }
}
