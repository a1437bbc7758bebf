import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A disk cache in a directory it shares: with the user's own files, with the files an earlier
/// version wrote, with other instances; and what its files give away.
@Suite struct HTTPCacheDiskTests {
    /// Files a user keeps in the directory they hand the cache, by path, with their contents:
    /// among them names and contents that look like the cache's own.
    static let userFiles = [
        "settings.json": "{\"theme\":\"dark\"}",
        "thumbnails/a.png": "not really a png",
        "thumbnails/deeper/b.png": "nor this",
        "abc123": "a name that is hex",
        "0f": "EPC1 and then not an entry",
        "tmp-notes": "a name the earlier version used for its temporary files",
        "Endpoints.HTTPCache.txt": "beside the cache's folder",
    ]

    static func writeUserFiles(in directory: URL) throws {
        for (path, text) in userFiles {
            let file = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
    }

    static func expectUserFilesIntact(in directory: URL, sourceLocation: SourceLocation = #_sourceLocation) {
        for (path, text) in userFiles {
            let data = try? Data(contentsOf: directory.appendingPathComponent(path))
            #expect(data.map { String(decoding: $0, as: UTF8.self) } == text, "\(path)", sourceLocation: sourceLocation)
        }
    }

    /// Every regular file under `directory` (relative paths), the user's left out.
    static func cacheFiles(in directory: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: directory.path)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(
                atPath: directory.appendingPathComponent(path).path, isDirectory: &isDirectory)
            if !isDirectory.boolValue, userFiles[path] == nil { files.append(path) }
        }
        return files.sorted()
    }

    /// The entries' files under `directory` (relative paths): those in the folders of the cache's.
    static func entryFiles(in directory: URL) -> [String] {
        cacheFiles(in: directory).filter { $0.hasPrefix("Endpoints.HTTPCache/") && $0.split(separator: "/").count == 3 }
    }

    /// A cache on `directory` with the fixture's clock, and a client through it.
    static func sibling(of fixture: CacheFixture, directory: URL, maximumBytes: Int = 1 << 20) -> (
        HTTPCache, EndpointClient
    ) {
        let clock = fixture.clock
        let cache = HTTPCache(
            storage: .disk(directory: directory, maximumBytes: maximumBytes), coalescing: false,
            servesStaleWhenOffline: true
        ) { clock.withLock { $0 } }
        return (cache, EndpointClient(session: fixture.session, middleware: [cache]))
    }

    static func get(_ client: EndpointClient, _ fixture: CacheFixture, _ path: String) async throws -> (
        String, HTTPURLResponse
    ) {
        let result = try await client.typedResponse(
            for: Request<Data>.get(RequestTarget(fixture.server.url(path).absoluteString)))
        return (String(decoding: result.value, as: UTF8.self), result.httpResponse)
    }

    @Test func theCacheNeverRemovesAFileItDidNotWrite() async throws {
        let directory = HTTPCacheStorageTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.writeUserFiles(in: directory)
        // A limit that forces evictions, so that every way the cache removes files runs.
        let fixture = try CacheFixture(storage: .disk(directory: directory, maximumBytes: 4000))
        fixture.route("/page/*") { request, index in
            request.method == "GET"
                ? .text("page \(index) " + String(repeating: "x", count: 900), [("Cache-Control", "max-age=600")])
                : .status(204)
        }
        for page in 0..<8 { _ = try await fixture.get("/page/\(page)") }
        try await fixture.send(.post, "/page/7")
        await fixture.cache.removeEntries(storedWith: BasicAuth(username: "u", password: "p"))
        Self.expectUserFilesIntact(in: directory)
        fixture.cache.removeAll()
        // What it wrote is in its own folder.
        #expect(Self.cacheFiles(in: directory).allSatisfy { $0.hasPrefix("Endpoints.HTTPCache/") })
        // Opened again with a limit nothing fits in.
        let (reopened, client) = Self.sibling(of: fixture, directory: directory, maximumBytes: 10)
        _ = try await Self.get(client, fixture, "/page/1")
        reopened.removeAll()
        Self.expectUserFilesIntact(in: directory)
    }

    /// What the earlier version wrote, straight in the directory: `EPC1`, the lengths, the
    /// FNV-1a checksum, the head as JSON and the body, named by the FNV-1a of the key.
    static func legacyEntry(
        key: String, credential: String, url: String, headers: [String: String], varied: [String: String],
        time: TimeInterval, body: String
    ) throws -> (name: String, data: Data) {
        let head: [String: Any] = [
            "key": key, "credential": credential, "url": url, "status": 200, "headers": headers,
            "varied": varied, "requestTime": time, "responseTime": time, "body": "",
        ]
        let json = try JSONSerialization.data(withJSONObject: head)
        let bodyData = Data(body.utf8)
        var data = Data("EPC1".utf8)
        for value in [UInt64(json.count), UInt64(bodyData.count), CacheStore.checksum(json, bodyData)] {
            withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
        }
        data.append(json)
        data.append(bodyData)
        let variedText = varied.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let name = String(CacheStore.checksum(Data(([key] + variedText).joined(separator: "\n").utf8)), radix: 16)
        return (name, data)
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func aDirectoryTheEarlierVersionWroteOpensAndKeepsItsAnonymousEntries() async throws {
        let directory = HTTPCacheStorageTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.writeUserFiles(in: directory)
        let fixture = try CacheFixture(storage: .memory(maximumBytes: 1 << 20))
        let old = fixture.route("/old") { _, _ in .text("from the server", [("Cache-Control", "max-age=600")]) }
        let mine = fixture.route("/mine") { _, _ in .text("from the server", [("Cache-Control", "max-age=600")]) }
        let now = fixture.clock.withLock { $0 }.timeIntervalSince1970
        let oldURL = fixture.server.url("/old").absoluteString
        let anonymous = try Self.legacyEntry(
            key: "GET \(oldURL) ", credential: "", url: oldURL, headers: ["Cache-Control": "max-age=600"], varied: [:],
            time: now, body: "stored by the earlier version")
        // A credential's entry: its key holds the unsalted SHA-256 the issue is about.
        let mineURL = fixture.server.url("/mine").absoluteString
        let unsalted = Self.hex(SHA256.hash(Array("authorization:Basic dTpw".utf8)))
        let keyed = try Self.legacyEntry(
            key: "GET \(mineURL) \(unsalted)", credential: unsalted, url: mineURL,
            headers: ["Cache-Control": "max-age=600"], varied: [:], time: now, body: "alice's, stored earlier")
        let leftover = "tmp-\(UUID().uuidString)"
        for (name, data) in [anonymous, keyed, (leftover, keyed.data.prefix(40))] {
            try data.write(to: directory.appendingPathComponent(name))
        }

        let (_, client) = Self.sibling(of: fixture, directory: directory)
        let (body, response) = try await Self.get(client, fixture, "/old")
        #expect(body == "stored by the earlier version")
        #expect(response.cacheOutcome == .hit)
        #expect(old.withLock { $0.count } == 0)
        // The credential's entry is not kept (its key could be guessed): a miss, its file gone.
        let result = try await client.typedResponse(
            for: Request<Data>.get(RequestTarget(mineURL)).auth(BasicAuth(username: "u", password: "p")))
        #expect(String(decoding: result.value, as: UTF8.self) == "from the server")
        #expect(mine.withLock { $0.count } == 1)
        for name in [anonymous.name, keyed.name, leftover] {
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path), "\(name)")
        }
        Self.expectUserFilesIntact(in: directory)
        for file in Self.cacheFiles(in: directory) {
            let text = String(decoding: try Data(contentsOf: directory.appendingPathComponent(file)), as: UTF8.self)
            #expect(!text.contains(unsalted), "\(file)")
        }
    }

    @Test func twoInstancesOnOneDirectorySeeEachOthersEntriesAndRemovals() async throws {
        let directory = HTTPCacheStorageTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = try CacheFixture(storage: .disk(directory: directory, maximumBytes: 1 << 20))
        let seen = fixture.route("/shared") { request, index in
            request.method == "GET" ? .text("v\(index)", [("Cache-Control", "max-age=600")]) : .status(204)
        }
        // Both open before anything is stored, as two processes started together would.
        let (other, otherClient) = Self.sibling(of: fixture, directory: directory)
        #expect(try await fixture.get("/shared").1.cacheOutcome == .miss)
        let (body, response) = try await Self.get(otherClient, fixture, "/shared")
        #expect(body == "v0")
        #expect(response.cacheOutcome == .hit)
        #expect(seen.withLock { $0.count } == 1)
        // A POST through one invalidates for both.
        _ = try await otherClient.typedResponse(
            for: Request<Data>.request(.post, RequestTarget(fixture.server.url("/shared").absoluteString)))
        #expect(try await fixture.get("/shared").1.cacheOutcome == .miss)
        #expect(try await Self.get(otherClient, fixture, "/shared").1.cacheOutcome == .hit)
        // So does removing everything, and a logout.
        other.removeAll()
        #expect(try await fixture.get("/shared").1.cacheOutcome == .miss)
        let alice = BasicAuth(username: "alice", password: "wonderland")
        fixture.route("/me") { _, index in .text("me \(index)", [("Cache-Control", "max-age=600")]) }
        #expect(try await fixture.get("/me", auth: alice).1.cacheOutcome == .miss)
        let me = Request<Data>.get(RequestTarget(fixture.server.url("/me").absoluteString)).auth(alice)
        #expect(try await otherClient.typedResponse(for: me).httpResponse.cacheOutcome == .hit)
        await other.removeEntries(storedWith: alice)
        #expect(try await fixture.get("/me", auth: alice).1.cacheOutcome == .miss)
    }

    /// The sizes of the entries' files.
    static func storedBytes(in directory: URL) -> Int {
        entryFiles(in: directory).reduce(0) { total, path in
            let size = try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(path).path)[
                .size]
            return total + ((size as? NSNumber)?.intValue ?? 0)
        }
    }

    @Test func twoInstancesHoldAtMostTheirTwoLimitsAndTheNextToOpenTrimsToItsOwn() async throws {
        let directory = HTTPCacheStorageTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let limit = 6000
        let fixture = try CacheFixture(storage: .disk(directory: directory, maximumBytes: limit))
        fixture.route("/sized/*") { _, _ in
            .text(String(repeating: "z", count: 800), [("Cache-Control", "max-age=600")])
        }
        let (_, otherClient) = Self.sibling(of: fixture, directory: directory, maximumBytes: limit)
        for index in 0..<10 {
            _ = try await fixture.get("/sized/a\(index)")
            _ = try await Self.get(otherClient, fixture, "/sized/b\(index)")
        }
        let both = Self.storedBytes(in: directory)
        #expect(both > limit)
        #expect(both <= 2 * limit)
        let (_, thirdClient) = Self.sibling(of: fixture, directory: directory, maximumBytes: limit)
        _ = try await Self.get(thirdClient, fixture, "/sized/c")
        #expect(Self.storedBytes(in: directory) <= limit)
    }

    @Test func theLeastRecentlyUsedGoesFirstAcrossLaunches() async throws {
        let directory = HTTPCacheStorageTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = try CacheFixture(storage: .disk(directory: directory, maximumBytes: 1 << 20))
        fixture.route("/used/*") { _, _ in .text(String(repeating: "u", count: 500), [("Cache-Control", "max-age=600")])
        }
        for name in ["a", "b", "c"] { _ = try await fixture.get("/used/\(name)") }
        // Written in that order, minutes apart (set here: a file's time may not tell writes a
        // millisecond apart).
        let files = Self.entryFiles(in: directory)
        #expect(files.count == 3)
        var sizes = 0
        for file in files {
            let path = directory.appendingPathComponent(file).path
            let url = CacheStore.decode(try Data(contentsOf: URL(fileURLWithPath: path)))?.url ?? ""
            let age = url.hasSuffix("/used/a") ? 300.0 : url.hasSuffix("/used/b") ? 200 : 100
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: path)
            sizes += (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        }
        // A later launch uses a, which becomes the most recent.
        let (_, second) = Self.sibling(of: fixture, directory: directory)
        #expect(try await Self.get(second, fixture, "/used/a").1.cacheOutcome == .hit)
        // The next, with room for three, stores a fourth: b goes.
        let (_, third) = Self.sibling(of: fixture, directory: directory, maximumBytes: sizes + sizes / 3 - 1)
        _ = try await Self.get(third, fixture, "/used/d")
        let (_, fourth) = Self.sibling(of: fixture, directory: directory)
        for (name, outcome) in [("a", HTTPCache.Outcome.hit), ("c", .hit), ("d", .hit), ("b", .miss)] {
            #expect(try await Self.get(fourth, fixture, "/used/\(name)").1.cacheOutcome == outcome, "\(name)")
        }
    }

    @Test func openingReadsNoEntryAndALookupReadsOnlyItsURLs() async throws {
        let directory = HTTPCacheStorageTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = try CacheFixture(storage: .disk(directory: directory, maximumBytes: 1 << 20))
        fixture.route("/many/*") { _, index in .text("v\(index)", [("Cache-Control", "max-age=600")]) }
        for index in 0..<40 { _ = try await fixture.get("/many/\(index)") }
        let (reopened, client) = Self.sibling(of: fixture, directory: directory)
        #expect(reopened.store.filesRead == 0)
        #expect(try await Self.get(client, fixture, "/many/7").1.cacheOutcome == .hit)
        #expect(reopened.store.filesRead == 1)
    }

    @Test func aStoredKeyCannotBeGuessedFromTheFiles() async throws {
        let directory = HTTPCacheStorageTests.directory()
        let otherDirectory = HTTPCacheStorageTests.directory()
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(at: otherDirectory)
        }
        let fixture = try CacheFixture(storage: .disk(directory: directory, maximumBytes: 1 << 20))
        fixture.route("/basic") { _, _ in .text("private", [("Cache-Control", "max-age=600")]) }
        fixture.route("/basic-vary") { _, _ in
            .text("private", [("Cache-Control", "max-age=600"), ("Vary", "Authorization")])
        }
        let weak = BasicAuth(username: "user", password: "hunter2")
        let header = "Basic " + Data("user:hunter2".utf8).base64EncodedString()
        _ = try await fixture.get("/basic", auth: weak)
        _ = try await fixture.get("/basic-vary", auth: weak)
        #expect(try await fixture.get("/basic", auth: weak).1.cacheOutcome == .hit)
        #expect(try await fixture.get("/basic-vary", auth: weak).1.cacheOutcome == .hit)
        // What the earlier version wrote: the SHA-256 of the credential line and of the value.
        let guessable = [
            Self.hex(SHA256.hash(Array("authorization:\(header)".utf8))), Self.hex(SHA256.hash(Array(header.utf8))),
        ]
        let files = Self.cacheFiles(in: directory)
        #expect(files.count >= 3)  // two entries and the salt
        for file in files {
            let text = String(decoding: try Data(contentsOf: directory.appendingPathComponent(file)), as: UTF8.self)
            for digest in guessable { #expect(!text.contains(digest), "\(file)") }
            #expect(!text.contains("hunter2") && !text.contains(header), "\(file)")
        }
        // Another store salts the same credential differently.
        let (other, otherClient) = Self.sibling(of: fixture, directory: otherDirectory)
        _ = try await otherClient.typedResponse(
            for: Request<Data>.get(RequestTarget(fixture.server.url("/basic").absoluteString)).auth(weak))
        let keys = Set(HTTPCacheStorageTests.allKeys(fixture.cache).filter { !$0.contains("authorization=") })
        let otherKeys = Set(HTTPCacheStorageTests.allKeys(other))
        #expect(keys.count == 1 && otherKeys.count == 1)
        #expect(keys.isDisjoint(with: otherKeys))
    }

    @Test func theSaltIsInNoDescription() throws {
        let directory = HTTPCacheStorageTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = HTTPCache(storage: .disk(directory: directory, maximumBytes: 1 << 20))
        let salt = try [UInt8](Data(contentsOf: directory.appendingPathComponent("Endpoints.HTTPCache/salt")))
        #expect(salt.count == 32)
        var dumped = ""
        dump(cache, to: &dumped)
        for text in [String(describing: cache), String(reflecting: cache), dumped, "\(cache.store)"] {
            #expect(!text.contains(Self.hex(salt)))
            #expect(!text.contains(Data(salt).base64EncodedString()))
            #expect(!text.contains(salt.prefix(4).map { "\($0), " }.joined()))
            // `dump` of a byte array writes one byte a line.
            let lines = text.split(separator: "\n").map { CacheControl.trimmed($0) }.joined(separator: "\n")
            #expect(!lines.contains(salt.prefix(4).map { "- \($0)" }.joined(separator: "\n")))
        }
        #expect(dumped.contains("<redacted>"))
        let memory = HTTPCache()
        var memoryDump = ""
        dump(memory, to: &memoryDump)
        #expect(memoryDump.contains("<redacted>"))
    }
}
