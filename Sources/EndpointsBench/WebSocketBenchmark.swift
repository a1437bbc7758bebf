import Endpoints
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// WebSocket echo round trips on loopback (issue 39), against the `websockets` package's echo server,
// a Python process of its own (scripts/bench-websockets.sh starts it): Endpoints'
// `EndpointClient().webSocket(_:)` (libcurl on Linux) against the `websockets` package's own client
// (scripts/websocket-peers/bench_client.py, a process this benchmark starts and asks for one round
// at a time), in alternating rounds, at 1 and at 100 connections. A message is one round trip: a
// 32-byte text message sent and its echo received before the next is sent on the same connection;
// each connection does the same number in a round, all of them at once. CPU is each client's own
// process CPU time (user and system) over its round, per message: getrusage here,
// time.process_time() there. The server is the same for both, and both sides' connections stay
// open from one round to the next (opened before a warm-up round, outside the measurement).

/// Text messages to and from the echo server's `/echo`.
struct EchoRoundTrip: WebSocketEndpoint {
    typealias Server = LoopbackServer
    typealias Response = Void
    typealias Outgoing = String
    typealias Incoming = String
    static let definition: Definition<EchoRoundTrip> = Definition(path: "echo")
}

enum WebSocketBenchmark {
    /// The message both clients send: 32 bytes of ASCII (bench_client.py sends the same).
    static let message = "abcdefghijklmnopqrstuvwxyz012345"

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// One level: its connections, and each one's round trips in a round.
    struct Level {
        let connections: Int
        let perConnection: Int
    }

    /// One level's totals and the per-round ratios (Endpoints over websockets).
    struct Row {
        let level: Level
        let reference: EndToEndBenchmark.Sample
        let ours: EndToEndBenchmark.Sample
        let throughput: NginxBenchmark.Ratio
        let cpu: NginxBenchmark.Ratio
    }

    /// `echo`: the echo server's ws:// base URL; `python` and `client`: the interpreter (with the
    /// `websockets` package) and bench_client.py.
    static func run(echo: URL, python: String, client: String, quick: Bool) async throws {
        let rounds =
            ProcessInfo.processInfo.environment["ENDPOINTS_BENCH_ROUNDS"].flatMap { Int($0) } ?? (quick ? 6 : 12)
        let levels = [
            Level(connections: 1, perConnection: quick ? 500 : 2_000),
            Level(connections: 100, perConnection: quick ? 10 : 40),
        ]
        print("WebSocket echo round trips against the `websockets` echo server (\(echo.absoluteString)), 32-byte text:")
        print("  the `websockets` package's own client (Python, a process of its own) against Endpoints' client")
        print("  (libcurl on Linux); \(rounds) rounds alternating which goes first; CPU is each client process's own;")
        print("  ratios are medians of per-round ratios, with their 95% confidence interval in parentheses.")
        print("  Endpoints' client is EndpointClient()")
        let reference = try ReferenceClient(python: python, script: client, echo: echo)
        defer { reference.finish() }
        var rows: [Row] = []
        for level in levels {
            rows.append(try await compare(level, echo: echo, reference: reference, rounds: rounds))
        }
        printTable(rows)
    }

    static func compare(_ level: Level, echo: URL, reference: ReferenceClient, rounds: Int) async throws -> Row {
        let stealBefore = StolenTime.now()
        let ourConnections = try await EchoConnections(count: level.connections, echo: echo)
        // A warm-up round a side; the reference opens its connections in its first.
        _ = try await ourConnections.round(perConnection: level.perConnection)
        _ = try reference.round(level)
        var ours: [EndToEndBenchmark.Sample] = []
        var theirs: [EndToEndBenchmark.Sample] = []
        for round in 0..<rounds {
            if round.isMultiple(of: 2) {
                ours.append(try await ourConnections.round(perConnection: level.perConnection))
                theirs.append(try reference.round(level))
            } else {
                theirs.append(try reference.round(level))
                ours.append(try await ourConnections.round(perConnection: level.perConnection))
            }
        }
        await ourConnections.close()
        let row = Row(
            level: level,
            reference: theirs.reduce(into: EndToEndBenchmark.Sample()) { $0 += $1 },
            ours: ours.reduce(into: EndToEndBenchmark.Sample()) { $0 += $1 },
            throughput: NginxBenchmark.Ratio(zip(ours, theirs).map { $0.rate / $1.rate }),
            cpu: NginxBenchmark.Ratio(zip(ours, theirs).map { $0.cpuPerRequest / $1.cpuPerRequest })
        )
        print(
            String(
                format:
                    "  %3d connection(s): websockets %6.0f msg/s %6.1f µs CPU/msg | Endpoints %6.0f msg/s %6.1f µs CPU/msg",
                level.connections, row.reference.rate, row.reference.cpuPerRequest * 1e6,
                row.ours.rate, row.ours.cpuPerRequest * 1e6
            ) + StolenTime.since(stealBefore))
        print("    Endpoints/websockets: messages/s \(row.throughput.text), CPU/message \(row.cpu.text)")
        return row
    }

    /// The table BENCHMARKS.md carries.
    static func printTable(_ rows: [Row]) {
        print("")
        print("| connections | `websockets` client (Python) | Endpoints | Endpoints/websockets msg/s |", terminator: "")
        print(" Endpoints/websockets CPU/msg |")
        print("| --- | --- | --- | --- | --- |")
        func side(_ sample: EndToEndBenchmark.Sample) -> String {
            String(format: "%.0f msg/s, %.1f µs CPU/msg", sample.rate, sample.cpuPerRequest * 1e6)
        }
        for row in rows {
            print(
                "| \(row.level.connections) | \(side(row.reference)) | \(side(row.ours)) | \(row.throughput.text) "
                    + "| \(row.cpu.text) |")
        }
    }
}

/// `count` connections to the echo server, each read and written by a task of its own, a round at
/// a time when ``round(perConnection:)`` says so. Not shared between tasks: the benchmark's one task
/// drives it.
final class EchoConnections {
    private let connections: [WebSocketConnection<EchoRoundTrip>]
    private let commands: [AsyncStream<Int>.Continuation]
    private let workers: [Task<Void, Never>]
    /// Each worker's end of a round: `nil`, or what went wrong.
    private var done: AsyncStream<String?>.Iterator

    init(count: Int, echo: URL) async throws {
        let client = EndpointClient()
        var connections: [WebSocketConnection<EchoRoundTrip>] = []
        for _ in 0..<count {
            connections.append(try await client.webSocket(EchoRoundTrip(), environment: echo))
        }
        let (ends, ended) = AsyncStream<String?>.makeStream()
        var commands: [AsyncStream<Int>.Continuation] = []
        var workers: [Task<Void, Never>] = []
        for connection in connections {
            let (rounds, command) = AsyncStream<Int>.makeStream()
            commands.append(command)
            workers.append(Task { await EchoConnections.work(connection, rounds: rounds, ended: ended) })
        }
        self.connections = connections
        self.commands = commands
        self.workers = workers
        done = ends.makeAsyncIterator()
    }

    /// For each count read from `rounds`, that many round trips, one after the other.
    private static func work(
        _ connection: WebSocketConnection<EchoRoundTrip>, rounds: AsyncStream<Int>,
        ended: AsyncStream<String?>.Continuation
    ) async {
        var replies = connection.makeAsyncIterator()
        for await count in rounds {
            var failure: String?
            do {
                for _ in 0..<count {
                    try await connection.send(WebSocketBenchmark.message)
                    let reply = try await replies.next()
                    guard reply == WebSocketBenchmark.message else {
                        failure = "the echo was \(reply.debugDescription)"
                        break
                    }
                }
            } catch {
                failure = "\(error)"
            }
            ended.yield(failure)
        }
    }

    /// One round: `perConnection` round trips on every connection at once; its wall time and this
    /// process's CPU time.
    func round(perConnection: Int) async throws -> EndToEndBenchmark.Sample {
        let cpuBefore = EndToEndBenchmark.cpuTime()
        let start = DispatchTime.now().uptimeNanoseconds
        for command in commands { command.yield(perConnection) }
        var failures: [String] = []
        for _ in commands {
            switch await done.next() {
            case .some(nil): break
            case .some(let failure?): failures.append(failure)
            case nil: failures.append("the connections' tasks ended")
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let cpuSeconds = EndToEndBenchmark.cpuTime() - cpuBefore
        if let first = failures.first {
            throw WebSocketBenchmark.Failure(description: "\(failures.count) connection(s) failed: \(first)")
        }
        return EndToEndBenchmark.Sample(
            requests: commands.count * perConnection, seconds: seconds, cpuSeconds: cpuSeconds, connections: 0)
    }

    func close() async {
        for command in commands { command.finish() }
        for worker in workers { await worker.value }
        for connection in connections { try? connection.close() }
    }
}

/// scripts/websocket-peers/bench_client.py, a process of its own: a line `C M` on its standard
/// input asks for a round (C connections, M round trips each), and it answers with one line of
/// JSON, the round's messages, wall time and its own CPU time.
final class ReferenceClient {
    private struct Round: Decodable {
        let messages: Int
        let seconds: Double
        let cpu: Double
    }

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var pending = Data()

    init(python: String, script: String, echo: URL) throws {
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, echo.absoluteString]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// One round, blocking until the client answers (this benchmark's own connections are idle
    /// meanwhile).
    func round(_ level: WebSocketBenchmark.Level) throws -> EndToEndBenchmark.Sample {
        try input.fileHandleForWriting.write(contentsOf: Data("\(level.connections) \(level.perConnection)\n".utf8))
        while !pending.contains(UInt8(ascii: "\n")) {
            let more = output.fileHandleForReading.availableData
            guard !more.isEmpty else {
                throw WebSocketBenchmark.Failure(description: "the websockets client ended (its stderr is above)")
            }
            pending.append(more)
        }
        let newline = pending.firstIndex(of: UInt8(ascii: "\n"))!
        let line = pending[pending.startIndex..<newline]
        pending = Data(pending[(newline + 1)...])
        let round = try JSONDecoder().decode(Round.self, from: line)
        return EndToEndBenchmark.Sample(
            requests: round.messages, seconds: round.seconds, cpuSeconds: round.cpu, connections: 0)
    }

    /// Ends its input, so that it closes its connections and exits, and waits for it.
    func finish() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
