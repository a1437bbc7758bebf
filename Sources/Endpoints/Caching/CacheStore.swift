import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where ``HTTPCache`` keeps its responses: in memory, or in files (``DiskCacheStore``), with an
/// index in memory of their sizes and last uses (least recently used first out when the size
/// limit is passed).
///
/// In memory the index holds the responses. On disk it holds only sizes: a lookup lists the
/// folder of its URL and reads its files, so opening reads nothing, and another instance's
/// entries are found at the next lookup. The sizes of the files already there are counted on the
/// first write (one listing, no reads); an entry another instance writes later is counted when
/// this one reads it. Each file starts with a header giving the lengths and a checksum of what
/// follows: an entry cut short or changed on disk is a miss (and is removed), never a crash or a
/// wrong body.
final class CacheStore: Sendable {
    let maximumBytes: Int
    /// How credentials become parts of keys.
    let keying: CacheKeying
    /// The files, `nil` in memory.
    let disk: DiskCacheStore?
    private let state: Locked<State>
    /// Whether the files already on disk were counted; held while they are, once.
    private let counted = Locked(false)
    private let reads = Locked(0)

    /// One stored response: its cost and last use, its response in memory (`nil` on disk), and
    /// the response last shown for it (made again only when its `Age` or outcome changes).
    struct Slot: Sendable {
        var response: CachedResponse?
        var cost: Int
        var lastUse: UInt64
        var shown: (label: String, response: HTTPURLResponse)? = nil
    }

    /// The index: slots by id, the ids of each primary key's variants (in memory), the total cost.
    struct State: Sendable {
        var slots: [String: Slot] = [:]
        var variants: [String: [String]] = [:]
        var total = 0
        var tick: UInt64 = 0

        /// Adds or replaces `slot` under `id`, then drops the least recently used slots while the
        /// total passes `limit`; returns the ids dropped (their files to remove).
        mutating func insert(_ slot: Slot, id: String, limit: Int) -> [String] {
            var dropped = remove(id)
            dropped.removeAll { $0 == id }
            tick += 1
            var slot = slot
            slot.lastUse = tick
            slots[id] = slot
            if let key = slot.response?.key { variants[key, default: []].append(id) }
            total += slot.cost
            return dropped + trim(to: limit)
        }

        /// Counts an entry found on disk that the index did not hold, as just used.
        mutating func learn(_ id: String, cost: Int, limit: Int) -> [String] {
            guard slots[id] == nil else { return [] }
            return insert(Slot(response: nil, cost: cost, lastUse: 0), id: id, limit: limit)
        }

        /// Adds the entries found on disk (oldest first) that the index does not hold, as used
        /// before every entry it holds; returns the ids dropped to keep under `limit`.
        mutating func count(_ found: [(id: String, size: Int)], limit: Int) -> [String] {
            let known = slots.sorted { $0.value.lastUse < $1.value.lastUse }.map(\.key)
            let unknown = found.filter { slots[$0.id] == nil }
            for (id, size) in unknown {
                slots[id] = Slot(response: nil, cost: size, lastUse: 0)
                total += size
            }
            tick = 0
            for id in unknown.map(\.id) + known {
                tick += 1
                slots[id]?.lastUse = tick
            }
            return trim(to: limit)
        }

        /// Drops the least recently used slots while the total passes `limit`.
        private mutating func trim(to limit: Int) -> [String] {
            var dropped: [String] = []
            while total > limit, let oldest = slots.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                dropped += remove(oldest)
            }
            return dropped
        }

        /// Removes the slot `id`; returns `[id]` when it was there.
        @discardableResult
        mutating func remove(_ id: String) -> [String] {
            guard let slot = slots.removeValue(forKey: id) else { return [] }
            total -= slot.cost
            if let key = slot.response?.key {
                variants[key]?.removeAll { $0 == id }
                if variants[key]?.isEmpty == true { variants[key] = nil }
            }
            return [id]
        }

        mutating func touch(_ id: String) {
            tick += 1
            slots[id]?.lastUse = tick
        }
    }

    /// A store in memory (`directory` `nil`) or in the cache's folder of `directory`, which is
    /// created when needed. Opening reads no entry; the first opening of a directory the earlier
    /// layout wrote moves its entries in (see ``migrateEarlierEntries(from:)``).
    init(directory: URL?, maximumBytes: Int) {
        self.maximumBytes = max(0, maximumBytes)
        state = Locked(State())
        if let directory {
            (disk, keying) = DiskCacheStore.open(directory)
            migrateEarlierEntries(from: disk!)
        } else {
            (disk, keying) = (nil, .random())
        }
    }

    /// How many entry files were read (for tests).
    var filesRead: Int { reads.withLock { $0 } }

    /// The entry id of a response (``DiskCacheStore/id(of:)``; in memory too, where it only needs
    /// to tell entries apart: two ids that collide only replace each other, and a file read back
    /// is checked against the key it was looked up with).
    static func id(of response: CachedResponse) -> String { DiskCacheStore.id(of: response) }

    /// The stored responses under `key` (most recent first), bodies read: a file that cannot be
    /// read whole and checked is removed and left out.
    func responses(for key: String) -> [CachedResponse] { entries(for: key).map(\.response) }

    /// ``responses(for:)`` with their ids.
    func entries(for key: String) -> [(id: String, response: CachedResponse)] {
        guard let disk else {
            return state.withLock { state in
                (state.variants[key] ?? []).compactMap { id in state.slots[id]?.response.map { (id, $0) } }
            }.sorted { $0.response.responseTime > $1.response.responseTime }
        }
        let (resource, credential) = CachedResponse.split(key)
        var result: [(id: String, response: CachedResponse)] = []
        var dropped: [String] = []
        for id in disk.ids(startingWith: DiskCacheStore.prefix(resource: resource, credential: credential)) {
            reads.withLock { $0 += 1 }
            guard let (response, size) = disk.read(id) else {
                dropped += state.withLock { $0.remove(id) } + [id]
                continue
            }
            // Another URL's whose folder name collides: not ours to answer with, nor to remove.
            guard response.key == key else { continue }
            dropped += state.withLock { $0.learn(id, cost: size, limit: maximumBytes) }
            result.append((id, response))
        }
        disk.remove(dropped)
        return result.sorted { $0.response.responseTime > $1.response.responseTime }
    }

    /// Marks the entry `id` as just used and returns the response shown for it under `label`,
    /// made by `make` when the label changed.
    func show(_ id: String, label: String, make: () -> HTTPURLResponse) -> HTTPURLResponse {
        let memo = state.withLock { state -> HTTPURLResponse? in
            state.touch(id)
            guard let shown = state.slots[id]?.shown, shown.label == label else { return nil }
            return shown.response
        }
        disk?.touch(id)
        if let memo { return memo }
        let response = make()
        state.withLock { $0.slots[id]?.shown = (label, response) }
        return response
    }

    /// Marks the entry `id` as just used.
    func touch(_ id: String) {
        state.withLock { $0.touch(id) }
        disk?.touch(id)
    }

    /// Stores `response`, replacing the one with the same key and `Vary` values; one larger than
    /// the whole store is not kept.
    func store(_ response: CachedResponse) {
        let id = Self.id(of: response)
        var slot = Slot(response: response, cost: response.cost, lastUse: 0)
        if let disk {
            countFilesOnce(disk)
            guard let data = Self.encode(response), data.count <= maximumBytes, disk.write(data, to: id) else {
                remove(id: id)
                return
            }
            slot = Slot(response: nil, cost: data.count, lastUse: 0)
        } else if slot.cost > maximumBytes {
            remove(id: id)
            return
        }
        let dropped = state.withLock { $0.insert(slot, id: id, limit: maximumBytes) }
        disk?.remove(dropped)
    }

    /// Counts the files already on disk, on the first write.
    private func countFilesOnce(_ disk: DiskCacheStore) {
        counted.withLock { counted in
            guard !counted else { return }
            counted = true
            let found = disk.count()
            let dropped = state.withLock { $0.count(found, limit: maximumBytes) }
            disk.remove(dropped)
        }
    }

    /// Removes the response stored under `key` for these `Vary` values.
    func remove(key: String, varied: [String: String?]) {
        let (resource, credential) = CachedResponse.split(key)
        remove(id: DiskCacheStore.id(resource: resource, credential: credential, varied: varied))
    }

    /// Removes every stored response (and its file).
    func removeAll() {
        state.withLock { state in
            state.slots = [:]
            state.variants = [:]
            state.total = 0
        }
        disk?.removeEntries { _ in true }
    }

    /// Removes the responses stored with the credential whose digest is `credential`.
    func removeEntries(credential: String) {
        guard !credential.isEmpty else { return }
        removeEntries(where: { $0.credential == credential }) { disk in
            let tag = "-" + DiskCacheStore.credentialTag(credential) + "-"
            return disk.removeEntries { $0.contains(tag) }
        }
    }

    /// Removes the responses stored for the method and URL `resource` (`GET https://…`), for
    /// every credential.
    func removeEntries(resource: String) {
        removeEntries(where: { $0.resource == resource }) { disk in
            disk.removeEntries(among: disk.ids(startingWith: DiskCacheStore.prefix(resource: resource))) { _ in true }
        }
    }

    /// Removes the entries `inMemory` picks, or those `onDisk` removes (and their slots).
    private func removeEntries(
        where inMemory: (CachedResponse) -> Bool, onDisk: (DiskCacheStore) -> [String]
    ) {
        guard let disk else {
            state.withLock { state in
                for (id, slot) in state.slots where slot.response.map(inMemory) == true { state.remove(id) }
            }
            return
        }
        let removed = onDisk(disk)
        state.withLock { state in for id in removed { state.remove(id) } }
    }

    /// Every stored response (for tests: on disk, each file is read).
    func allResponses() -> [CachedResponse] {
        guard let disk else { return state.withLock { $0.slots.values.compactMap(\.response) } }
        return disk.allIDs().compactMap { disk.read($0)?.response }
    }

    private func remove(id: String) {
        state.withLock { _ = $0.remove(id) }
        disk?.remove([id])
    }

    /// The total size counted against the limit.
    var totalCost: Int { state.withLock { $0.total } }

    // MARK: - Files

    /// `EPC1`, then three big-endian UInt64: the head's length, the body's length and the FNV-1a
    /// checksum of head and body; then the head (JSON) and the body.
    static let magic = Data("EPC1".utf8)

    static func encode(_ response: CachedResponse) -> Data? {
        var head = response
        head.body = Data()
        guard let json = try? JSONEncoder().encode(head) else { return nil }
        var data = magic
        for value in [UInt64(json.count), UInt64(response.body.count), checksum(json, response.body)] {
            withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
        }
        data.append(json)
        data.append(response.body)
        return data
    }

    static func decode(_ data: Data) -> CachedResponse? {
        let bytes = [UInt8](data)
        guard bytes.count >= 28, Data(bytes[0..<4]) == magic else { return nil }
        func number(at offset: Int) -> UInt64 {
            bytes[offset..<offset + 8].reduce(0) { $0 << 8 | UInt64($1) }
        }
        let headLength = number(at: 4)
        let bodyLength = number(at: 12)
        let sum = number(at: 20)
        guard headLength < UInt64(bytes.count), bodyLength < UInt64(bytes.count),
            28 + Int(headLength) + Int(bodyLength) == bytes.count
        else { return nil }
        let json = Data(bytes[28..<28 + Int(headLength)])
        let body = Data(bytes[(28 + Int(headLength))...])
        guard checksum(json, body) == sum, var response = try? JSONDecoder().decode(CachedResponse.self, from: json)
        else { return nil }
        response.body = body
        return response
    }

    /// 64-bit FNV-1a over `parts`.
    static func checksum(_ parts: Data...) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in parts {
            for byte in part {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
        }
        return hash
    }
}
