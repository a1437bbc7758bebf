import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct HTTPCacheStorageTests {
    static func bearer(_ token: String) -> JWTAuth {
        JWTAuth(
            initialTokens: JWTAuth.TokenPair(accessToken: token, refreshToken: "r-\(token)"),
            refreshHandler: { _ in JWTAuth.TokenPair(accessToken: token, refreshToken: "r") })
    }

    @Test func twoCredentialsNeverShareAnEntryAndALogoutClearsOnlyItsOwn() async throws {
        let fixture = try CacheFixture()
        let seen = fixture.route("/me") { request, _ in
            .text(request.header("Authorization") ?? "anonymous", [("Cache-Control", "private, max-age=60")])
        }
        let alice = Self.bearer("alice-secret")
        let bob = Self.bearer("bob-secret")
        #expect(try await fixture.get("/me", auth: alice).0 == "Bearer alice-secret")
        #expect(try await fixture.get("/me", auth: bob).0 == "Bearer bob-secret")
        #expect(try await fixture.get("/me").0 == "anonymous")
        #expect(try await fixture.get("/me", auth: alice).0 == "Bearer alice-secret")
        #expect(try await fixture.get("/me", auth: bob).1.cacheOutcome == .hit)
        #expect(seen.withLock { $0.count } == 3)
        // No key holds a secret in clear.
        let keys = Self.allKeys(fixture.cache)
        #expect(!keys.isEmpty)
        #expect(keys.allSatisfy { !$0.contains("secret") })

        await fixture.cache.removeEntries(storedWith: alice)
        #expect(try await fixture.get("/me", auth: alice).1.cacheOutcome == .miss)
        #expect(try await fixture.get("/me", auth: bob).1.cacheOutcome == .hit)
        #expect(try await fixture.get("/me").1.cacheOutcome == .hit)
        fixture.cache.removeAll()
        #expect(try await fixture.get("/me", auth: bob).1.cacheOutcome == .miss)
    }

    /// Every key, with the request values `Vary` recorded.
    static func allKeys(_ cache: HTTPCache) -> [String] {
        cache.store.allResponses().map { response in
            response.key + " " + response.varied.map { "\($0.key)=\($0.value ?? "")" }.joined()
        }
    }

    @Test func varyAuthorizationRecordsADigestNotTheSecret() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = try CacheFixture(storage: .disk(directory: directory, maximumBytes: 1 << 20))
        fixture.route("/vary-auth") { _, _ in
            .text("mine", [("Cache-Control", "max-age=60"), ("Vary", "Authorization")])
        }
        let alice = Self.bearer("alice-secret")
        _ = try await fixture.get("/vary-auth", auth: alice)
        #expect(try await fixture.get("/vary-auth", auth: alice).1.cacheOutcome == .hit)
        let keys = Self.allKeys(fixture.cache)
        #expect(keys.count == 1)
        #expect(keys.allSatisfy { $0.contains("authorization=hmac:") && !$0.contains("secret") })
        for file in HTTPCacheDiskTests.cacheFiles(in: directory) {
            let text = String(decoding: try Data(contentsOf: directory.appendingPathComponent(file)), as: UTF8.self)
            #expect(!text.contains("alice-secret"))
        }
    }

    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("endpoints-cache-\(UUID().uuidString)")
    }

    @Test func aDiskStoreOutlivesItsCacheAndATruncatedEntryIsAMiss() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = try CacheFixture(storage: .disk(directory: directory, maximumBytes: 1 << 20))
        let seen = fixture.route("/file") { _, index in
            .text("body \(index) " + String(repeating: "x", count: 500), [("Cache-Control", "max-age=600")])
        }
        let (first, _) = try await fixture.get("/file")
        // Another cache on the same directory (a new launch) finds it.
        let relaunched = HTTPCache(storage: .disk(directory: directory, maximumBytes: 1 << 20))
        let client = EndpointClient(session: fixture.session, middleware: [relaunched])
        let request = Request<Data>.get(RequestTarget(fixture.server.url("/file").absoluteString))
        let again = try await client.typedResponse(for: request)
        #expect(String(decoding: again.value, as: UTF8.self) == first)
        #expect(again.httpResponse.cacheOutcome == .hit)

        // Cut the file short while the process runs: a miss, never a crash or a wrong body.
        let files = HTTPCacheDiskTests.entryFiles(in: directory)
        #expect(files.count == 1)
        let file = directory.appendingPathComponent(files[0])
        let whole = try Data(contentsOf: file)
        try whole.prefix(whole.count - 100).write(to: file)
        let (afterCut, response) = try await fixture.get("/file")
        #expect(response.cacheOutcome == .miss)
        #expect(afterCut.hasPrefix("body 1"))
        #expect(seen.withLock { $0.count } == 2)

        // A byte changed in the body: also a miss.
        var changed = try Data(contentsOf: file)
        changed[changed.count - 1] ^= 0xFF
        try changed.write(to: file)
        #expect(try await fixture.get("/file").1.cacheOutcome == .miss)
        #expect(try await fixture.get("/file").1.cacheOutcome == .hit)
    }

    @Test func concurrentWritersNeverInterleaveAnEntry() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Two stores on the directory, as two instances or two processes would be.
        let stores = [
            CacheStore(directory: directory, maximumBytes: 1 << 24),
            CacheStore(directory: directory, maximumBytes: 1 << 24),
        ]
        let store = stores[0]
        let bodies = (0..<40).map { Data(repeating: UInt8($0), count: 20_000) }
        await withTaskGroup(of: Void.self) { group in
            for (index, body) in bodies.enumerated() {
                group.addTask {
                    stores[index % 2].store(
                        CachedResponse(
                            key: "GET http://x/ ", credential: "", url: "http://x/", status: 200,
                            headers: ["Cache-Control": "max-age=60"], varied: [:], requestTime: 0, responseTime: 0,
                            body: body))
                }
            }
        }
        let found = store.responses(for: "GET http://x/ ")
        #expect(found.count == 1)
        #expect(bodies.contains(found.first?.body ?? Data()))
        #expect(HTTPCacheDiskTests.entryFiles(in: directory).count == 1)
        // Every temporary file was renamed into place.
        #expect(HTTPCacheDiskTests.cacheFiles(in: directory).filter { $0.contains("tmp-") }.isEmpty)
    }

    @Test func theLeastRecentlyUsedEntryGoesFirst() async throws {
        let fixture = try CacheFixture(storage: .memory(maximumBytes: 3000))
        fixture.route("/lru/*") { _, _ in .text(String(repeating: "x", count: 700), [("Cache-Control", "max-age=600")])
        }
        _ = try await fixture.get("/lru/a")
        _ = try await fixture.get("/lru/b")
        _ = try await fixture.get("/lru/c")
        #expect(try await fixture.get("/lru/a").1.cacheOutcome == .hit)  // a is now the most recent
        _ = try await fixture.get("/lru/d")  // evicts b
        #expect(try await fixture.get("/lru/a").1.cacheOutcome == .hit)
        #expect(try await fixture.get("/lru/b").1.cacheOutcome == .miss)
        #expect(fixture.cache.store.totalCost <= 3000)
        // Larger than the whole store: not kept.
        fixture.route("/huge") { _, _ in .text(String(repeating: "y", count: 5000), [("Cache-Control", "max-age=600")])
        }
        _ = try await fixture.get("/huge")
        #expect(try await fixture.get("/huge").1.cacheOutcome == .miss)
    }
}
