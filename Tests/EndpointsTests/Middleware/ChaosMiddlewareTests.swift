import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct MiddlewareChaosTests {
    static let configuration = ChaosMiddleware.Rates(
        latencyRate: 0.3,
        latency: 0.5...2,
        failureRate: 0.2,
        failureCodes: [.timedOut, .networkConnectionLost],
        statusRate: 0.2,
        statusCodes: [500, 503]
    )

    /// Sends `count` requests through a chaos middleware seeded with `seed` and describes what
    /// each one got, plus the waits.
    static func run(seed: UInt64, count: Int) async throws -> (outcomes: [String], waits: [TimeInterval], sent: Int) {
        let server = try TestServer()
        defer { server.stop() }
        let clock = TestClock()
        let chaos = ChaosMiddleware(seed: seed, rates: configuration, clock: clock)
        let session = makeMiddlewareTestSession()
        var outcomes: [String] = []
        for _ in 0..<count {
            do {
                _ = try await session.response(
                    with: MiddlewareGet("echo"), environment: server.baseURL, middleware: [chaos])
                outcomes.append("ok")
            } catch {
                switch error {
                case .urlLoadError(let error): outcomes.append("URLError \(error.code.rawValue)")
                case .errorResponse(let http, let body): outcomes.append("status \(http.statusCode) \(body.message)")
                default: outcomes.append("other \(error)")
                }
            }
        }
        return (outcomes, clock.slept, server.requestCount)
    }

    @Test func theSameSeedReplaysTheSameSequence() async throws {
        let first = try await Self.run(seed: 0xC0FFEE, count: 40)
        let second = try await Self.run(seed: 0xC0FFEE, count: 40)
        #expect(first.outcomes == second.outcomes)
        #expect(first.waits == second.waits)
        // Every kind of fault happened, and faulted requests never reached the server.
        #expect(first.outcomes.contains("ok"))
        #expect(first.outcomes.contains { $0.hasPrefix("URLError") })
        #expect(first.outcomes.contains("status 503 Injected by ChaosMiddleware"))
        #expect(!first.outcomes.contains { $0.hasPrefix("other") })
        #expect(first.sent == first.outcomes.filter { $0 == "ok" }.count)
        #expect(!first.waits.isEmpty && first.waits.allSatisfy { (0.5...2).contains($0) })

        let other = try await Self.run(seed: 1, count: 40)
        #expect(other.outcomes != first.outcomes)
    }

    @Test func decisionsAreAPureFunctionOfTheSeed() {
        let a = ChaosMiddleware(seed: 99, rates: Self.configuration)
        let b = ChaosMiddleware(seed: 99, rates: Self.configuration)
        let first = (0..<200).map { _ in a.nextDecision() }
        #expect(first == (0..<200).map { _ in b.nextDecision() })
        let failures = first.filter { if case .failure = $0.fault { true } else { false } }.count
        let statuses = first.filter { if case .status = $0.fault { true } else { false } }.count
        #expect((20...60).contains(failures))
        #expect((20...60).contains(statuses))
        #expect(ChaosMiddleware(seed: 5, rates: .init()).nextDecision() == .init(latency: 0, fault: .none))
    }

    @Test func splitMix64MatchesTheReferenceSequence() {
        // Reference values of SplitMix64 seeded with 0 (Vigna's splitmix64.c).
        var generator = SplitMix64(seed: 0)
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(generator.next() == 0x06C4_5D18_8009_454F)
    }
}
