import Endpoints
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// End to end against nginx, a process of its own (scripts/bench-nginx.sh starts it), so that the
// CPU counted is the client's alone: three contenders in alternating rounds in one process, GET +
// decode of a ~198-byte JSON with keep-alive:
//   raw       URLSession.data(for:) + JSONDecoder, a session of its own (what Foundation costs);
//   Endpoints EndpointClient(), the default client (libcurl on Linux), a typed endpoint through the
//             whole pipeline, decoding included;
//   floor     BareCurlLoop: the same libcurl driven by a bare loop, nothing else (the floor).
// Then the same at a backend that answers after 20 ms, and a 1 GB download, to a file against
// `curl -o FILE` and streamed against `curl -o /dev/null` (NginxDownload). The figures are what
// issue 38 asks of the libcurl transport.

enum NginxBenchmark {
    /// Runs every part, or only the one `only` names: `e2e`, `slow` or `download`.
    static func run(base: URL, quick: Bool, only: String?) async throws {
        #if canImport(FoundationNetworking)
            let environment = ProcessInfo.processInfo.environment
            let levels =
                environment["ENDPOINTS_BENCH_LEVELS"].map { $0.split(separator: ",").compactMap { Int($0) } }
                ?? [1, 16, 64]
            print("End to end against nginx (\(base.absoluteString)), GET + decode of a ~198-byte JSON, keep-alive:")
            print("  raw URLSession.data(for:) + JSONDecoder, Endpoints' EndpointClient() (libcurl), and the bare")
            print(
                "  libcurl loop (the floor); \(rounds(quick)) rounds rotating the order, CPU is this process's alone;")
            print("  ratios are medians of per-round ratios, with their 95% confidence interval in parentheses")
            var rows: [Row] = []
            if only == nil || only == "e2e" {
                for inFlight in levels {
                    rows.append(
                        try await compare(
                            "loopback", base: base, inFlight: inFlight, perRound: quick ? 1_000 : 4_000, quick: quick))
                }
            }
            if only == nil || only == "slow" {
                // nginx answers /slow/item after 20 ms (see scripts/bench-nginx.sh).
                rows.append(
                    try await compare(
                        "20 ms backend", base: base.appendingPathComponent("slow"), inFlight: 16,
                        perRound: quick ? 160 : 400, quick: quick))
            }
            if !rows.isEmpty { printTable(rows) }
            if only == nil || only == "download" {
                try await NginxDownload.run(base: base, pairs: quick ? 2 : 3)
            }
        #else
            print("endpoints-bench nginx: the libcurl transport and its floor exist on Linux only")
        #endif
    }

    /// ENDPOINTS_BENCH_ROUNDS=N sets the rounds; a multiple of 6 puts each side in each position
    /// of the order equally often.
    static func rounds(_ quick: Bool) -> Int {
        ProcessInfo.processInfo.environment["ENDPOINTS_BENCH_ROUNDS"].flatMap { Int($0) } ?? (quick ? 6 : 12)
    }

    /// One backend and level: each side's totals and the per-round ratios' medians and intervals.
    struct Row {
        let backend: String
        let inFlight: Int
        let raw: EndToEndBenchmark.Sample
        let ours: EndToEndBenchmark.Sample
        let floor: EndToEndBenchmark.Sample
        /// Endpoints against raw (throughput, CPU per request), and against the floor.
        let throughput: Ratio
        let cpu: Ratio
        let floorThroughput: Ratio
        let floorCPU: Ratio
    }

    struct Ratio {
        let median: Double
        let low: Double
        let high: Double

        init(_ values: [Double]) {
            median = EndToEndBenchmark.median(values)
            (low, high) = EndToEndBenchmark.medianInterval(values)
        }

        var text: String { String(format: "%.3f× (%.3f–%.3f)", median, low, high) }
    }

    #if canImport(FoundationNetworking)
        enum Side: CaseIterable {
            case raw, ours, floor
        }

        /// The six orders of the three sides, one per round in turn.
        static let orders: [[Side]] = [
            [.raw, .ours, .floor], [.ours, .floor, .raw], [.floor, .raw, .ours],
            [.raw, .floor, .ours], [.floor, .ours, .raw], [.ours, .raw, .floor],
        ]

        static func compare(
            _ backend: String, base: URL, inFlight: Int, perRound: Int, quick: Bool
        ) async throws -> Row {
            let stealBefore = StolenTime.now()
            let url = base.appendingPathComponent("item")
            let rawSession = URLSession(configuration: .default)
            defer { rawSession.finishTasksAndInvalidate() }
            let client = EndpointClient()
            let floor = try BareCurlLoop(url: url, inFlight: inFlight)
            let decoder = EndToEndBenchmark.decoder
            let rawSide: @Sendable () async throws -> Void = {
                let (data, _) = try await rawSession.data(for: URLRequest(url: url))
                _ = try decoder.decode(Item.self, from: data)
            }
            let ourSide: @Sendable () async throws -> Void = {
                _ = try await client.response(with: ItemEndpoint(), environment: base)
            }
            let status = NginxStatus(base: base)
            let count = max(perRound, inFlight * 4)
            func measure(_ side: Side, count: Int) async throws -> EndToEndBenchmark.Sample {
                switch side {
                case .raw:
                    return try await EndToEndBenchmark.measure(
                        count: count, inFlight: inFlight, connections: status.accepted, rawSide)
                case .ours:
                    return try await EndToEndBenchmark.measure(
                        count: count, inFlight: inFlight, connections: status.accepted, ourSide)
                case .floor:
                    return try await EndToEndBenchmark.measureRound(count: count, connections: status.accepted) {
                        let failures = floor.run(count: count)
                        if failures > 0 { print("  (the floor: \(failures) of \(count) requests failed)") }
                    }
                }
            }
            // A warm-up round per side opens its connections outside the measurement.
            for side in Side.allCases { _ = try await measure(side, count: inFlight * 4) }
            // ENDPOINTS_BENCH_ONLY=raw, ours or floor runs one side, for a profiler to see it alone.
            let only = ProcessInfo.processInfo.environment["ENDPOINTS_BENCH_ONLY"]
            var samples: [Side: [EndToEndBenchmark.Sample]] = [:]
            for round in 0..<rounds(quick) {
                for side in orders[round % orders.count] {
                    let name = only.map { $0 == "raw" ? Side.raw : $0 == "floor" ? .floor : .ours }
                    samples[side, default: []].append(try await measure(name ?? side, count: count))
                }
            }
            let raw = samples[.raw] ?? []
            let ours = samples[.ours] ?? []
            let bare = samples[.floor] ?? []
            let row = Row(
                backend: backend, inFlight: inFlight,
                raw: total(raw), ours: total(ours), floor: total(bare),
                throughput: Ratio(zip(ours, raw).map { $0.rate / $1.rate }),
                cpu: Ratio(zip(ours, raw).map { $0.cpuPerRequest / $1.cpuPerRequest }),
                floorThroughput: Ratio(zip(ours, bare).map { $0.rate / $1.rate }),
                floorCPU: Ratio(zip(ours, bare).map { $0.cpuPerRequest / $1.cpuPerRequest })
            )
            print(
                String(
                    format:
                        "  %@, %2d in flight: raw %6.0f req/s %6.1f µs %3d conn | Endpoints %6.0f req/s %5.1f µs %3d conn | floor %6.0f req/s %5.1f µs %3d conn",
                    backend, inFlight,
                    row.raw.rate, row.raw.cpuPerRequest * 1e6, row.raw.connections,
                    row.ours.rate, row.ours.cpuPerRequest * 1e6, row.ours.connections,
                    row.floor.rate, row.floor.cpuPerRequest * 1e6, row.floor.connections
                ) + StolenTime.since(stealBefore))
            print("    Endpoints/raw: throughput \(row.throughput.text), CPU \(row.cpu.text)")
            print("    Endpoints/floor: throughput \(row.floorThroughput.text), CPU \(row.floorCPU.text)")
            return row
        }

        static func total(_ samples: [EndToEndBenchmark.Sample]) -> EndToEndBenchmark.Sample {
            samples.reduce(into: EndToEndBenchmark.Sample()) { $0 += $1 }
        }

        /// The table BENCHMARKS.md carries, with issue 38's goals checked against the medians.
        static func printTable(_ rows: [Row]) {
            print("")
            print("| backend, in flight | raw URLSession | Endpoints (libcurl) | bare libcurl loop |", terminator: "")
            print(" Endpoints/raw req/s | Endpoints/raw CPU | Endpoints/floor CPU | Endpoints/floor req/s |")
            print("| --- | --- | --- | --- | --- | --- | --- | --- |")
            func side(_ sample: EndToEndBenchmark.Sample) -> String {
                String(format: "%.0f req/s, %.1f µs", sample.rate, sample.cpuPerRequest * 1e6)
            }
            for row in rows {
                print(
                    "| \(row.backend), \(row.inFlight) | \(side(row.raw)) | \(side(row.ours)) | \(side(row.floor)) "
                        + "| \(row.throughput.text) | \(row.cpu.text) | \(row.floorCPU.text) | \(row.floorThroughput.text) |"
                )
            }
            print("")
            for row in rows {
                let goals: [(String, Bool)]
                if row.backend == "loopback", row.inFlight >= 16 {
                    goals = [
                        ("≥ 5× raw's req/s", row.throughput.median >= 5),
                        ("≤ 0.12× raw's CPU", row.cpu.median <= 0.12),
                        ("≤ 2.5× the floor's CPU", row.floorCPU.median <= 2.5),
                    ]
                } else if row.backend != "loopback" {
                    goals = [
                        ("≥ 0.95× the floor's req/s", row.floorThroughput.median >= 0.95),
                        ("≤ 0.15× raw's CPU", row.cpu.median <= 0.15),
                    ]
                } else {
                    continue
                }
                let text = goals.map { "\($0.0): \($0.1 ? "met" : "MISSED")" }.joined(separator: "; ")
                print("  goals (issue 38), \(row.backend), \(row.inFlight) in flight: \(text)")
            }
        }
    #endif
}

/// nginx's count of accepted connections (`stub_status`), read between rounds with a session of
/// its own, so that each side's connections can be counted.
struct NginxStatus: Sendable {
    let url: URL
    let session = URLSession(configuration: .ephemeral)

    init(base: URL) {
        // The status page is at the server's root, whichever backend `base` names.
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false)
        components?.path = "/status"
        url = components?.url ?? base
    }

    /// `server accepts handled requests` / `N N N`: the first N; 0 when it cannot be read.
    func accepted() async -> Int {
        guard let (data, _) = try? await session.data(for: URLRequest(url: url)),
            let text = String(data: data, encoding: .utf8)
        else { return 0 }
        let lines = text.split(separator: "\n")
        guard lines.count > 2 else { return 0 }
        return lines[2].split(separator: " ").first.flatMap { Int($0) } ?? 0
    }
}
