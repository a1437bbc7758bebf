import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The headers the cache writes and reads as RFC 9111 and RFC 9211 say: `Cache-Status`, `Age`,
/// a `HEAD` answered from a stored `GET`, `Vary: Accept-Language`.
@Suite struct HTTPCacheHeaderTests {
    @Test func cacheStatusKeepsTheUpstreamValueAndAddsOurs() async throws {
        let fixture = try CacheFixture()
        let upstream = "ExampleCDN; hit; ttl=30"
        fixture.route("/status") { request, _ in
            if request.header("If-None-Match") == "\"s1\"" {
                return TestServer.Response(
                    status: 304,
                    headers: [
                        (name: "Cache-Status", value: "ExampleCDN; fwd=stale; fwd-status=304"),
                        (name: "ETag", value: "\"s1\""),
                    ])
            }
            return .text("s", [("Cache-Control", "max-age=60"), ("ETag", "\"s1\""), ("Cache-Status", upstream)])
        }
        let (_, miss) = try await fixture.get("/status")
        #expect(miss.value(forHTTPHeaderField: "Cache-Status") == "\(upstream), Endpoints; fwd=miss; stored")
        #expect(miss.cacheOutcome == .miss)
        let (_, hit) = try await fixture.get("/status")
        #expect(hit.value(forHTTPHeaderField: "Cache-Status") == "\(upstream), Endpoints; hit")
        #expect(hit.cacheOutcome == .hit)
        // Revalidated: the chain that answered the 304 is the one shown.
        fixture.advance(100)
        let (_, revalidated) = try await fixture.get("/status")
        #expect(
            revalidated.value(forHTTPHeaderField: "Cache-Status")
                == "ExampleCDN; fwd=stale; fwd-status=304, Endpoints; fwd=stale; fwd-status=304; detail=revalidated")
        #expect(revalidated.cacheOutcome == .revalidated)
        // Without an upstream value, ours alone.
        fixture.route("/plain") { _, _ in .text("p", [("Cache-Control", "max-age=60")]) }
        #expect(
            try await fixture.get("/plain").1.value(forHTTPHeaderField: "Cache-Status") == "Endpoints; fwd=miss; stored"
        )
        #expect(try await fixture.get("/plain").1.value(forHTTPHeaderField: "Cache-Status") == "Endpoints; hit")
    }

    @Test func aResponseForwardedFromTheOriginCarriesItsAge() async throws {
        let fixture = try CacheFixture()
        let now = fixture.clock.withLock { $0 }
        let thirtySecondsAgo = HTTPCacheFreshnessTests.httpDate(now.addingTimeInterval(-30))
        fixture.route("/aged") { _, _ in .text("a", [("Cache-Control", "max-age=600"), ("Date", thirtySecondsAgo)]) }
        let (_, aged) = try await fixture.get("/aged")
        #expect(aged.cacheOutcome == .miss)
        #expect(aged.value(forHTTPHeaderField: "Age") == "30")
        // An upstream `Age` is corrected, not dropped; a response just made gets none.
        let current = HTTPCacheFreshnessTests.httpDate(now)
        fixture.route("/relayed") { _, _ in
            .text("r", [("Cache-Control", "max-age=600"), ("Date", current), ("Age", "12")])
        }
        #expect(try await fixture.get("/relayed").1.value(forHTTPHeaderField: "Age") == "12")
        fixture.route("/new") { _, _ in .text("n", [("Cache-Control", "max-age=600"), ("Date", current)]) }
        #expect(try await fixture.get("/new").1.value(forHTTPHeaderField: "Age") == nil)
    }

    @Test(arguments: TestTransport.all)
    func aHeadIsAnsweredFromAStoredGetAndItsResponseFreshensIt(via transport: TestTransport) async throws {
        let fixture = try CacheFixture(via: transport)
        let seen = fixture.route("/doc") { request, index in
            guard request.method == "HEAD" else {
                return .text(
                    "document",
                    [("Cache-Control", "max-age=60"), ("ETag", "\"d1\""), ("X-Kind", "doc"), ("X-Stored", "yes")])
            }
            // The first HEAD the server sees has the stored tag, the second another one.
            let tag = index == 1 ? "\"d1\"" : "\"d2\""
            return .text("document", [("Cache-Control", "max-age=600"), ("ETag", tag), ("X-Kind", "doc2")])
        }
        _ = try await fixture.get("/doc")
        let (body, response) = try await fixture.head("/doc")
        #expect(body.isEmpty)
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "X-Kind") == "doc")
        #expect(response.cacheOutcome == .hit)
        #expect(seen.withLock { $0.count } == 1)
        // Stale: the HEAD goes to the server as a HEAD; its 200, with the same tag, freshens the
        // stored GET response and updates its fields, keeping those it did not send.
        fixture.advance(120)
        let (_, sent) = try await fixture.head("/doc")
        #expect(seen.withLock { $0.map(\.method) } == ["GET", "HEAD"])
        #expect(sent.value(forHTTPHeaderField: "X-Kind") == "doc2")
        #expect(sent.value(forHTTPHeaderField: "X-Stored") == "yes")
        #expect(sent.cacheOutcome == .revalidated)
        let (document, freshened) = try await fixture.get("/doc")
        #expect(document == "document")
        #expect(freshened.cacheOutcome == .hit)
        #expect(freshened.value(forHTTPHeaderField: "X-Kind") == "doc2")
        // Another tag: the stored response is now stale, and the next GET asks the server.
        fixture.advance(700)
        _ = try await fixture.head("/doc")
        #expect(try await fixture.get("/doc").1.cacheOutcome != .hit)
        #expect(seen.withLock { $0.map(\.method) } == ["GET", "HEAD", "HEAD", "GET"])
        // Nothing stored: a HEAD passes through, and stores nothing.
        let bare = fixture.route("/bare") { _, _ in .text("bare", [("Cache-Control", "max-age=60")]) }
        #expect(try await fixture.head("/bare").1.cacheOutcome == .miss)
        #expect(try await fixture.head("/bare").1.cacheOutcome == .miss)
        #expect(try await fixture.get("/bare").1.cacheOutcome == .miss)
        #expect(bare.withLock { $0.map(\.method) } == ["HEAD", "HEAD", "GET"])
    }

    @Test func acceptLanguageIsComparedAsLanguagesNotAsText() async throws {
        let fixture = try CacheFixture()
        let seen = fixture.route("/words") { request, _ in
            .text(
                "Wörter",
                [("Cache-Control", "max-age=600"), ("Vary", "Accept-Language"), ("Content-Language", "de")])
        }
        #expect(try await fixture.get("/words", headers: [("Accept-Language", "en, de")]).1.cacheOutcome == .miss)
        for same in ["de, en", "eN, De", " en ,   de", "de;q=1.0, en", "en;q=1, de;q=1.000"] {
            let (_, response) = try await fixture.get("/words", headers: [("Accept-Language", same)])
            #expect(response.cacheOutcome == .hit, "\(same)")
        }
        // The stored language is this request's first choice: the server would choose it again.
        let (_, chosen) = try await fixture.get("/words", headers: [("Accept-Language", "fr;q=0.5, de;q=1.0")])
        #expect(chosen.cacheOutcome == .hit)
        #expect(seen.withLock { $0.count } == 1)
        // Other preferences, or a first choice shared with another language: the server decides.
        for other in ["en;q=0.9, de;q=0.5", "fr", "fr, de", "de-AT;q=0.1, fr", "*"] {
            let (_, response) = try await fixture.get("/words", headers: [("Accept-Language", other)])
            #expect(response.cacheOutcome == .miss, "\(other)")
        }
    }

    @Test func theLanguageRangesAreParsedAsRFC9110Says() {
        let normalized = CachedResponse.normalizedLanguages
        #expect(normalized("en, de") == normalized("de,en"))
        #expect(normalized("EN-us;q=0.8, fr") == "fr,en-us;q=0.8")
        #expect(normalized("en;q=0") == "en;q=0")
        #expect(normalized("en;Q=0.50") == "en;q=0.5")
        // A value that cannot be read is kept as it was (compared as text).
        #expect(normalized("en;q=abc") == "en;q=abc")
        #expect(normalized("") == "")
    }
}

extension CacheFixture {
    /// A `HEAD` of `path` through the cache: the body (empty) and the response.
    func head(_ path: String) async throws -> (Data, HTTPURLResponse) {
        let result = try await client.typedResponse(
            for: Request<Data>.request(.head, RequestTarget(server.url(path).absoluteString)))
        return (result.value, result.httpResponse)
    }
}
