import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct HTTPCacheStaleTests {
    @Test(arguments: TestTransport.all)
    func staleWhileRevalidateAnswersAtOnceAndRevalidatesInTheBackground(via transport: TestTransport) async throws {
        let fixture = try CacheFixture(via: transport)
        let (arrivals, arrived) = AsyncStream<Int>.makeStream()
        let seen = fixture.route("/swr") { _, index in
            arrived.yield(index)
            return .text("v\(index)", [("Cache-Control", "max-age=10, stale-while-revalidate=60")])
        }
        _ = try await fixture.get("/swr")
        fixture.advance(30)
        let (body, response) = try await fixture.get("/swr")
        #expect(body == "v0")
        #expect(response.cacheOutcome == .stale)
        var iterator = arrivals.makeAsyncIterator()
        _ = await iterator.next()
        #expect(await iterator.next() == 1)  // the background revalidation reached the server
        // It stored the new response: wait for it, then it is served fresh.
        var fresh = try await fixture.get(
            "/swr", headers: [("Cache-Control", "only-if-cached")], accepting: StatusCodes([200..<600]))
        while fresh.0 != "v1" {
            await Task.yield()
            fresh = try await fixture.get(
                "/swr", headers: [("Cache-Control", "only-if-cached")], accepting: StatusCodes([200..<600]))
        }
        #expect(fresh.1.cacheOutcome == .hit)
        #expect(seen.withLock { $0.count } == 2)
        // Past the window, the cache waits for the server.
        fixture.advance(200)
        #expect(try await fixture.get("/swr").0 == "v2")
    }

    @Test(arguments: TestTransport.all)
    func staleIfErrorServesTheStoredResponseOnA5xx(via transport: TestTransport) async throws {
        let fixture = try CacheFixture(via: transport)
        fixture.route("/sie") { _, index in
            index == 0 ? .text("good", [("Cache-Control", "max-age=10, stale-if-error=60")]) : .status(503)
        }
        _ = try await fixture.get("/sie")
        fixture.advance(30)
        let (body, response) = try await fixture.get("/sie")
        #expect(body == "good")
        #expect(response.cacheOutcome == .stale)
        fixture.advance(60)  // past the window: the error comes through
        await #expect(throws: EndpointTaskError<EmptyCodable>.self) { try await fixture.get("/sie") }
    }

    @Test(arguments: TestTransport.all)
    func offlineServesStaleAndSaysSo(via transport: TestTransport) async throws {
        let fixture = try CacheFixture(via: transport)
        fixture.route("/feed") { _, _ in .text("cached", [("Cache-Control", "max-age=10")]) }
        fixture.route("/strict") { _, _ in .text("strict", [("Cache-Control", "max-age=10, must-revalidate")]) }
        _ = try await fixture.get("/feed")
        _ = try await fixture.get("/strict")
        fixture.advance(3600)
        fixture.server.stop()
        let (body, response) = try await fixture.get("/feed")
        #expect(body == "cached")
        #expect(response.cacheOutcome == .offline)
        #expect(response.value(forHTTPHeaderField: "Cache-Status") == "Endpoints; hit; detail=offline")
        // must-revalidate: never served stale, not even offline.
        await #expect(throws: EndpointTaskError<EmptyCodable>.self) { try await fixture.get("/strict") }
    }

    @Test func loggingShowsTheOutcome() async throws {
        let fixture = try CacheFixture()
        fixture.route("/log") { _, _ in .text("x", [("Cache-Control", "max-age=10")]) }
        let lines = TestLocked<[String]>([])
        let logging = LoggingMiddleware(level: .basic) { line in lines.withLock { $0.append(line) } }
        let client = EndpointClient(session: fixture.session, middleware: [logging, fixture.cache])
        let request = Request<Data>.get(RequestTarget(fixture.server.url("/log").absoluteString))
        _ = try await client.response(for: request)
        _ = try await client.response(for: request)
        let all = lines.withLock { $0 }.joined(separator: "\n")
        #expect(all.contains("cache: miss"))
        #expect(all.contains("cache: hit"))
    }
}
