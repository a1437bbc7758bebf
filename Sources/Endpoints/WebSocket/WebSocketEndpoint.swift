import Foundation

/// An endpoint that opens a WebSocket: declared like any endpoint (its server, path, query,
/// headers and authentication), with the types of the messages it sends and receives.
///
/// ```swift
/// struct Quotes: WebSocketEndpoint {
///     typealias Server = MarketServer
///     typealias Response = Void
///     struct Outgoing: Encodable, Sendable { let subscribe: [String] }
///     struct Incoming: Decodable, Sendable { let symbol: String; let price: Double }
///
///     static let definition: Definition<Quotes> = Definition(method: .get, path: "quotes")
/// }
///
/// let connection = try await EndpointClient().webSocket(Quotes())
/// try await connection.send(.init(subscribe: ["AAPL"]))
/// for try await quote in connection { print(quote.symbol, quote.price) }
/// ```
///
/// Messages are JSON text for `Codable` types, text for `String` and binary for `Data`
/// (``messageCoding``); give your own coding for anything else. The server's URL may be `ws`,
/// `wss`, `http` or `https`.
public protocol WebSocketEndpoint: Endpoint {
    /// What the client sends.
    associatedtype Outgoing: Sendable
    /// What the client receives.
    associatedtype Incoming: Sendable

    /// How messages are written and read.
    static var messageCoding: WebSocketMessageCoding<Outgoing, Incoming> { get }
    /// The subprotocols to offer (`Sec-WebSocket-Protocol`), by preference; none by default.
    static var subprotocols: [String] { get }
    /// The largest message (all its fragments) and frame to accept from the server: 1 MiB, as
    /// `URLSessionWebSocketTask`'s default. A larger one closes the connection with 1009.
    static var maximumMessageSize: Int { get }
}

extension WebSocketEndpoint {
    /// None.
    public static var subprotocols: [String] { [] }
    /// 1 MiB.
    public static var maximumMessageSize: Int { 1 << 20 }
}

extension WebSocketEndpoint where Outgoing: Encodable, Incoming: Decodable {
    /// JSON text messages, with the endpoint's body encoder and response decoder.
    public static var messageCoding: WebSocketMessageCoding<Outgoing, Incoming> { .json }
}

extension WebSocketEndpoint where Outgoing == String, Incoming == String {
    /// Text messages as they are.
    public static var messageCoding: WebSocketMessageCoding<Outgoing, Incoming> { .text }
}

extension WebSocketEndpoint where Outgoing == Data, Incoming == Data {
    /// Binary messages as they are.
    public static var messageCoding: WebSocketMessageCoding<Outgoing, Incoming> { .binary }
}

/// How a WebSocket endpoint's messages are written and read.
///
/// ```swift
/// static var messageCoding: WebSocketMessageCoding<Command, Event> {
///     WebSocketMessageCoding(
///         encode: { .text($0.line) },
///         decode: { message in
///             guard case .text(let line) = message else { throw Malformed() }
///             return try Event(line: line)
///         })
/// }
/// ```
public struct WebSocketMessageCoding<Outgoing, Incoming>: Sendable {
    /// Writes an outgoing value as a message.
    public let encode: @Sendable (Outgoing) throws -> WebSocketMessage
    /// Reads an incoming message; what it throws becomes ``WebSocketError/undecodableMessage(_:_:)``.
    public let decode: @Sendable (WebSocketMessage) throws -> Incoming

    /// A coding of your own.
    public init(
        encode: @escaping @Sendable (Outgoing) throws -> WebSocketMessage,
        decode: @escaping @Sendable (WebSocketMessage) throws -> Incoming
    ) {
        self.encode = encode
        self.decode = decode
    }
}

// Sendable, and so their metatypes too (Swift 6.2's `SendableMetatype`): the closures capture them.
extension WebSocketMessageCoding where Outgoing: Encodable & Sendable, Incoming: Decodable & Sendable {
    /// JSON, sent as text; a binary message is read as JSON too.
    public static var json: Self {
        Self(
            encode: { value in
                .text(String(decoding: try SharedCoders.jsonEncoder.encode(value), as: UTF8.self))
            },
            decode: { message in
                switch message {
                case .text(let text): try SharedCoders.jsonDecoder.decode(Incoming.self, from: Data(text.utf8))
                case .binary(let data): try SharedCoders.jsonDecoder.decode(Incoming.self, from: data)
                }
            })
    }
}

extension WebSocketMessageCoding where Outgoing == String, Incoming == String {
    /// Text as it is; a binary message is read as UTF-8.
    public static var text: Self {
        Self(
            encode: { .text($0) },
            decode: { message in
                switch message {
                case .text(let text): return text
                case .binary(let data):
                    guard let text = String(data: data, encoding: .utf8) else {
                        throw DecodingError.dataCorrupted(
                            .init(codingPath: [], debugDescription: "A binary message is not UTF-8 text."))
                    }
                    return text
                }
            })
    }
}

extension WebSocketMessageCoding where Outgoing == Data, Incoming == Data {
    /// Bytes as they are; a text message is read as its UTF-8.
    public static var binary: Self {
        Self(
            encode: { .binary($0) },
            decode: { message in
                switch message {
                case .text(let text): Data(text.utf8)
                case .binary(let data): data
                }
            })
    }
}
