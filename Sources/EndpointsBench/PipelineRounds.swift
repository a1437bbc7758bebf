import Endpoints
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `endpoints-bench pipeline-rounds N`: the pipeline benchmark's NoAuth case one round at a time,
/// for `scripts/bench-against.py`, which runs this build and an older one side by side and asks
/// each for a round in turn, so that the two builds' rounds are milliseconds apart and the
/// machine's drift (another guest's load) falls on both alike. Self-contained, so that the same file
/// can be added to an older build's benchmark.
///
/// For each line read from standard input, sends `N` requests the raw way and `N` through
/// `EndpointClient.response(with:)` (no listener), alternating which goes first, and prints the
/// microseconds per request of each: `raw ours`.
enum PipelineRounds {
    static func serve(perRound: Int) async throws {
        let base = URL(string: "http://127.0.0.1:8080")!
        let url = base.appendingPathComponent("item")
        let client = EndpointClient(transport: PipelineBenchmark.InstantTransport())
        let transport = PipelineBenchmark.InstantTransport()
        let context = RequestContext(endpointName: "ItemEndpoint")
        let decoder = EndToEndBenchmark.decoder
        func timed(_ body: () async throws -> Void) async rethrows -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<perRound { try await body() }
            return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(perRound) / 1_000
        }
        func raw() async throws -> Double {
            try await timed {
                let (data, _) = try await transport.send(URLRequest(url: url), context: context)
                _ = try decoder.decode(Item.self, from: data)
            }
        }
        func ours() async throws -> Double {
            try await timed { _ = try await client.response(with: ItemEndpoint(), environment: base) }
        }
        var round = 0
        while readLine() != nil {
            let (r, o): (Double, Double)
            if round.isMultiple(of: 2) {
                r = try await raw()
                o = try await ours()
            } else {
                o = try await ours()
                r = try await raw()
            }
            round += 1
            print(String(format: "%.4f %.4f", r, o))
            fflush(nil)  // every stream: `stdout` is a C global Swift 6 will not read
        }
    }
}
