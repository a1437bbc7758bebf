import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct HTTPCacheBadInputTests {
    @Test(arguments: [
        ("max-age=abc", false), ("max-age=-5", false), ("max-age", false), ("max-age=\"x", false),
        ("max-age=99999999999999999999", true), ("max-age=60, max-age=0", true), (",,;;==", false),
    ])
    func unreadableCacheControlIsNeverFresh(header: String, fresh: Bool) async throws {
        let fixture = try CacheFixture()
        let seen = fixture.route("/cc") { _, index in
            .text("v\(index)", [("Cache-Control", header), ("ETag", "\"e\"")])
        }
        _ = try await fixture.get("/cc")
        fixture.advance(1)
        _ = try await fixture.get("/cc")
        #expect(seen.withLock { $0.count } == (fresh ? 1 : 2))
    }

    @Test(arguments: ["0", "yesterday", "Thu, 32 Foo 2026 99:00:00 GMT", ""])
    func anUnreadableExpiresIsStale(expires: String) async throws {
        let fixture = try CacheFixture()
        let seen = fixture.route("/exp") { _, index in .text("v\(index)", [("Expires", expires)]) }
        _ = try await fixture.get("/exp")
        _ = try await fixture.get("/exp")
        #expect(seen.withLock { $0.count } == 2)
    }

    @Test func hugeMaxAgeIsCappedNotOverflowed() {
        #expect(CacheControl("max-age=99999999999999999999999999").maxAge == 2_147_483_648)
        #expect(CacheControl("max-age=-1").maxAge == 0)
        #expect(CacheControl("max-age=3600.5").maxAge == 3600)
        #expect(CacheControl("max-age =60").maxAge == nil)
        #expect(CacheControl("no-cache=\"set-cookie, x\"").noCache == false)
        #expect(CacheControl("no-cache=\"set-cookie, x\"").noCacheFields == ["set-cookie", "x"])
        #expect(CacheControl("public, max-age=\"60\"").maxAge == 60)
    }

    @Test func a304WithNoStoredEntryIsPassedOn() async throws {
        let fixture = try CacheFixture()
        fixture.route("/nm") { _, _ in .status(304) }
        let (_, response) = try await fixture.get("/nm", accepting: .successful + [304])
        #expect(response.statusCode == 304)
        #expect(response.cacheOutcome == .miss)
        // Not accepted: the caller gets the error, nothing is stored.
        await #expect(throws: EndpointTaskError<EmptyCodable>.self) { try await fixture.get("/nm") }
    }

    @Test(arguments: TestTransport.all)
    func a304WithAnotherValidatorFetchesAgain(via transport: TestTransport) async throws {
        let fixture = try CacheFixture(via: transport)
        let seen = fixture.route("/other-tag") { request, index in
            if request.header("If-None-Match") != nil {
                return TestServer.Response(status: 304, headers: [(name: "ETag", value: "\"different\"")])
            }
            return .text("v\(index)", [("Cache-Control", "max-age=1"), ("ETag", "\"stored\"")])
        }
        _ = try await fixture.get("/other-tag")
        fixture.advance(5)
        let (body, response) = try await fixture.get("/other-tag")
        #expect(body == "v2")
        #expect(response.statusCode == 200)
        let requests = seen.withLock { $0 }
        #expect(requests.count == 3)
        #expect(requests[2].header("If-None-Match") == nil)
    }

    @Test func aBodyShorterThanItsContentLengthIsNotStored() async throws {
        // A transport that hands over a body cut short, as a broken proxy might.
        struct Short: HTTPTransport {
            func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
                let response = HTTPURLResponse(
                    url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1",
                    headerFields: ["Content-Length": "100", "Cache-Control": "max-age=60"])!
                return (Data("only ten..".utf8), response)
            }
        }
        let cache = HTTPCache()
        let client = EndpointClient(transport: Short(), middleware: [cache])
        let request = Request<Data>.get("http://127.0.0.1:9/short")
        _ = try await client.typedResponse(for: request)
        #expect(try await client.typedResponse(for: request).httpResponse.cacheOutcome == .miss)
    }

    @Test func cacheStatusIsReadBack() {
        func response(_ status: String?) -> HTTPURLResponse {
            HTTPURLResponse(
                url: URL(string: "http://x/")!, statusCode: 200, httpVersion: nil,
                headerFields: status.map { ["Cache-Status": $0] } ?? [:])!
        }
        for outcome in HTTPCache.Outcome.allCases {
            #expect(response(HTTPCache.cacheStatus(outcome, stored: true)).cacheOutcome == outcome)
        }
        #expect(response("OtherCache; hit, Endpoints; fwd=miss").cacheOutcome == .miss)
        #expect(response("OtherCache; hit").cacheOutcome == nil)
        #expect(response(nil).cacheOutcome == nil)
    }
}
