import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The samples of Endpoints.docc/MetricsAndEvents.md and the README's "Metrics and events", as
// written there (a listener that collects instead of printing), run against a loopback server.

enum MetricsArticleSample {
    struct ApiServer: ServerDefinition {
        var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com")!] }
    }

    struct GetProfile: Endpoint {
        typealias Server = ApiServer
        struct Response: Decodable, Sendable { let name: String }

        static let definition: Definition<GetProfile> = Definition(method: .get, path: "profile")
    }

    /// The article's `SlowRequests`, with a threshold of 0 and its lines collected.
    struct SlowRequests: RequestEventListener {
        let lines: TestLocked<[String]>

        func receive(_ event: RequestEvent) {
            switch event.kind {
            case .retryScheduled(let reason, let delay):
                lines.withLock { $0.append("\(event.endpointName) retries in \(delay) s after \(reason)") }
            case .finished(let metrics) where metrics.duration > 0:
                lines.withLock { $0.append("\(metrics)") }
            default:
                break
            }
        }
    }
}

@Suite struct MetricsArticleSamples {
    @Test func theTimelineAndTheListener() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let calls = TestLocked(0)
        server.route("/profile") { _ in
            let call = calls.withLock {
                $0 += 1
                return $0
            }
            return call == 1 ? .json(raw: #"{"code":503}"#, status: 503) : .json(raw: #"{"name":"Ada"}"#)
        }
        let lines = TestLocked([String]())
        let log = EventLog()
        let client = EndpointClient(
            session: .shared,
            middleware: [
                RetryMiddleware(budget: 3600, initialDelay: 0.01, maximumDelay: 0.01), TraceContextMiddleware(),
            ],
            eventListener: Fanout(
                first: MetricsArticleSample.SlowRequests(lines: lines), second: log)
        )
        let result = try await withLoopback(to: server) {
            try await client.typedResponse(with: MetricsArticleSample.GetProfile())
        }
        #expect(result.value.name == "Ada")
        let timeline = result.metrics.description
        #expect(timeline.hasPrefix("GetProfile "))
        #expect(timeline.contains("2 attempts"))
        #expect(timeline.contains("#1 initial"))
        #expect(timeline.contains("#2 retry"))
        #expect(timeline.contains("status 503"))
        #expect(result.metrics.attempts.filter { $0.reason == .retry }.allSatisfy { $0.retryDelay != nil })
        await log.waitForEnds(1)
        let collected = lines.withLock { $0 }
        #expect(collected.first?.hasPrefix("GetProfile retries in ") == true)
        #expect(collected.first?.hasSuffix("after status 503") == true)
        #expect(collected.count == 2)
        // The README's `Timeline` prints each event on one line.
        let attempt = try #require(log.events.first { $0.name == "attemptSent" })
        #expect(attempt.description.contains(" GetProfile +"))
        #expect(attempt.description.hasSuffix("attempt sent (initial)"))
        #expect(server.requests.allSatisfy { $0.header("traceparent")?.hasPrefix("00-") == true })
    }
}

/// Hands every event to two listeners.
struct Fanout: RequestEventListener {
    let first: any RequestEventListener
    let second: any RequestEventListener

    func receive(_ event: RequestEvent) {
        first.receive(event)
        second.receive(event)
    }
}
