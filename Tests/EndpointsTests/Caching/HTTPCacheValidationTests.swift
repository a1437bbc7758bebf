import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct HTTPCacheValidationTests {
    /// Answers 304 (with `X-Version: 2`) when the request's validators match, else the body.
    static func conditional(_ request: TestServer.Request, _ index: Int) -> TestServer.Response {
        if request.header("If-None-Match") == "\"v1\"" || request.header("If-Modified-Since") == modified {
            return TestServer.Response(
                status: 304, headers: [(name: "X-Version", value: "2"), (name: "Cache-Control", value: "max-age=10")])
        }
        return .text(
            "body",
            [("Cache-Control", "max-age=10"), ("ETag", "\"v1\""), ("Last-Modified", modified), ("X-Version", "1")])
    }
    static let modified = "Sun, 06 Nov 1994 08:49:37 GMT"

    @Test func aStaleResponseIsRevalidatedAndTheStoredBodyServedAs200() async throws {
        let fixture = try CacheFixture()
        let seen = fixture.route("/v", Self.conditional)
        _ = try await fixture.get("/v")
        fixture.advance(20)
        let (body, response) = try await fixture.get("/v")
        #expect(body == "body")
        #expect(response.statusCode == 200)
        #expect(response.cacheOutcome == .revalidated)
        #expect(response.value(forHTTPHeaderField: "X-Version") == "2")  // the 304 updated the stored headers
        let requests = seen.withLock { $0 }
        #expect(requests.count == 2)
        #expect(requests[1].header("If-None-Match") == "\"v1\"")
        #expect(requests[1].header("If-Modified-Since") == Self.modified)
        // The 304's max-age made the stored response fresh again.
        fixture.advance(5)
        let (_, again) = try await fixture.get("/v")
        #expect(again.cacheOutcome == .hit)
        #expect(again.value(forHTTPHeaderField: "X-Version") == "2")
        #expect(seen.withLock { $0.count } == 2)
    }

    @Test func lastModifiedAloneValidates() async throws {
        let fixture = try CacheFixture()
        let seen = fixture.route("/lm") { request, _ in
            if request.header("If-Modified-Since") == Self.modified { return .status(304) }
            return .text("lm", [("Cache-Control", "max-age=1"), ("Last-Modified", Self.modified)])
        }
        _ = try await fixture.get("/lm")
        fixture.advance(5)
        let (body, response) = try await fixture.get("/lm")
        #expect(body == "lm")
        #expect(response.cacheOutcome == .revalidated)
        #expect(seen.withLock { $0.last?.header("If-None-Match") } == nil)
    }

    @Test func aCallerThatSendsItsOwnConditionSeesThe304() async throws {
        let fixture = try CacheFixture()
        fixture.route("/v", Self.conditional)
        _ = try await fixture.get("/v")
        fixture.advance(20)
        let (body, response) = try await fixture.get(
            "/v", headers: [("If-None-Match", "\"v1\"")], accepting: .successful + [304])
        #expect(response.statusCode == 304)
        #expect(body.isEmpty)
        // Fresh: the cache answers the condition itself.
        let (_, fresh) = try await fixture.get(
            "/v", headers: [("If-None-Match", "\"v1\"")], accepting: .successful + [304])
        #expect(fresh.statusCode == 304)
        #expect(fresh.cacheOutcome == .hit)
        let (other, otherResponse) = try await fixture.get("/v", headers: [("If-None-Match", "\"zz\"")])
        #expect(otherResponse.statusCode == 200)
        #expect(other == "body")
    }

    @Test func anEndpointThatAccepts304SeesIt() async throws {
        let fixture = try CacheFixture()
        fixture.route("/v", Self.conditional)
        _ = try await fixture.get("/v")
        fixture.advance(20)
        let (_, response) = try await fixture.get("/v", accepting: .successful + [304])
        #expect(response.statusCode == 304)
        #expect(response.cacheOutcome == .revalidated)
    }

    @Test func varySeparatesRepresentationsAndVaryStarIsNotStored() async throws {
        let fixture = try CacheFixture()
        let seen = fixture.route("/lang") { request, _ in
            .text(
                request.header("Accept-Language") ?? "none",
                [("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")])
        }
        #expect(try await fixture.get("/lang", headers: [("Accept-Language", "fr")]).0 == "fr")
        #expect(try await fixture.get("/lang", headers: [("Accept-Language", "de")]).0 == "de")
        #expect(try await fixture.get("/lang", headers: [("Accept-Language", "fr")]).0 == "fr")
        #expect(try await fixture.get("/lang", headers: [("Accept-Language", "de")]).1.cacheOutcome == .hit)
        #expect(seen.withLock { $0.count } == 2)

        let star = fixture.route("/star") { _, index in
            .text("v\(index)", [("Cache-Control", "max-age=60"), ("Vary", "*")])
        }
        _ = try await fixture.get("/star")
        #expect(try await fixture.get("/star").0 == "v1")
        #expect(star.withLock { $0.count } == 2)
    }

    @Test func aVaryMismatchAsksWithTheOtherVariantsTags() async throws {
        let fixture = try CacheFixture()
        let seen = fixture.route("/variant") { request, _ in
            if request.header("If-None-Match") == "\"same\"" {
                return TestServer.Response(status: 304, headers: [(name: "ETag", value: "\"same\"")])
            }
            return .text("shared", [("Cache-Control", "max-age=60"), ("Vary", "X-Client"), ("ETag", "\"same\"")])
        }
        _ = try await fixture.get("/variant", headers: [("X-Client", "a")])
        let (body, response) = try await fixture.get("/variant", headers: [("X-Client", "b")])
        #expect(body == "shared")
        #expect(response.cacheOutcome == .revalidated)
        #expect(seen.withLock { $0.last?.header("If-None-Match") } == "\"same\"")
        // Now stored for b as well.
        #expect(try await fixture.get("/variant", headers: [("X-Client", "b")]).1.cacheOutcome == .hit)
        #expect(seen.withLock { $0.count } == 2)
    }

    @Test func aSuccessfulUnsafeMethodInvalidatesTheURIAndItsLocation() async throws {
        let fixture = try CacheFixture()
        let item = fixture.route("/item") { request, index in
            request.method == "GET"
                ? .text("v\(index)", [("Cache-Control", "max-age=60")])
                : TestServer.Response(status: 201, headers: [(name: "Location", value: "/other")])
        }
        let other = fixture.route("/other") { _, index in .text("o\(index)", [("Cache-Control", "max-age=60")]) }
        _ = try await fixture.get("/item")
        _ = try await fixture.get("/other")
        #expect(try await fixture.get("/item").1.cacheOutcome == .hit)
        try await fixture.send(.post, "/item")
        #expect(try await fixture.get("/item").1.cacheOutcome == .miss)
        #expect(try await fixture.get("/other").1.cacheOutcome == .miss)
        #expect(item.withLock { $0.map(\.method) } == ["GET", "POST", "GET"])
        #expect(other.withLock { $0.count } == 2)
        // A failed unsafe method changes nothing.
        fixture.route("/kept") { request, index in
            request.method == "GET" ? .text("k\(index)", [("Cache-Control", "max-age=60")]) : .status(500)
        }
        _ = try await fixture.get("/kept")
        await #expect(throws: (any Error).self) { try await fixture.send(.delete, "/kept") }
        #expect(try await fixture.get("/kept").1.cacheOutcome == .hit)
    }
}
