import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Range requests and 206 responses (RFC 9110 §14, RFC 9111 §3.3–3.4): stored, served and
/// combined.
@Suite struct HTTPCacheRangeTests {
    /// A server of `body` that honours one byte range (and `If-Range`), answering 206 with
    /// `Content-Range`, or the whole body as a 200.
    static func ranged(
        _ body: String, etag: String?, _ extra: [(String, String)] = [("Cache-Control", "max-age=600")]
    ) -> @Sendable (TestServer.Request, Int) -> TestServer.Response {
        { request, _ in
            let bytes = Array(body.utf8)
            var headers = extra
            if let etag { headers.append(("ETag", etag)) }
            let ifRange = request.header("If-Range")
            guard let range = request.header("Range"), ifRange == nil || ifRange == etag,
                let spec = ByteRangeSpec(range), let resolved = spec.resolved(length: bytes.count)
            else { return .text(body, headers) }
            headers.append(("Content-Range", "bytes \(resolved.lowerBound)-\(resolved.upperBound)/\(bytes.count)"))
            return TestServer.Response(
                status: 206, headers: headers.map { (name: $0.0, value: $0.1) }, body: Data(bytes[resolved]))
        }
    }

    @Test func aStoredCompleteResponseAnswersRanges() async throws {
        let fixture = try CacheFixture()
        let seen = fixture.route("/whole", Self.ranged("0123456789A", etag: "\"w\""))
        #expect(try await fixture.get("/whole").0 == "0123456789A")
        for (range, text, contentRange) in [
            ("bytes=0-1", "01", "bytes 0-1/11"), ("bytes=1-", "123456789A", "bytes 1-10/11"),
            ("bytes=-1", "A", "bytes 10-10/11"), ("bytes=9-40", "9A", "bytes 9-10/11"),
        ] {
            let (body, response) = try await fixture.get("/whole", headers: [("Range", range)])
            #expect(response.statusCode == 206, "\(range)")
            #expect(body == text, "\(range)")
            #expect(response.value(forHTTPHeaderField: "Content-Range") == contentRange, "\(range)")
            #expect(response.value(forHTTPHeaderField: "Content-Length") == String(text.utf8.count), "\(range)")
            #expect(response.value(forHTTPHeaderField: "ETag") == "\"w\"", "\(range)")
            #expect(response.cacheOutcome == .hit, "\(range)")
        }
        #expect(seen.withLock { $0.count } == 1)
        // What the store cannot answer alone goes to the server: several ranges, another unit,
        // a range past the end (the server's 416 or 200 is its to give).
        for range in ["bytes=0-1,4-5", "items=0-1", "bytes=20-"] {
            _ = try await fixture.get("/whole", headers: [("Range", range)])
        }
        #expect(seen.withLock { $0.count } == 4)
    }

    @Test(arguments: TestTransport.all)
    func aStoredPartialResponseAnswersTheRangesItHolds(via transport: TestTransport) async throws {
        let fixture = try CacheFixture(via: transport)
        let seen = fixture.route("/part", Self.ranged("0123456789", etag: "\"p\""))
        let (first, firstResponse) = try await fixture.get("/part", headers: [("Range", "bytes=-5")])
        #expect(first == "56789")
        #expect(firstResponse.statusCode == 206)
        #expect(firstResponse.cacheOutcome == .miss)
        for (range, text) in [("bytes=-5", "56789"), ("bytes=6-8", "678"), ("bytes=6-", "6789"), ("bytes=-2", "89")] {
            let (body, response) = try await fixture.get("/part", headers: [("Range", range)])
            #expect(body == text, "\(range)")
            #expect(response.statusCode == 206, "\(range)")
            #expect(response.cacheOutcome == .hit, "\(range)")
        }
        #expect(seen.withLock { $0.count } == 1)
        // Bytes it does not hold: asked for.
        #expect(try await fixture.get("/part", headers: [("Range", "bytes=3-6")]).0 == "3456")
        #expect(seen.withLock { $0.count } == 2)
    }

    @Test func partsWithTheSameStrongValidatorAreCombinedIntoTheWhole() async throws {
        let fixture = try CacheFixture()
        let seen = fixture.route("/combined", Self.ranged("0123456789", etag: "\"c\""))
        _ = try await fixture.get("/combined", headers: [("Range", "bytes=0-3")])
        // An adjoining part joins the stored one.
        _ = try await fixture.get("/combined", headers: [("Range", "bytes=4-6")])
        let (joined, joinedResponse) = try await fixture.get("/combined", headers: [("Range", "bytes=2-5")])
        #expect(joined == "2345")
        #expect(joinedResponse.cacheOutcome == .hit)
        // A whole response is asked for: the cache asks only for the rest, then answers 200.
        let (whole, response) = try await fixture.get("/combined")
        #expect(whole == "0123456789")
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Range") == nil)
        #expect(response.value(forHTTPHeaderField: "Content-Length") == "10")
        #expect(response.value(forHTTPHeaderField: "Cache-Status") == "Endpoints; fwd=partial; stored")
        let requests = seen.withLock { $0 }
        #expect(requests.count == 3)
        #expect(requests.last?.header("Range") == "bytes=7-")
        #expect(requests.last?.header("If-Range") == "\"c\"")
        // Now whole in the store.
        let (again, stored) = try await fixture.get("/combined")
        #expect(again == "0123456789")
        #expect(stored.cacheOutcome == .hit)
        #expect(seen.withLock { $0.count } == 3)
    }

    @Test func partsAreNotCombinedWithoutTheSameStrongValidator() async throws {
        let fixture = try CacheFixture()
        // No validator: a part is kept and served, but the whole is asked for in full.
        let untagged = fixture.route("/untagged", Self.ranged("0123456789", etag: nil))
        _ = try await fixture.get("/untagged", headers: [("Range", "bytes=0-4")])
        #expect(try await fixture.get("/untagged", headers: [("Range", "bytes=1-2")]).1.cacheOutcome == .hit)
        #expect(try await fixture.get("/untagged").0 == "0123456789")
        #expect(untagged.withLock { $0.last?.header("Range") } == nil)
        // A weak tag does not combine either.
        let weak = fixture.route("/weak", Self.ranged("0123456789", etag: "W/\"w\""))
        _ = try await fixture.get("/weak", headers: [("Range", "bytes=0-4")])
        #expect(try await fixture.get("/weak").0 == "0123456789")
        #expect(weak.withLock { $0.last?.header("Range") } == nil)
        // A part of another representation (new tag) replaces the stored part, never joins it.
        let version = TestLocked("\"v1\"")
        fixture.route("/changing") { request, index in
            Self.ranged(index == 0 ? "aaaaaaaaaa" : "bbbbbbbbbb", etag: version.withLock { $0 })(request, index)
        }
        _ = try await fixture.get("/changing", headers: [("Range", "bytes=0-4")])
        version.withLock { $0 = "\"v2\"" }
        #expect(try await fixture.get("/changing", headers: [("Range", "bytes=5-9")]).0 == "bbbbb")
        let (tail, response) = try await fixture.get("/changing", headers: [("Range", "bytes=6-7")])
        #expect(tail == "bb")
        #expect(response.cacheOutcome == .hit)
        #expect(try await fixture.get("/changing", headers: [("Range", "bytes=0-1")]).0 == "bb")
    }

    @Test func rangesAndContentRangesParseAsRFC9110Says() {
        #expect(ByteRangeSpec("bytes=0-1")?.resolved(length: 10) == 0...1)
        #expect(ByteRangeSpec("bytes=5-")?.resolved(length: 10) == 5...9)
        #expect(ByteRangeSpec("bytes=-3")?.resolved(length: 10) == 7...9)
        #expect(ByteRangeSpec("bytes=-30")?.resolved(length: 10) == 0...9)
        #expect(ByteRangeSpec("bytes=8-20")?.resolved(length: 10) == 8...9)
        #expect(ByteRangeSpec("Bytes=2-4")?.resolved(length: 10) == 2...4)
        #expect(ByteRangeSpec("bytes = 2-4") == nil)
        #expect(ByteRangeSpec("bytes=10-")?.resolved(length: 10) == nil)
        #expect(ByteRangeSpec("bytes=-0")?.resolved(length: 10) == nil)
        for invalid in ["bytes=", "bytes=5-2", "bytes=a-b", "bytes=0-1,3-4", "items=0-1", "bytes=--1", "bytes=1"] {
            #expect(ByteRangeSpec(invalid) == nil, "\(invalid)")
        }
        #expect(ContentRange("bytes 4-9/10") == ContentRange(range: 4...9, completeLength: 10))
        #expect(ContentRange("bytes 0-0/*") == ContentRange(range: 0...0, completeLength: nil))
        for invalid in ["bytes 4-9/5", "bytes 9-4/10", "bytes */10", "items 0-1/2", "bytes 0-1"] {
            #expect(ContentRange(invalid) == nil, "\(invalid)")
        }
    }
}
