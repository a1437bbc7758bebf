import Foundation

// endpoints-bench: `swift run -c release endpoints-bench [build|e2e|auth|all]`
//   build  request building, against hand-written URLComponents + URLRequest code
//   e2e    GET + decode at 1, 4, 16, 64 in flight, on loopback and against a 20 ms backend, against
//          raw URLSession.data(for:) + JSONDecoder (`--quick` for fewer requests)
//   pipeline  the pipeline's own CPU per request, over a transport that answers at once, without
//          and with an event listener (`--only=NoAuth` and so on: one case, by its label)
//   pipeline-rounds N  NoAuth, one round of N requests a side per line read (scripts/bench-against.py)
//   auth   a 1,000-request burst with expired tokens, against the same burst with valid tokens
//   stream a 1 GB download to a file (peak RSS above idle), and server-sent events per second
//          against a hand-written URLSessionDataDelegate reader, and the SSE and JSON-lines parsers
//          alone in memory (`--quick`: 256 MB, fewer events; `--only=download|events|parsers`)
//   cache  HTTPCache: a fresh hit against a loopback round trip, and 100 coalesced GETs
//   nginx --url=URL  against nginx in a process of its own (scripts/bench-nginx.sh starts it and
//          passes the URL; not part of `all`): raw URLSession, EndpointClient() on libcurl and the
//          bare libcurl loop at 1, 16, 64 in flight and at a 20 ms backend, then a 1 GB download
//          against `curl -o /dev/null` (`--quick`; `--only=e2e|slow|download`)
//   sockets  what 0, 100 and 300 open, idle WebSockets cost the requests beside them on one
//          CurlTransport (Linux; the in-process test server; not part of `all`; `--quick`)
//   websocket  echo round trips at 1 and 100 connections against the `websockets` package's echo
//          server, with that package's own client as the reference (scripts/bench-websockets.sh
//          starts the server and passes ENDPOINTS_WS_ECHO_URL; not part of `all`; `--quick`,
//          `--python=PATH` and `--client=PATH` for the interpreter and bench_client.py)
let mode = CommandLine.arguments.dropFirst().first ?? "all"
if mode == "build" || mode == "all" {
    BuildBenchmark.run(count: 200_000)
}
if mode == "e2e" || mode == "all" {
    try await EndToEndBenchmark.run(quick: CommandLine.arguments.contains("--quick"))
}
if mode == "pipeline" || mode == "all" {
    let only = CommandLine.arguments.first { $0.hasPrefix("--only=") }.map { String($0.dropFirst("--only=".count)) }
    // `--count=N`: fewer requests, for counting instructions under valgrind (`Docs/benchmarks`).
    let count = CommandLine.arguments.first { $0.hasPrefix("--count=") }.flatMap { Int($0.dropFirst("--count=".count)) }
    try await PipelineBenchmark.run(count: count ?? 200_000, only: only)
}
if mode == "pipeline-rounds" {
    // One NoAuth round per line of input, for scripts/bench-against.py.
    try await PipelineRounds.serve(perRound: CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 2_000)
}
if mode == "auth" || mode == "all" {
    try await runAuthBurstBenchmark()
}
if mode == "stream" || mode == "all" {
    let only = CommandLine.arguments.first { $0.hasPrefix("--only=") }.map { String($0.dropFirst("--only=".count)) }
    try await StreamingBenchmark.run(quick: CommandLine.arguments.contains("--quick"), only: only)
}
if mode == "cache" || mode == "all" {
    try await CacheBenchmark.run()
}
if mode == "nginx" {
    let argument = CommandLine.arguments.first { $0.hasPrefix("--url=") }.map { String($0.dropFirst("--url=".count)) }
    guard let base = argument.flatMap(URL.init(string:)) else {
        print("endpoints-bench nginx needs --url=http://127.0.0.1:PORT (scripts/bench-nginx.sh passes it)")
        exit(2)
    }
    let only = CommandLine.arguments.first { $0.hasPrefix("--only=") }.map { String($0.dropFirst("--only=".count)) }
    try await NginxBenchmark.run(base: base, quick: CommandLine.arguments.contains("--quick"), only: only)
}
#if canImport(FoundationNetworking)
    if mode == "sockets" {
        try await OpenSocketsBenchmark.run(quick: CommandLine.arguments.contains("--quick"))
    }
#endif
if mode == "websocket" {
    func argument(_ name: String) -> String? {
        CommandLine.arguments.first { $0.hasPrefix(name) }.map { String($0.dropFirst(name.count)) }
    }
    guard let echo = ProcessInfo.processInfo.environment["ENDPOINTS_WS_ECHO_URL"].flatMap(URL.init(string:)) else {
        print("endpoints-bench websocket needs ENDPOINTS_WS_ECHO_URL=ws://127.0.0.1:PORT (scripts/bench-websockets.sh)")
        exit(2)
    }
    try await WebSocketBenchmark.run(
        echo: echo,
        python: argument("--python=") ?? ".venv-websockets/bin/python",
        client: argument("--client=") ?? "scripts/websocket-peers/bench_client.py",
        quick: CommandLine.arguments.contains("--quick"))
}
