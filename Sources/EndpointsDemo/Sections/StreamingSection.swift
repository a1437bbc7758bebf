import Endpoints

/// `GET ticks`: server-sent events, one every 100 ms.
struct Ticks: Endpoint {
    typealias Server = DemoServer
    struct Response: Decodable, Sendable { let n: Int }
    typealias ErrorResponse = ApiError
    static var auth: NoAuth { NoAuth() }
    static let definition: Definition<Ticks> = Definition(method: .get, path: "ticks")
}

/// A stream of server-sent events, each decoded as it arrives, through the same pipeline.
enum StreamingSection {
    static func run(_ tour: Tour) async throws {
        let say = tour.transcript
        say.section("A stream of server-sent events")
        let start = DispatchTime.now()
        let stream = try await URLSession.shared.bytes(
            for: Ticks(), environment: tour.production, middleware: tour.middleware
        ).events.values
        var received: [Int] = []
        for try await tick in stream {
            received.append(tick.n)
            say.line("event {\"n\": \(tick.n)}")
        }
        say.line("GET ticks → \(received.count) events in \(milliseconds(since: start)), each decoded as it arrived")
    }
}
