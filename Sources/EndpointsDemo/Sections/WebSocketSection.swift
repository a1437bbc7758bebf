import Endpoints

/// `GET quotes` upgraded to a WebSocket: the client subscribes with a typed message and reads
/// typed quotes back.
struct Quotes: WebSocketEndpoint {
    typealias Server = DemoServer
    typealias Response = Void
    typealias ErrorResponse = ApiError
    struct Outgoing: Encodable, Sendable {
        let symbol: String
        let count: Int
    }
    struct Incoming: Decodable, Sendable, CustomStringConvertible {
        let symbol: String
        let price: Double
        let sequence: Int
        var description: String { "Quote(symbol: \"\(symbol)\", price: \(price), sequence: \(sequence))" }
    }
    static let definition: Definition<Quotes> = Definition(method: .get, path: "quotes")
}

/// A typed WebSocket ticker on the embedded service: the handshake goes through the pipeline
/// with the client's bearer token (refreshed first if it expired), then messages both ways.
enum WebSocketSection {
    static func run(_ tour: Tour, client: DemoClient) async throws {
        let say = tour.transcript
        say.section("A typed WebSocket: a ticker")
        let connection = try await EndpointClient().webSocket(
            Quotes(), environment: client.environment, auth: client.auth, middleware: client.middleware)
        say.line("GET quotes → \(connection.response.statusCode), upgraded, with the client's bearer token")
        try await connection.send(Quotes.Outgoing(symbol: "ACME", count: 3))
        say.line(#"send {"symbol": "ACME", "count": 3}"#)
        var received = 0
        for try await quote in connection {
            say.line("→ \(quote)")
            received += 1
            if received == 3 { try connection.close() }
        }
        let code = connection.closure.map { String($0.code.rawValue) } ?? "none"
        say.line("closed with \(code) after \(received) quotes, each decoded as it arrived")
    }
}
