#if canImport(FoundationNetworking)
    import Endpoints
    import EndpointsTestServer
    import Foundation
    import FoundationNetworking

    // endpoints-bench sockets: what open WebSockets cost the requests beside them on one
    // `CurlTransport`, whose loop thread carries both. GETs of a small JSON body, one at a time, to
    // the in-process test server while 0, 100 and 300 WebSockets to the same server stay open and
    // idle; for each level, the loop thread's CPU per request (from /proc: the transport's own
    // work, not the server's), the process's, and the connections the server accepted (a request
    // whose connection was not kept connects again). The levels run in turn, rounds alternating
    // within none of them (a WebSocket once open stays open), so read the ratios to the level
    // without WebSockets as "the same" or "not", not to the second digit.
    enum OpenSocketsBenchmark {
        static func run(quick: Bool) async throws {
            let server = try TestServer()
            defer { server.stop() }
            // The echo benchmark's endpoint, on the test server's own WebSocket route.
            server.route("/echo") { request in .webSocket(request) { text in [text] } }
            server.route("/item") { _ in .json(raw: EndToEndBenchmark.payload) }
            let client = EndpointClient(transport: try CurlTransport())
            let rounds = quick ? 3 : 6
            let perRound = quick ? 1_000 : 2_000
            print("Requests beside open WebSockets on one CurlTransport (loopback test server, one GET at a time,")
            print("  \(rounds) rounds of \(perRound); medians; the loop thread's CPU is the transport's own work):")
            var open: [WebSocketConnection<EchoRoundTrip>] = []
            var baseline: Double?
            for level in [0, 100, 300] {
                while open.count < level {
                    open.append(try await client.webSocket(EchoRoundTrip(), environment: server.baseURL))
                }
                _ = try await round(client, server, count: perRound)  // warm-up
                var loop: [Double] = []
                var process: [Double] = []
                var connections = 0
                for _ in 0..<rounds {
                    let sample = try await round(client, server, count: perRound)
                    loop.append(sample.loop)
                    process.append(sample.process)
                    connections += sample.connections
                }
                let loopMedian = EndToEndBenchmark.median(loop)
                let ratio = baseline.map { String(format: "%.2f×", loopMedian / $0) } ?? "1×"
                baseline = baseline ?? loopMedian
                let processMedian = EndToEndBenchmark.median(process)
                print(
                    String(format: "  %3d WebSockets: loop thread %6.1f µs/request", level, loopMedian * 1e6),
                    "(\(ratio)),",
                    String(format: "process %6.1f µs/request, %d new connections", processMedian * 1e6, connections))
            }
            for connection in open { try connection.close() }
        }

        private static func round(
            _ client: EndpointClient, _ server: TestServer, count: Int
        ) async throws -> (loop: Double, process: Double, connections: Int) {
            let connectionsBefore = server.connectionCount
            let loopBefore = loopThreadCPU()
            let processBefore = EndToEndBenchmark.cpuTime()
            for _ in 0..<count { _ = try await client.response(with: ItemEndpoint(), environment: server.baseURL) }
            return (
                (loopThreadCPU() - loopBefore) / Double(count),
                (EndToEndBenchmark.cpuTime() - processBefore) / Double(count),
                server.connectionCount - connectionsBefore
            )
        }

        /// The CPU seconds of the process's "Endpoints curl" threads (10 ms ticks).
        private static func loopThreadCPU() -> Double {
            var ticks = 0.0
            for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? [] {
                guard
                    let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
                    name.hasPrefix("Endpoints curl"),
                    let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                    let fields = stat.split(separator: ")").last?.split(separator: " "), fields.count > 12
                else { continue }
                // After the name: state, ppid, … utime (the 12th), stime (the 13th).
                ticks += (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
            }
            return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
        }
    }
#endif
