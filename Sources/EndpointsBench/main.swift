import Foundation

// endpoints-bench: `swift run -c release endpoints-bench [build|e2e|auth|all]`
let mode = CommandLine.arguments.dropFirst().first ?? "all"
if mode == "build" || mode == "all" {
    BuildBenchmark.run(count: 200_000)
}
if mode == "e2e" || mode == "all" {
    try await EndToEndBenchmark.run(total: 20_000, inFlight: 16)
}
