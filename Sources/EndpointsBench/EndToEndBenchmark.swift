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

// End to end: GET + decode against a loopback server, this library against raw
// `URLSession.data(for:)` + a shared `JSONDecoder`, alternating rounds in one process, at 1, 4, 16
// and 64 requests in flight, on plain loopback and against a backend that waits before answering.

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
    static let decoder = JSONDecoder()

    /// One backend: plain loopback (`latency` 0) or one that waits `latency` before each answer.
    struct Backend {
        let name: String
        let latencyMilliseconds: Int
        /// Requests per side at one in flight; more in flight sends proportionally more.
        let baseCount: Int
    }

    static func run(quick: Bool) async throws {
        let backends = [
            Backend(name: "loopback", latencyMilliseconds: 0, baseCount: quick ? 500 : 2_000),
            Backend(name: "20 ms backend", latencyMilliseconds: 20, baseCount: quick ? 20 : 60),
        ]
        // ENDPOINTS_BENCH_LEVELS=1,16 and ENDPOINTS_BENCH_BACKENDS=loopback narrow a run while profiling.
        let environment = ProcessInfo.processInfo.environment
        let levels =
            environment["ENDPOINTS_BENCH_LEVELS"].map { $0.split(separator: ",").compactMap { Int($0) } }
            ?? [1, 4, 16, 64]
        let chosen = environment["ENDPOINTS_BENCH_BACKENDS"].map { $0.split(separator: ",").map(String.init) }
        print("End to end: GET + decode, Endpoints against raw URLSession.data(for:) + JSONDecoder")
        if ourSide != .pipeline { print("  (the Endpoints side runs only: \(ourSide.rawValue))") }
        print("  (a session per side, \(rounds(quick)) alternating rounds; CPU counts client and server;")
        print("   ratios are medians of per-round ratios, with their 95% confidence interval in parentheses)")
        for backend in backends where chosen?.contains(where: { backend.name.hasPrefix($0) }) ?? true {
            for inFlight in levels {
                try await compare(backend: backend, inFlight: inFlight, quick: quick)
            }
        }
    }

    /// ENDPOINTS_BENCH_ROUNDS=N runs N shorter alternating rounds: more rounds average out a busy machine.
    static func rounds(_ quick: Bool) -> Int {
        ProcessInfo.processInfo.environment["ENDPOINTS_BENCH_ROUNDS"].flatMap { Int($0) } ?? (quick ? 4 : 8)
    }

    /// What the Endpoints side runs, for finding where its cost is (ENDPOINTS_BENCH_OURS):
    /// `pipeline` is the whole library; `unlimited` the same with no per-host limit; `transport`
    /// only `URLSessionTransport.send` + the decoder; `pipeline-over-raw` the pipeline over a
    /// transport that calls `URLSession.data(for:)`; `raw` the raw code on the other session (an
    /// A/A run: its ratios show the noise); `raw-handler` raw code with
    /// `dataTask(with:completionHandler:)`, which every public completion handler is; `timed` the
    /// pipeline over a `URLSessionTransport` with no host limit, and `timed-raw` the raw code, each
    /// printing where its wall time went in the run itself (one request in flight).
    enum OurSide: String {
        case pipeline, transport, pipelineOverRaw = "pipeline-over-raw", raw
        /// The whole library over a `URLSessionTransport` with no per-host limit.
        case unlimited
        /// Raw code with `dataTask(with:completionHandler:)` in place of `data(for:)`.
        case rawHandler = "raw-handler"
        case timed, timedRaw = "timed-raw"
    }

    static var ourSide: OurSide {
        ProcessInfo.processInfo.environment["ENDPOINTS_BENCH_OURS"].flatMap(OurSide.init(rawValue:)) ?? .pipeline
    }

    static func compare(backend: Backend, inFlight: Int, quick: Bool) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let stealBefore = StolenTime.now()
        let latency = UInt64(backend.latencyMilliseconds) * 1_000_000
        server.route("/item") { _ in
            if latency > 0 { try? await Task.sleep(nanoseconds: latency) }
            return .json(raw: payload)
        }
        let url = server.url("/item")
        // A session per side, so that each side's connections are its own to count.
        let rawSession = URLSession(configuration: .default)
        let ourSession = URLSession(configuration: .default)
        defer {
            rawSession.finishTasksAndInvalidate()
            ourSession.finishTasksAndInvalidate()
        }
        let perRound = max(inFlight * 4, backend.baseCount * min(inFlight, 6) / rounds(quick))
        var ours: [Sample] = []
        var raw: [Sample] = []
        let split = WallSplit()
        let counter = { server.connectionCount }
        // One warm-up request per side opens the first connection outside the measurement.
        _ = try await rawSession.data(for: URLRequest(url: url))
        _ = try await ourSession.response(with: ItemEndpoint(), environment: server.baseURL)
        for round in 0..<rounds(quick) {
            let rawSide: @Sendable () async throws -> Void = {
                let (data, _) = try await rawSession.data(for: URLRequest(url: url))
                _ = try decoder.decode(Item.self, from: data)
            }
            let ourSide: @Sendable () async throws -> Void
            switch Self.ourSide {
            case .pipeline:
                ourSide = { _ = try await ourSession.response(with: ItemEndpoint(), environment: server.baseURL) }
            case .unlimited:
                let client = EndpointClient(
                    transport: URLSessionTransport(session: ourSession, maximumRequestsPerHost: nil))
                ourSide = { _ = try await client.response(with: ItemEndpoint(), environment: server.baseURL) }
            case .transport:
                let transport = URLSessionTransport(session: ourSession, maximumRequestsPerHost: nil)
                let context = RequestContext(endpointName: "ItemEndpoint")
                ourSide = {
                    let (data, _) = try await transport.send(URLRequest(url: url), context: context)
                    _ = try decoder.decode(Item.self, from: data)
                }
            case .timed:
                let client = EndpointClient(
                    transport: TimedTransport(
                        inner: URLSessionTransport(session: ourSession, maximumRequestsPerHost: nil), split: split))
                ourSide = {
                    let start = DispatchTime.now().uptimeNanoseconds
                    _ = try await TimedTransport.$callStart.withValue(start) {
                        try await client.response(with: ItemEndpoint(), environment: server.baseURL)
                    }
                    split.finish(start: start, end: DispatchTime.now().uptimeNanoseconds)
                }
            case .timedRaw:
                ourSide = {
                    let start = DispatchTime.now().uptimeNanoseconds
                    let request = URLRequest(url: url)
                    let sent = DispatchTime.now().uptimeNanoseconds
                    let (data, _) = try await ourSession.data(for: request)
                    split.sent(at: sent, answered: DispatchTime.now().uptimeNanoseconds, callStart: start)
                    _ = try decoder.decode(Item.self, from: data)
                    split.finish(start: start, end: DispatchTime.now().uptimeNanoseconds)
                }
            case .pipelineOverRaw:
                let client = EndpointClient(transport: DataForTransport(session: ourSession))
                ourSide = { _ = try await client.response(with: ItemEndpoint(), environment: server.baseURL) }
            case .rawHandler:
                ourSide = {
                    let data: Data = try await withCheckedThrowingContinuation { continuation in
                        ourSession.dataTask(with: URLRequest(url: url)) { data, _, error in
                            if let data {
                                continuation.resume(returning: data)
                            } else {
                                continuation.resume(throwing: error ?? URLError(.badServerResponse))
                            }
                        }.resume()
                    }
                    _ = try decoder.decode(Item.self, from: data)
                }
            case .raw:
                ourSide = {
                    let (data, _) = try await ourSession.data(for: URLRequest(url: url))
                    _ = try decoder.decode(Item.self, from: data)
                }
            }
            // ENDPOINTS_BENCH_ONLY=raw or =ours runs one side, for a profiler to see it alone.
            if let only = ProcessInfo.processInfo.environment["ENDPOINTS_BENCH_ONLY"] {
                let sample = try await measure(
                    count: perRound, inFlight: inFlight, connections: counter, only == "raw" ? rawSide : ourSide)
                raw.append(sample)
                ours.append(sample)
                continue
            }
            // Alternate which side goes first, so neither always runs on a warmer machine.
            if round.isMultiple(of: 2) {
                raw.append(try await measure(count: perRound, inFlight: inFlight, connections: counter, rawSide))
                ours.append(try await measure(count: perRound, inFlight: inFlight, connections: counter, ourSide))
            } else {
                ours.append(try await measure(count: perRound, inFlight: inFlight, connections: counter, ourSide))
                raw.append(try await measure(count: perRound, inFlight: inFlight, connections: counter, rawSide))
            }
        }
        if let line = split.report(requests: ours.map(\.requests).reduce(0, +)) { print(line) }
        let rawTotal = raw.reduce(into: Sample()) { $0 += $1 }
        let ourTotal = ours.reduce(into: Sample()) { $0 += $1 }
        let throughputRatios = zip(ours, raw).map { $0.rate / $1.rate }
        let cpuRatios = zip(ours, raw).map { $0.cpuPerRequest / $1.cpuPerRequest }
        let throughput = median(throughputRatios)
        let cpu = median(cpuRatios)
        let throughputRange = medianInterval(throughputRatios)
        let cpuRange = medianInterval(cpuRatios)
        print(
            String(
                format:
                    "  %@, %2d in flight: raw %6.0f req/s %6.1f µs CPU %4d conn | Endpoints %6.0f req/s %6.1f µs CPU %4d conn | throughput %.3f× (%.3f–%.3f), CPU %.3f× (%.3f–%.3f)",
                backend.name, inFlight,
                rawTotal.rate, rawTotal.cpuPerRequest * 1e6, rawTotal.connections,
                ourTotal.rate, ourTotal.cpuPerRequest * 1e6, ourTotal.connections,
                throughput, throughputRange.low, throughputRange.high, cpu, cpuRange.low, cpuRange.high
            ) + StolenTime.since(stealBefore)
        )
    }

    /// The median of per-round ratios: the rounds of a pair ran back to back on the same machine.
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return (sorted[sorted.count / 2] + sorted[(sorted.count - 1) / 2]) / 2
    }

    /// A distribution-free 95% confidence interval for the median of `values`: the k-th smallest
    /// and k-th largest value, with k the largest rank such that a binomial(n, ½) count falls below
    /// it with probability at most 2.5%. Per-round ratios are not normal (a busy moment on a shared
    /// machine makes one round an outlier), so no mean and standard deviation. With fewer than 6
    /// values no such interval exists, and the whole range is returned.
    static func medianInterval(_ values: [Double]) -> (low: Double, high: Double) {
        let sorted = values.sorted()
        let n = sorted.count
        guard n > 0 else { return (.nan, .nan) }
        // P(X <= j) for X ~ binomial(n, 1/2), accumulated term by term in logarithms.
        var rank = 0
        var cumulative = 0.0
        var logTerm = -Double(n) * log(2.0)  // log C(n, 0) / 2^n
        for j in 0..<n {
            cumulative += exp(logTerm)
            if cumulative > 0.025 { break }
            rank = j + 1
            logTerm += log(Double(n - j)) - log(Double(j + 1))
        }
        guard rank > 0 else { return (sorted[0], sorted[n - 1]) }
        return (sorted[rank - 1], sorted[n - rank])
    }

    struct Sample {
        var requests = 0
        var seconds = 0.0
        var cpuSeconds = 0.0
        var connections = 0

        var rate: Double { Double(requests) / seconds }
        var cpuPerRequest: Double { cpuSeconds / Double(requests) }

        static func += (lhs: inout Sample, rhs: Sample) {
            lhs.requests += rhs.requests
            lhs.seconds += rhs.seconds
            lhs.cpuSeconds += rhs.cpuSeconds
            lhs.connections += rhs.connections
        }
    }

    static let settleMilliseconds =
        ProcessInfo.processInfo.environment["ENDPOINTS_BENCH_SETTLE_MS"].flatMap { UInt64($0) } ?? 100

    /// Sends `count` requests, `inFlight` at a time, each with `request`: one round of one side.
    static func measure(
        count: Int,
        inFlight: Int,
        connections: () async -> Int,
        _ request: @escaping @Sendable () async throws -> Void
    ) async throws -> Sample {
        try await measureRound(count: count, connections: connections) {
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
        }
    }

    /// Times `round`, which sends `count` requests: its wall time, this process's CPU time (user
    /// and system, every thread), and the connections the server accepted meanwhile (`connections`
    /// counts them so far).
    static func measureRound(
        count: Int, connections: () async -> Int, _ round: () async throws -> Void
    ) async throws -> Sample {
        // Let the previous round's connections settle first (outside the measurement): raw code at 16
        // in flight churns connections whose teardown, in client and server threads, otherwise lands
        // in the next round and is charged to the other side (ENDPOINTS_BENCH_SETTLE_MS, 100 by default).
        try await Task.sleep(nanoseconds: settleMilliseconds * 1_000_000)
        let connectionsBefore = await connections()
        let cpuBefore = cpuTime()
        let start = DispatchTime.now().uptimeNanoseconds
        try await round()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let cpuSeconds = cpuTime() - cpuBefore
        return Sample(
            requests: count,
            seconds: seconds,
            cpuSeconds: cpuSeconds,
            connections: await connections() - connectionsBefore
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
