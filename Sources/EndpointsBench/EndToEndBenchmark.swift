import Endpoints
import EndpointsTestServer
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// End to end: GET + decode against the loopback server, this library against raw
// `URLSession.data(for:)` + `JSONDecoder`, alternating rounds in one process.

struct LoopbackServer: ServerDefinition {
    typealias Environments = URL
    var baseUrls: [URL: URL] { [:] }
    static var defaultEnvironment: URL { URL(string: "http://127.0.0.1:8080")! }
    func baseURL(for environment: URL) -> URL? { environment }
}

struct Item: Decodable, Sendable {
    let id: Int
    let name: String
    let tags: [String]
}

enum EndToEndBenchmark {
    static let payload = #"{"id":42,"name":"Endpoints","tags":["swift","linux","http"]}"#

    static func run(total: Int, inFlight: Int) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/item") { _ in .json(raw: payload) }
        let url = server.url("/item")
        // A session per side, so that each side's connections are its own to count.
        let rawSession = URLSession(configuration: .default)
        let ourSession = URLSession(configuration: .default)
        defer {
            rawSession.finishTasksAndInvalidate()
            ourSession.finishTasksAndInvalidate()
        }

        print("End to end: \(total) GET + decode per side, \(inFlight) in flight, loopback, alternating rounds")
        let rounds = 10
        var ours: [Sample] = []
        var raw: [Sample] = []
        for _ in 0..<rounds {
            raw.append(
                try await measure(server: server, count: total / rounds, inFlight: inFlight) {
                    let (data, _) = try await rawSession.data(for: URLRequest(url: url))
                    _ = try JSONDecoder().decode(Item.self, from: data)
                })
            ours.append(
                try await measure(server: server, count: total / rounds, inFlight: inFlight) {
                    _ = try await ourSession.response(with: ItemEndpoint(), environment: server.baseURL)
                })
        }
        let rawTotal = raw.reduce(into: Sample()) { $0 += $1 }
        let ourTotal = ours.reduce(into: Sample()) { $0 += $1 }
        rawTotal.report("raw URLSession + JSONDecoder")
        ourTotal.report("Endpoints")
        // The median of per-round ratios: rounds run back to back, so each pair saw the same machine.
        let ratios = zip(ours, raw).map { $0.rate / $1.rate }.sorted()
        let median = (ratios[ratios.count / 2] + ratios[(ratios.count - 1) / 2]) / 2
        print(
            String(
                format: "  ratio (Endpoints / raw): %.2f× throughput overall, %.2f× median of %d paired rounds",
                ourTotal.rate / rawTotal.rate, median, rounds
            )
        )
    }

    struct Sample {
        var requests = 0
        var seconds = 0.0
        var cpuSeconds = 0.0
        var connections = 0

        var rate: Double { Double(requests) / seconds }

        static func += (lhs: inout Sample, rhs: Sample) {
            lhs.requests += rhs.requests
            lhs.seconds += rhs.seconds
            lhs.cpuSeconds += rhs.cpuSeconds
            lhs.connections += rhs.connections
        }

        func report(_ name: String) {
            print(
                String(
                    format: "  %@: %.0f req/s, %.1f µs CPU per request (client and server), %d TCP connections",
                    name, rate, cpuSeconds / Double(requests) * 1e6, connections
                )
            )
        }
    }

    static func measure(
        server: TestServer,
        count: Int,
        inFlight: Int,
        _ request: @escaping @Sendable () async throws -> Void
    ) async throws -> Sample {
        let connectionsBefore = server.connectionCount
        let cpuBefore = cpuTime()
        let start = DispatchTime.now().uptimeNanoseconds
        try await withThrowingTaskGroup(of: Void.self) { group in
            var started = 0
            while started < min(inFlight, count) {
                group.addTask(operation: request)
                started += 1
            }
            while try await group.next() != nil {
                if started < count {
                    group.addTask(operation: request)
                    started += 1
                }
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Sample(
            requests: count,
            seconds: seconds,
            cpuSeconds: cpuTime() - cpuBefore,
            connections: server.connectionCount - connectionsBefore
        )
    }

    static func cpuTime() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return user + system
    }
}

struct ItemEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Item
    static let definition: Definition<ItemEndpoint> = Definition(method: .get, path: "item")
}
