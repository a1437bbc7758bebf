import Endpoints
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The transports and timers behind `ENDPOINTS_BENCH_OURS` (see `EndToEndBenchmark.OurSide`).

/// A transport that only calls `URLSession.data(for:)`: the pipeline's own cost, without ours.
struct DataForTransport: HTTPTransport {
    let session: URLSession

    func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        guard let response = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return (data, response)
    }
}

/// Where one side's wall time goes, for `timed` and `timed-raw` (one request in flight): before the
/// transport (building, authenticating, the middleware chain), in it, and after it (decoding).
final class WallSplit: Sendable {
    private struct Totals {
        var before: UInt64 = 0
        var transport: UInt64 = 0
        var whole: UInt64 = 0
        var lastAnswer: UInt64 = 0
    }

    private let totals = Mutex(Totals())

    func sent(at sent: UInt64, answered: UInt64, callStart: UInt64) {
        totals.withLock {
            $0.before += sent - callStart
            $0.transport += answered - sent
            $0.lastAnswer = answered
        }
    }

    func finish(start: UInt64, end: UInt64) {
        totals.withLock { $0.whole += end - start }
    }

    func report(requests: Int) -> String? {
        let totals = totals.withLock { $0 }
        guard totals.whole > 0 else { return nil }
        let count = Double(requests) * 1_000
        let after = totals.whole - totals.before - totals.transport
        return String(
            format: "  wall time per request, in this run: %.1f µs before the transport, %.1f µs in it, %.1f µs after",
            Double(totals.before) / count, Double(totals.transport) / count, Double(after) / count)
    }
}

/// `URLSessionTransport` with the time each send starts and ends recorded in a ``WallSplit``.
struct TimedTransport: HTTPTransport {
    @TaskLocal static var callStart: UInt64 = 0
    let inner: URLSessionTransport
    let split: WallSplit

    func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
        let sent = DispatchTime.now().uptimeNanoseconds
        let answer = try await inner.send(request, context: context)
        split.sent(at: sent, answered: DispatchTime.now().uptimeNanoseconds, callStart: Self.callStart)
        return answer
    }
}
