import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct HTTPCacheFreshnessTests {
    @Test(arguments: TestTransport.all)
    func aFreshResponseIsServedWithoutASend(via transport: TestTransport) async throws {
        let fixture = try CacheFixture(via: transport)
        let seen = fixture.route("/feed") { _, index in .text("v\(index)", [("Cache-Control", "max-age=60")]) }
        let (first, firstResponse) = try await fixture.get("/feed")
        fixture.advance(30)
        let (second, secondResponse) = try await fixture.get("/feed")
        #expect(first == "v0")
        #expect(second == "v0")
        #expect(seen.withLock { $0.count } == 1)
        #expect(firstResponse.cacheOutcome == .miss)
        #expect(secondResponse.cacheOutcome == .hit)
        #expect(secondResponse.value(forHTTPHeaderField: "Age") == "30")
        #expect(secondResponse.value(forHTTPHeaderField: "Cache-Status") == "Endpoints; hit")
        // The request the cache sends leaves URLSession's own cache aside.
        fixture.advance(31)
        let (third, thirdResponse) = try await fixture.get("/feed")
        #expect(third == "v1")
        #expect(thirdResponse.cacheOutcome == .miss)
    }

    /// The request's metrics say what the cache did: a miss is one attempt, a fresh hit none.
    @Test func theMetricsCarryTheCacheOutcome() async throws {
        let fixture = try CacheFixture()
        fixture.route("/metered") { _, index in .text("v\(index)", [("Cache-Control", "max-age=60")]) }
        let request = Request<Data>.get(RequestTarget(fixture.server.url("/metered").absoluteString))
        let first = try await fixture.client.typedResponse(for: request)
        let second = try await fixture.client.typedResponse(for: request)
        #expect(first.metrics.cache == .miss)
        #expect(first.metrics.attempts.map(\.statusCode) == [200])
        #expect(second.metrics.cache == .hit)
        #expect(second.metrics.attempts.isEmpty)
        #expect(second.metrics.decoding.map { $0 <= second.metrics.duration } == true)
        let plain = try await EndpointClient(session: fixture.session).typedResponse(for: request)
        #expect(plain.metrics.cache == nil)
    }

    @Test func expiresAndAgeSetTheLifetime() async throws {
        let fixture = try CacheFixture()
        let now = fixture.clock.withLock { $0 }
        let date = Self.httpDate(now)
        let expires = Self.httpDate(now.addingTimeInterval(100))
        let seen = fixture.route("/expires") { _, index in
            .text("v\(index)", [("Date", date), ("Expires", expires), ("Age", "40")])
        }
        _ = try await fixture.get("/expires")
        fixture.advance(50)
        #expect(try await fixture.get("/expires").1.cacheOutcome == .hit)
        fixture.advance(15)  // age 40 + 65 > 100
        #expect(try await fixture.get("/expires").1.cacheOutcome == .miss)
        #expect(seen.withLock { $0.count } == 2)
    }

    @Test func heuristicFreshnessOnlyWithLastModifiedAndACacheableStatus() async throws {
        let fixture = try CacheFixture()
        let now = fixture.clock.withLock { $0 }
        let modified = Self.httpDate(now.addingTimeInterval(-1000))
        let seen = fixture.route("/heuristic") { _, index in
            .text("v\(index)", [("Date", Self.httpDate(now)), ("Last-Modified", modified)])
        }
        _ = try await fixture.get("/heuristic")
        fixture.advance(90)  // 10% of 1000 s
        #expect(try await fixture.get("/heuristic").1.cacheOutcome == .hit)
        let noValidator = fixture.route("/plain") { _, index in .text("v\(index)", []) }
        _ = try await fixture.get("/plain")
        _ = try await fixture.get("/plain")
        #expect(noValidator.withLock { $0.count } == 2)
        #expect(seen.withLock { $0.count } == 1)
        // 201 is not heuristically cacheable.
        let created = fixture.route("/created") { _, _ in
            TestServer.Response(status: 201, headers: [(name: "Last-Modified", value: modified)], body: Data("c".utf8))
        }
        _ = try await fixture.get("/created")
        _ = try await fixture.get("/created")
        #expect(created.withLock { $0.count } == 2)
    }

    @Test(arguments: TestTransport.all)
    func noStoreIsNeverStoredAndNoCacheAlwaysRevalidates(via transport: TestTransport) async throws {
        let fixture = try CacheFixture(via: transport)
        let noStore = fixture.route("/no-store") { _, index in
            .text("v\(index)", [("Cache-Control", "no-store, max-age=60")])
        }
        _ = try await fixture.get("/no-store")
        #expect(try await fixture.get("/no-store").0 == "v1")
        #expect(noStore.withLock { $0.count } == 2)

        let noCache = fixture.route("/no-cache") { request, index in
            if request.header("If-None-Match") == "\"a\"" { return .status(304) }
            return .text("v\(index)", [("Cache-Control", "no-cache, max-age=60"), ("ETag", "\"a\"")])
        }
        _ = try await fixture.get("/no-cache")
        let (body, response) = try await fixture.get("/no-cache")
        #expect(body == "v0")
        #expect(response.statusCode == 200)
        #expect(response.cacheOutcome == .revalidated)
        #expect(noCache.withLock { $0.count } == 2)
    }

    @Test func privateAndImmutableAreStored() async throws {
        let fixture = try CacheFixture()
        let seen = fixture.route("/mine") { _, index in
            .text("v\(index)", [("Cache-Control", "private, max-age=60, immutable")])
        }
        _ = try await fixture.get("/mine")
        #expect(try await fixture.get("/mine").1.cacheOutcome == .hit)
        #expect(seen.withLock { $0.count } == 1)
    }

    @Test func requestDirectives() async throws {
        let fixture = try CacheFixture()
        let seen = fixture.route("/r") { _, index in .text("v\(index)", [("Cache-Control", "max-age=10")]) }
        #expect(
            try await fixture.get("/r", headers: [("Cache-Control", "only-if-cached")], accepting: [504]).1.statusCode
                == 504)
        _ = try await fixture.get("/r")
        #expect(try await fixture.get("/r", headers: [("Cache-Control", "no-cache")]).0 == "v1")
        #expect(try await fixture.get("/r", headers: [("Cache-Control", "max-age=0")]).0 == "v2")
        fixture.advance(5)
        #expect(try await fixture.get("/r", headers: [("Cache-Control", "min-fresh=8")]).0 == "v3")
        fixture.advance(15)
        let (stale, staleResponse) = try await fixture.get("/r", headers: [("Cache-Control", "max-stale=60")])
        #expect(stale == "v3")
        #expect(staleResponse.cacheOutcome == .stale)
        let (cached, cachedResponse) = try await fixture.get(
            "/r", headers: [("Cache-Control", "only-if-cached")], accepting: [504])
        #expect(cachedResponse.statusCode == 504)
        #expect(cached.isEmpty)
        #expect(try await fixture.get("/r", headers: [("Cache-Control", "no-store")]).1.cacheOutcome == .bypass)
        #expect(seen.withLock { $0.count } == 5)
    }

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
