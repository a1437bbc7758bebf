import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The files of a disk ``CacheStore``: all of them in one folder of the user's directory,
/// ``folderName``, which the cache creates and owns. Nothing outside it is ever written or
/// removed (but for the entries the earlier layout wrote straight in the directory, see
/// ``CacheStore/migrateEarlierEntries(from:)``), and inside it only the names the cache gives.
///
/// ```
/// directory/                  the user's: their files stay as they are
///   Endpoints.HTTPCache/      the cache's (0700)
///     salt                    32 random bytes (0600): the key of the HMAC in every key
///     v1-migrated             written once the earlier layout's entries were moved in
///     tmp-<UUID>              an entry being written, renamed into place when whole
///     <2 hex>/                one of 256 folders, by the first byte of the resource's hash
///       <16 hex>-<cred>-<16 hex>
///                             one variant (0600): the FNV-1a of the method and URL, the first
///                             32 hex digits of the credential's digest ("none" without one),
///                             the FNV-1a of the `Vary` values
/// ```
///
/// Opening reads no entry: the salt, then one folder listing per lookup. So two instances (or
/// two processes) on one directory see each other's entries at their next lookup, and what one
/// removes is gone for the other. The size each one counts is what it found on its first write
/// (one listing of each folder and a `stat` per file: 10,000 entries in about 0.2 s), what it
/// wrote and what it read since (see ``CacheStore``).
struct DiskCacheStore: Sendable {
    /// The directory the user gave.
    let directory: URL
    /// The cache's own folder in it.
    let root: URL
    /// Its path: the files are named by strings, `URL` took most of the time of counting them.
    let rootPath: String

    static let folderName = "Endpoints.HTTPCache"

    /// Opens (creating when needed) the cache's folder in `directory`, and its salt: the one
    /// already there, or a new one; when the folder cannot be made, the salt only lives as long
    /// as the process, and every write fails (nothing is stored).
    static func open(_ directory: URL) -> (DiskCacheStore, CacheKeying) {
        let root = directory.appendingPathComponent(folderName, isDirectory: true)
        try? FileManager.default.createDirectory(
            at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let store = DiskCacheStore(directory: directory, root: root, rootPath: root.path)
        return (store, store.salt() ?? .random())
    }

    // MARK: - Names

    /// The relative path of the entry `response` is stored under.
    static func id(of response: CachedResponse) -> String {
        id(resource: response.resource, credential: response.credential, varied: response.varied)
    }

    static func id(resource: String, credential: String, varied: [String: String?]) -> String {
        let values = varied.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value ?? "\u{0}")" }
        let variant = hex16(CacheStore.checksum(Data(values.joined(separator: "\n").utf8)))
        return prefix(resource: resource, credential: credential) + variant
    }

    /// What the ids of a resource's entries start with: its folder and hash, then (with a
    /// credential) the credential's tag.
    static func prefix(resource: String, credential: String? = nil) -> String {
        let hash = hex16(CacheStore.checksum(Data(resource.utf8)))
        return hash.prefix(2) + "/" + hash + "-" + (credential.map { credentialTag($0) + "-" } ?? "")
    }

    /// What an entry's name holds for a credential's digest.
    static func credentialTag(_ credential: String) -> String {
        credential.isEmpty ? "none" : String(credential.prefix(32))
    }

    static func hex16(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    static func isFolderName(_ name: Substring) -> Bool { name.utf8.count == 2 && name.utf8.allSatisfy(isHexDigit) }

    static func isEntryName(_ name: Substring) -> Bool {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].utf8.count == 16, parts[2].utf8.count == 16,
            parts[0].utf8.allSatisfy(isHexDigit), parts[2].utf8.allSatisfy(isHexDigit)
        else { return false }
        return parts[1] == "none" || (parts[1].utf8.count == 32 && parts[1].utf8.allSatisfy(isHexDigit))
    }

    /// Whether `id` is `<folder>/<entry>` as the cache names them.
    static func isEntryID(_ id: String) -> Bool {
        let parts = id.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 2 && isFolderName(parts[0]) && isEntryName(parts[1])
    }

    static func isHexDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) }

    func path(of id: String) -> String { rootPath + "/" + id }

    // MARK: - Salt

    /// The salt in the folder, made (and linked into place, so that two processes opening at
    /// once agree on one) when there is none; `nil` when it can be neither read nor made.
    private func salt() -> CacheKeying? {
        let file = path(of: "salt")
        if let existing = FileManager.default.contents(atPath: file), existing.count == CacheKeying.saltLength {
            return CacheKeying(salt: [UInt8](existing))
        }
        let fresh = CacheKeying.randomSalt()
        let temporary = path(of: "tmp-\(UUID().uuidString)")
        guard Self.create(temporary, with: Data(fresh)) else { return nil }
        defer { unlink(temporary) }
        if link(temporary, file) == 0 { return CacheKeying(salt: fresh) }
        if let existing = FileManager.default.contents(atPath: file), existing.count == CacheKeying.saltLength {
            return CacheKeying(salt: [UInt8](existing))
        }
        // A salt file of the wrong size (cut short by hand): replaced, and the entries keyed with
        // it, which nothing can find any more, removed.
        guard rename(temporary, file) == 0 else { return nil }
        removeEntries { _ in true }
        return CacheKeying(salt: fresh)
    }

    // MARK: - Entries

    /// The ids of the entries that start with `prefix` (``prefix(resource:credential:)``).
    func ids(startingWith prefix: String) -> [String] {
        let folder = String(prefix.prefix(2))
        return Self.names(in: path(of: folder)).map { folder + "/" + $0 }.filter {
            $0.hasPrefix(prefix) && Self.isEntryID($0)
        }
    }

    /// The ids of every entry.
    func allIDs() -> [String] {
        Self.names(in: rootPath).filter { Self.isFolderName(Substring($0)) }.flatMap { folder in
            Self.names(in: path(of: folder)).map { folder + "/" + $0 }.filter(Self.isEntryID)
        }
    }

    /// The names in `directory` (none when it cannot be read), by `readdir`: `FileManager` took
    /// ten times as long on Linux.
    static func names(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) {
                    String(cString: $0)
                }
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// The entry `id` read whole and checked, with its size; `nil` when it is missing, cut short
    /// or changed.
    func read(_ id: String) -> (response: CachedResponse, size: Int)? {
        guard let data = FileManager.default.contents(atPath: path(of: id)), let response = CacheStore.decode(data)
        else { return nil }
        return (response, data.count)
    }

    /// Writes `data` under a temporary name, then renames it over the entry `id`, so that a
    /// reader sees the old entry or the new one, never a mix. Whether it was written.
    ///
    /// Not synced to the disk (`Data.write` syncs each file, which took 5 ms an entry here
    /// against 0.2 ms): after a crash an entry may be cut short, and its checksum then makes it
    /// a miss.
    func write(_ data: Data, to id: String) -> Bool {
        let temporary = path(of: "tmp-\(UUID().uuidString)")
        guard Self.create(temporary, with: data) else { return false }
        let target = path(of: id)
        var renamed = rename(temporary, target) == 0
        if !renamed, errno == ENOENT {
            // The first write to a folder makes it (folders are never removed).
            mkdir(path(of: String(id.prefix(2))), 0o700)
            renamed = rename(temporary, target) == 0
        }
        if !renamed { unlink(temporary) }
        return renamed
    }

    /// Creates `file` (readable by its owner only) holding `data`.
    static func create(_ file: String, with data: Data) -> Bool {
        let descriptor = Foundation.open(file, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { return false }
        let written = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        guard close(descriptor) == 0, written else {
            unlink(file)
            return false
        }
        return true
    }

    /// Removes the entries `ids` (an id that is not an entry's is left alone).
    func remove(_ ids: [String]) {
        for id in ids where Self.isEntryID(id) { unlink(path(of: id)) }
    }

    /// Removes the entries `ids` picks from ``allIDs()`` (or among `candidates`); returns them.
    @discardableResult
    func removeEntries(among candidates: [String]? = nil, where shouldRemove: (String) -> Bool) -> [String] {
        let removed = (candidates ?? allIDs()).filter(shouldRemove)
        remove(removed)
        return removed
    }

    /// Every entry with its size and last change (a hit sets it, see ``touch(_:)``): what the
    /// store counts against its limit, oldest first. Temporary files older than an hour (left by
    /// a process that stopped mid-write) are removed on the way.
    func count() -> [(id: String, size: Int)] {
        let now = Date().timeIntervalSince1970
        for name in Self.names(in: rootPath) where name.hasPrefix("tmp-") {
            if let (_, modified) = Self.status(path(of: name)), now - modified > 3600 { unlink(path(of: name)) }
        }
        return allIDs().compactMap { id in Self.status(path(of: id)).map { (id, $0.size, $0.modified) } }
            .sorted { $0.2 < $1.2 }.map { ($0.0, $0.1) }
    }

    /// Marks the entry `id` as just used, for the order ``count()`` gives after a relaunch.
    func touch(_ id: String) { utimes(path(of: id), nil) }

    /// The size and time of last change of a regular file.
    static func status(_ file: String) -> (size: Int, modified: Double)? {
        var info = stat()
        guard lstat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        #if canImport(Darwin)
            let modified = Double(info.st_mtimespec.tv_sec) + Double(info.st_mtimespec.tv_nsec) / 1e9
        #else
            let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        #endif
        return (Int(info.st_size), modified)
    }
}
