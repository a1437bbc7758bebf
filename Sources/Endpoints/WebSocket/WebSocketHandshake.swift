import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The client's side of the opening handshake (RFC 6455 §4.1): the key and header fields the
/// upgrade request carries, and the check of the server's answer.
///
/// ```swift
/// var random = SystemRandom()
/// let handshake = try WebSocketHandshake(subprotocols: ["chat.v2"], using: &random)
/// for (name, value) in handshake.requestHeaderFields { request.setValue(value, forHTTPHeaderField: name) }
/// // … send the GET, read the answer's head …
/// let subprotocol = try handshake.validate(response)   // "chat.v2", or nil if the server chose none
/// ```
///
/// The answer must be a 101 with `Upgrade: websocket` (compared without case), `Connection`
/// listing `upgrade` (without case), `Sec-WebSocket-Accept` equal to
/// base64(SHA-1(key + ``acceptGUID``)), no `Sec-WebSocket-Extensions` (none is offered) and no
/// `Sec-WebSocket-Protocol` other than one offered (none when none was). Each fault is a
/// ``WebSocketHandshakeError``.
struct WebSocketHandshake: Sendable, Hashable {
    /// The GUID the server appends to the key before hashing it (RFC 6455 §1.3).
    static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The `Sec-WebSocket-Key`: a nonce of 16 bytes, in base64 (24 characters).
    let key: String
    /// The subprotocols offered, in order of preference; empty when none is.
    let subprotocols: [String]

    /// A handshake with a fresh key of 16 bytes from `generator` (`SystemRandom`
    /// when connecting), offering `subprotocols`.
    ///
    /// - Throws: ``WebSocketHandshakeError/invalidSubprotocol(_:)`` for a name that is not an HTTP
    ///   token, ``WebSocketHandshakeError/duplicateSubprotocol(_:)`` for a name offered twice.
    init(subprotocols: [String] = [], using generator: inout some RandomNumberGenerator)
        throws(WebSocketHandshakeError)
    {
        var nonce: [UInt8] = []
        for _ in 0..<2 {
            let value = generator.next()
            for shift in stride(from: 56, through: 0, by: -8) {
                nonce.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        }
        try self.init(key: Data(nonce).base64EncodedString(), subprotocols: subprotocols)
    }

    /// A handshake with a given key (tests use the RFC's example).
    init(key: String, subprotocols: [String] = []) throws(WebSocketHandshakeError) {
        var seen: Set<String> = []
        for name in subprotocols {
            guard HTTPToken.isValid(name) else { throw .invalidSubprotocol(name) }
            guard seen.insert(name).inserted else { throw .duplicateSubprotocol(name) }
        }
        self.key = key
        self.subprotocols = subprotocols
    }

    /// The header fields the upgrade request adds to its own (the method is GET, HTTP/1.1): the
    /// upgrade, the key, version 13, and the subprotocols when some are offered.
    var requestHeaderFields: [(name: String, value: String)] {
        var fields = [
            (name: "Upgrade", value: "websocket"),
            (name: "Connection", value: "Upgrade"),
            (name: "Sec-WebSocket-Key", value: key),
            (name: "Sec-WebSocket-Version", value: "13"),
        ]
        if !subprotocols.isEmpty {
            fields.append((name: "Sec-WebSocket-Protocol", value: subprotocols.joined(separator: ", ")))
        }
        return fields
    }

    /// The `Sec-WebSocket-Accept` a server must answer ``key`` with.
    var expectedAccept: String { Self.accept(for: key) }

    /// base64(SHA-1(`key` + ``acceptGUID``)) (RFC 6455 §4.2.2, step 5.4).
    static func accept(for key: String) -> String {
        Data(SHA1.hash(Array((key + acceptGUID).utf8))).base64EncodedString()
    }

    /// Checks the server's answer (see ``validate(statusCode:headerFields:)``).
    func validate(_ response: HTTPURLResponse) throws(WebSocketHandshakeError) -> String? {
        var fields: [String: String] = [:]
        for case (let name as String, let value as String) in response.allHeaderFields {
            fields[name] = value
        }
        return try validate(statusCode: response.statusCode, headerFields: fields)
    }

    /// Checks the server's answer: its status and header fields (names in any case; fields whose
    /// names differ only in case count as one, their values joined with commas).
    ///
    /// - Returns: The subprotocol the server chose, `nil` when it chose none.
    /// - Throws: ``WebSocketHandshakeError``, naming the first check that failed, in the order of
    ///   RFC 6455 §4.1: the status, `Upgrade`, `Connection`, `Sec-WebSocket-Accept`, then
    ///   `Sec-WebSocket-Extensions` and `Sec-WebSocket-Protocol`.
    func validate(statusCode: Int, headerFields: [String: String]) throws(WebSocketHandshakeError) -> String? {
        guard statusCode == 101 else { throw .unexpectedStatus(statusCode) }
        func field(_ name: String) -> String? {
            let values = headerFields.filter { $0.key.lowercased() == name }.sorted { $0.key < $1.key }.map(\.value)
            return values.isEmpty ? nil : values.joined(separator: ", ")
        }
        let upgrade = field("upgrade")
        guard let upgrade, CacheControl.trimmed(upgrade).lowercased() == "websocket" else {
            throw .upgradeNotWebSocket(upgrade)
        }
        let connection = field("connection")
        guard let connection, Self.elements(connection).contains(where: { $0.lowercased() == "upgrade" }) else {
            throw .connectionNotUpgrade(connection)
        }
        let accept = field("sec-websocket-accept")
        guard let accept, CacheControl.trimmed(accept) == expectedAccept else { throw .acceptMismatch(accept) }
        if let extensions = field("sec-websocket-extensions"), !CacheControl.trimmed(extensions).isEmpty {
            throw .extensionNotOffered(extensions)
        }
        // An empty field chooses nothing, as a missing one.
        let chosen = CacheControl.trimmed(field("sec-websocket-protocol") ?? "")
        guard !chosen.isEmpty else { return nil }
        guard subprotocols.contains(chosen) else { throw .subprotocolNotOffered(chosen) }
        return chosen
    }

    /// The elements of a comma-separated list, without the white space around them (HTTP's OWS,
    /// trimmed as the cache trims its fields), empty ones left out.
    private static func elements(_ value: String) -> [String] {
        value.split(separator: ",").map { CacheControl.trimmed($0) }.filter { !$0.isEmpty }
    }
}

/// Why an opening handshake failed: a subprotocol that cannot be offered, or an answer that is not
/// a WebSocket server's acceptance of this request (RFC 6455 §4.1, §4.2.2).
enum WebSocketHandshakeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A subprotocol to offer is not an HTTP token (empty, or with spaces, commas, quotes…).
    case invalidSubprotocol(String)
    /// A subprotocol was offered twice.
    case duplicateSubprotocol(String)
    /// The server answered with this status instead of 101 (a 401 asks for credentials, a 426 for
    /// another protocol version, a 200 is a server that does not speak WebSocket).
    case unexpectedStatus(Int)
    /// `Upgrade` is missing (`nil`) or is not `websocket`.
    case upgradeNotWebSocket(String?)
    /// `Connection` is missing (`nil`) or does not list `upgrade`.
    case connectionNotUpgrade(String?)
    /// `Sec-WebSocket-Accept` is missing (`nil`) or is not the one the key calls for.
    case acceptMismatch(String?)
    /// The server accepted an extension, but none was offered.
    case extensionNotOffered(String)
    /// The server chose a subprotocol that was not offered.
    case subprotocolNotOffered(String)

    /// The fault, as a sentence.
    var description: String {
        switch self {
        case .invalidSubprotocol(let name):
            "The subprotocol \(name.debugDescription) is not an HTTP token, so it cannot be offered."
        case .duplicateSubprotocol(let name):
            "The subprotocol \(name.debugDescription) is offered twice."
        case .unexpectedStatus(let status):
            "The server answered the WebSocket handshake with status \(status) instead of 101."
        case .upgradeNotWebSocket(let value):
            "The server's handshake answer has \(Self.quoted(value)) as Upgrade instead of \"websocket\"."
        case .connectionNotUpgrade(let value):
            "The server's handshake answer has \(Self.quoted(value)) as Connection, which does not list \"upgrade\"."
        case .acceptMismatch(let value):
            "The server's handshake answer has \(Self.quoted(value)) as Sec-WebSocket-Accept, not the one the key calls for."
        case .extensionNotOffered(let value):
            "The server accepted the extension \(value.debugDescription), but none was offered."
        case .subprotocolNotOffered(let value):
            "The server chose the subprotocol \(value.debugDescription), which was not offered."
        }
    }

    private static func quoted(_ value: String?) -> String {
        value.map(\.debugDescription) ?? "no value"
    }
}

/// base64(SHA-1(`key` + the RFC 6455 GUID)): the `Sec-WebSocket-Accept` a server answers `key`
/// with, for the package's test server.
package func webSocketAccept(for key: String) -> String {
    WebSocketHandshake.accept(for: key)
}
