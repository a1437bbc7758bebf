import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension CacheStore {
    /// Moves into the cache's folder the entries that the earlier layout (until issue 37) wrote
    /// straight in the directory, once: after it, `v1-migrated` in the folder says it was done, so
    /// later openings do not list the user's directory at all.
    ///
    /// A file is taken for one of those entries only when its name is what that layout named it
    /// (the hex FNV-1a of the key and `Vary` values it holds) and it reads whole with its
    /// checksum; a temporary file only when its name is `tmp-` and a UUID and it starts as those
    /// entries did. Anything else is left alone. Entries stored without a credential are moved;
    /// those with one are removed, not moved: their keys hold an unsalted SHA-256 of the
    /// credential, the very thing the salt is there to prevent, so they are asked for again.
    func migrateEarlierEntries(from disk: DiskCacheStore) {
        let marker = disk.root.appendingPathComponent("v1-migrated")
        guard !FileManager.default.fileExists(atPath: marker.path) else { return }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: disk.directory.path)) ?? [] {
            let file = disk.directory.appendingPathComponent(name)
            if name.hasPrefix("tmp-") {
                if UUID(uuidString: String(name.dropFirst(4))) != nil, Self.startsAsAnEntry(file.path) {
                    unlink(file.path)
                }
                continue
            }
            // The magic is checked before the file is read whole: a user's file may be large.
            guard name.utf8.count <= 16, name.utf8.allSatisfy(DiskCacheStore.isHexDigit),
                Self.startsAsAnEntry(file.path), let data = FileManager.default.contents(atPath: file.path),
                let response = Self.decode(data),
                name == Self.earlierName(of: response)
            else { continue }
            let keyedByCredential =
                !response.credential.isEmpty
                || response.varied.values.contains { $0?.hasPrefix("sha256:") == true }
            if !keyedByCredential { store(response) }
            unlink(file.path)
        }
        _ = FileManager.default.createFile(atPath: marker.path, contents: nil)
    }

    /// The name the earlier version gave the entry of `response`.
    static func earlierName(of response: CachedResponse) -> String {
        let varied = response.varied.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value ?? "\u{0}")" }
        return String(checksum(Data(([response.key] + varied).joined(separator: "\n").utf8)), radix: 16)
    }

    /// Whether `file` starts with the entries' magic.
    static func startsAsAnEntry(_ file: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: file) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: magic.count)) == magic
    }
}
