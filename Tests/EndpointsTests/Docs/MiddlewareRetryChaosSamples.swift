import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The retry and chaos samples of Endpoints.docc/MiddlewareGuide.md, as written there.

/// The retry sample's server as the article prints it; the one the test runs waits on a test clock.
enum MiddlewareRetryArticleServer {
    struct ApiServer: ServerDefinition {
        var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com")!] }
        static var middleware: [any Middleware] {
            [
                RetryMiddleware(maximumAttempts: 3) { exhausted in
                    print("gave up after \(exhausted.attempts) attempts: \(exhausted)")
                }
            ]
        }
    }
}

enum MiddlewareRetrySample {
    struct ApiServer: ServerDefinition {
        var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com")!] }
        // A clock that records the waits instead of waiting, so the test takes no real time.
        static var middleware: [any Middleware] {
            [
                RetryMiddleware(clock: TestClock()) { exhausted in
                    print("gave up after \(exhausted.attempts) attempts: \(exhausted)")
                }
            ]
        }
    }

    struct FeedEndpoint: Endpoint {
        typealias Server = ApiServer
        static let definition: Definition<FeedEndpoint> = Definition(method: .get, path: "feed")
        struct Response: Decodable { let items: [String] }
    }

    /// The sample; `print` is whatever the caller passes, so the test can read what it printed.
    static func loadFeed(print: (Int, Int) -> Void) async {
        do {
            let feed = try await URLSession.shared.response(with: FeedEndpoint())
            _ = feed
        } catch {
            if case .errorResponse(let http, _) = error {
                print(1, http.statusCode)  // the last 503, after the retries
            }
        }
    }
}

enum MiddlewareChaosSample {
    struct ApiServer: ServerDefinition {
        var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com")!] }

        #if DEBUG
            static let chaos = ChaosMiddleware(seed: 42, latencyRate: 0.2, failureRate: 0.05)
        #endif

        static var middleware: [any Middleware] {
            #if DEBUG
                [chaos]
            #else
                []
            #endif
        }
    }
}

@Suite struct MiddlewareRetryChaosSampleTests {
    @Test func retryExhaustedReportsTheAttemptsAndTheLastStatus() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/feed") { _ in .status(503) }
        let printed = TestLocked([[Int]]())
        await withLoopback(to: server) {
            await MiddlewareRetrySample.loadFeed { attempts, status in
                printed.withLock { $0.append([attempts, status]) }
            }
        }
        #expect(printed.withLock { $0 } == [[1, 503]])
        #expect(server.requestCount == 3)
    }

    @Test func retrySucceedsWithoutPrintingWhenTheServerRecovers() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let calls = TestLocked(0)
        server.route("/feed") { _ in
            calls.withLock { count in
                count += 1
                return count
            } < 3 ? .status(502) : .json(["items": ["a"]])
        }
        let printed = TestLocked([[Int]]())
        await withLoopback(to: server) {
            await MiddlewareRetrySample.loadFeed { attempts, status in
                printed.withLock { $0.append([attempts, status]) }
            }
        }
        #expect(printed.withLock { $0 }.isEmpty)
        #expect(server.requestCount == 3)
    }

    #if DEBUG
        /// One shared instance, so successive requests draw successive decisions from seed 42; a new
        /// `ChaosMiddleware(seed: 42, ...)` per request would give every request the first one.
        @Test func chaosDrawsSuccessiveDecisionsAcrossRequests() throws {
            typealias Server = MiddlewareChaosSample.ApiServer
            #expect(Server.middleware.count == 1)
            // What requests would draw, each reading the server's middleware anew.
            let drawn = try (0..<40).map { _ in try #require(Server.middleware.first as? ChaosMiddleware).nextDecision()
            }
            let chaos = try #require(Server.middleware.first as? ChaosMiddleware)
            #expect(chaos.seed == 42)
            // The same seed replays the same sequence; the draws are a run of it (other runs of this
            // test in the process may have drawn before, so the run may start later).
            let replay = ChaosMiddleware(seed: 42, rates: chaos.rates)
            let sequence = (0..<10_000).map { _ in replay.nextDecision() }
            let matches = (0...(sequence.count - drawn.count)).contains {
                Array(sequence[$0..<$0 + drawn.count]) == drawn
            }
            #expect(matches)
            #expect(drawn.contains { $0.latency > 0 })
            #expect(drawn.contains { $0.latency == 0 })
        }
    #endif
}
