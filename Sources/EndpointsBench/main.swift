import Foundation

// endpoints-bench: `swift run -c release endpoints-bench [build|e2e|auth|all]`
//   build  request building, against hand-written URLComponents + URLRequest code
//   e2e    GET + decode over loopback, against raw URLSession.data(for:) + JSONDecoder
//   auth   a 1,000-request burst with expired tokens, against the same burst with valid tokens
let mode = CommandLine.arguments.dropFirst().first ?? "all"
if mode == "build" || mode == "all" {
    BuildBenchmark.run(count: 200_000)
}
if mode == "e2e" || mode == "all" {
    try await EndToEndBenchmark.run(total: 20_000, inFlight: 16)
}
if mode == "auth" || mode == "all" {
    try await runAuthBurstBenchmark()
}
