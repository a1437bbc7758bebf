import Foundation

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Servers and endpoints for the WebSocket peers (see ``WebSocketPeers``).
struct WebSocketEchoServer: ServerDefinition {
    var baseUrls: [TypicalEnvironments: URL] { WebSocketPeers.echoURL.map { [.production: $0] } ?? [:] }
}

struct WebSocketSecureEchoServer: ServerDefinition {
    var baseUrls: [TypicalEnvironments: URL] { WebSocketPeers.secureEchoURL.map { [.production: $0] } ?? [:] }
}

struct WebSocketHostileServer: ServerDefinition {
    var baseUrls: [TypicalEnvironments: URL] { WebSocketPeers.hostileURL.map { [.production: $0] } ?? [:] }
}

/// A JSON message both ways.
struct Note: Codable, Sendable, Equatable {
    let text: String
    let count: Int
}

/// The echo server's one-segment paths (`echo`, `ping`, `fragments`, `headers`, `subprotocol`),
/// with JSON messages.
struct EchoNotes: WebSocketEndpoint {
    typealias Server = WebSocketEchoServer
    typealias Response = Void
    typealias Outgoing = Note
    typealias Incoming = Note
    struct PathComponents: Sendable { let route: String }
    static let definition: Definition<EchoNotes> = Definition(path: "\(path: \.route)")
    let pathComponents: PathComponents
    init(_ route: String = "echo") { pathComponents = PathComponents(route: route) }
}

/// Text messages on the echo server's one-segment paths, offering subprotocols.
struct EchoText: WebSocketEndpoint {
    typealias Server = WebSocketEchoServer
    typealias Response = Void
    typealias Outgoing = String
    typealias Incoming = String
    struct PathComponents: Sendable { let route: String }
    struct ParameterComponents: Sendable { var interleave: String? }
    static let definition: Definition<EchoText> = Definition(
        path: "\(path: \.route)", parameters: [.query("interleave", path: \.interleave)])
    let pathComponents: PathComponents
    let parameterComponents: ParameterComponents
    static let subprotocols = ["chat.v2", "chat.v1"]
    init(_ route: String, interleave: String? = nil) {
        pathComponents = PathComponents(route: route)
        parameterComponents = ParameterComponents(interleave: interleave)
    }
}

/// `/close/{code}?reason=` and `/reject/{status}` on the echo server.
struct EchoAction: WebSocketEndpoint {
    typealias Server = WebSocketEchoServer
    typealias Response = Void
    typealias Outgoing = String
    typealias Incoming = String
    struct PathComponents: Sendable {
        let action: String
        let number: Int
    }
    struct ParameterComponents: Sendable { var reason: String? }
    static let definition: Definition<EchoAction> = Definition(
        path: "\(path: \.action)/\(path: \.number)", parameters: [.query("reason", path: \.reason)])
    let pathComponents: PathComponents
    let parameterComponents: ParameterComponents
    init(_ action: String, _ number: Int, reason: String? = nil) {
        pathComponents = PathComponents(action: action, number: number)
        parameterComponents = ParameterComponents(reason: reason)
    }
}

/// Binary messages on the echo server over TLS.
struct SecureEchoBytes: WebSocketEndpoint {
    typealias Server = WebSocketSecureEchoServer
    typealias Response = Void
    typealias Outgoing = Data
    typealias Incoming = Data
    static let definition: Definition<SecureEchoBytes> = Definition(path: "echo")
}

/// A hostile path of two segments, text messages, with `?id=` for the report.
struct HostilePath: WebSocketEndpoint {
    typealias Server = WebSocketHostileServer
    typealias Response = Void
    typealias Outgoing = String
    typealias Incoming = String
    struct PathComponents: Sendable {
        let first: String
        let second: String
    }
    struct ParameterComponents: Sendable { let id: String }
    static let definition: Definition<HostilePath> = Definition(
        path: "\(path: \.first)/\(path: \.second)", parameters: [.query("id", path: \.id)])
    let pathComponents: PathComponents
    let parameterComponents: ParameterComponents

    /// `path` of two segments, e.g. `frame/rsv1`; a fresh report id.
    init(_ path: String) {
        let parts = path.split(separator: "/", maxSplits: 1).map(String.init)
        pathComponents = PathComponents(first: parts[0], second: parts.count > 1 ? parts[1] : "")
        parameterComponents = ParameterComponents(id: UUID().uuidString)
    }

    /// What the hostile server saw of this connection: the close code the client sent.
    func report() async throws -> (ended: Bool, closeCode: Int?) {
        let base = WebSocketPeers.hostileURL?.absoluteString.replacingOccurrences(of: "ws://", with: "http://") ?? ""
        var request = URLRequest(url: URL(string: "\(base)/report/\(parameterComponents.id)")!)
        request.timeoutInterval = 30
        let (data, _) = try await URLSession.shared.data(for: request)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return (object["ended"] as? Bool ?? false, object["client_close_code"] as? Int)
    }
}
