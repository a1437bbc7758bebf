import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where ``HTTPCache`` keeps its responses: an index in memory (least recently used first out
/// when the size limit is passed) over bodies kept in memory or in files.
///
/// A file is written whole under a temporary name and then renamed over the entry's name, so a
/// reader sees an old entry or a new one, never two interleaved. It starts with a header giving
/// the lengths and a checksum of what follows: an entry cut short or changed on disk is a miss
/// (and is removed), never a crash or a wrong body.
final class CacheStore: Sendable {
    /// The files' directory, `nil` in memory.
    let directory: URL?
    let maximumBytes: Int
    private let state: Locked<State>

    /// One stored response: its head (with the body too in memory), cost and last use, and the
    /// response last shown for it (made again only when its `Age` or outcome changes).
    struct Slot: Sendable {
        var response: CachedResponse
        var cost: Int
        var lastUse: UInt64
        var shown: (label: String, response: HTTPURLResponse)? = nil
    }

    /// The index: slots by id, the ids of each primary key's variants, the total cost.
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
            variants[slot.response.key, default: []].append(id)
            total += slot.cost
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
            variants[slot.response.key]?.removeAll { $0 == id }
            if variants[slot.response.key]?.isEmpty == true { variants[slot.response.key] = nil }
            return [id]
        }

        mutating func touch(_ id: String) {
            tick += 1
            slots[id]?.lastUse = tick
        }
    }

    init(directory: URL?, maximumBytes: Int) {
        self.directory = directory
        self.maximumBytes = max(0, maximumBytes)
        var initial = State()
        if let directory {
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for name in names {
                let file = directory.appendingPathComponent(name)
                guard !name.hasPrefix("tmp-"), let response = Self.read(file) else {
                    try? FileManager.default.removeItem(at: file)
                    continue
                }
                var head = response
                head.body = Data()
                for id in initial.insert(Slot(response: head, cost: response.cost, lastUse: 0), id: name, limit: .max)
                where id != name {
                    try? FileManager.default.removeItem(at: directory.appendingPathComponent(id))
                }
            }
            for id in Self.overflow(&initial, limit: self.maximumBytes) {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(id))
            }
        }
        state = Locked(initial)
    }

    private static func overflow(_ state: inout State, limit: Int) -> [String] {
        var dropped: [String] = []
        while state.total > limit, let oldest = state.slots.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            dropped += state.remove(oldest)
        }
        return dropped
    }

    /// The entry id of a response: a digest of its key and the values its `Vary` recorded
    /// (FNV-1a, cheap enough for every hit; two ids that collide only replace each other, and a
    /// file read back is checked against the key and values it was looked up with).
    static func id(of response: CachedResponse) -> String {
        let varied = response.varied.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value ?? "\u{0}")" }
        let text = ([response.key] + varied).joined(separator: "\n")
        return String(checksum(Data(text.utf8)), radix: 16)
    }

    /// The stored responses under `key` (most recent first), bodies read: a file that cannot be
    /// read whole and checked is removed and left out.
    func responses(for key: String) -> [CachedResponse] { entries(for: key).map(\.response) }

    /// ``responses(for:)`` with their ids.
    func entries(for key: String) -> [(id: String, response: CachedResponse)] {
        let found: [(id: String, response: CachedResponse)] = state.withLock { state in
            (state.variants[key] ?? []).compactMap { id in state.slots[id].map { (id, $0.response) } }
        }
        var result: [(id: String, response: CachedResponse)] = []
        for (id, head) in found.sorted(by: { $0.response.responseTime > $1.response.responseTime }) {
            guard let directory else {
                result.append((id, head))
                continue
            }
            let file = directory.appendingPathComponent(id)
            if let response = Self.read(file), response.key == head.key, response.varied == head.varied {
                result.append((id, response))
            } else {
                remove(id: id)
            }
        }
        return result
    }

    /// Marks the entry `id` as just used and returns the response shown for it under `label`,
    /// made by `make` when the label changed.
    func show(_ id: String, label: String, make: () -> HTTPURLResponse) -> HTTPURLResponse {
        let memo = state.withLock { state -> HTTPURLResponse? in
            state.touch(id)
            guard let shown = state.slots[id]?.shown, shown.label == label else { return nil }
            return shown.response
        }
        if let memo { return memo }
        let response = make()
        state.withLock { $0.slots[id]?.shown = (label, response) }
        return response
    }

    /// Stores `response`, replacing the one with the same key and `Vary` values; one larger than
    /// the whole store is not kept.
    func store(_ response: CachedResponse) {
        let cost = response.cost
        let id = Self.id(of: response)
        guard cost <= maximumBytes else {
            remove(id: id)
            return
        }
        var head = response
        if let directory {
            guard Self.write(response, to: directory.appendingPathComponent(id), in: directory) else { return }
            head.body = Data()
        }
        let dropped = state.withLock {
            $0.insert(Slot(response: head, cost: cost, lastUse: 0), id: id, limit: maximumBytes)
        }
        removeFiles(dropped)
    }

    /// Removes every stored response `shouldRemove` picks.
    func removeAll(where shouldRemove: (CachedResponse) -> Bool) {
        let dropped = state.withLock { state in
            state.slots.filter { shouldRemove($0.value.response) }.keys.flatMap { state.remove($0) }
        }
        removeFiles(dropped)
    }

    /// Removes the responses stored under `key`.
    func removeResponses(for key: String) {
        let dropped = state.withLock { state in (state.variants[key] ?? []).flatMap { state.remove($0) } }
        removeFiles(dropped)
    }

    private func remove(id: String) {
        let dropped = state.withLock { $0.remove(id) }
        removeFiles(dropped.isEmpty ? [id] : dropped)
    }

    /// The total size counted against the limit.
    var totalCost: Int { state.withLock { $0.total } }

    private func removeFiles(_ ids: [String]) {
        guard let directory else { return }
        for id in ids { try? FileManager.default.removeItem(at: directory.appendingPathComponent(id)) }
    }

    // MARK: - Files

    /// `EPC1`, then three big-endian UInt64: the head's length, the body's length and the FNV-1a
    /// checksum of head and body; then the head (JSON) and the body.
    private static let magic = Data("EPC1".utf8)

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

    static func read(_ file: URL) -> CachedResponse? {
        guard let data = try? Data(contentsOf: file) else { return nil }
        return decode(data)
    }

    /// Writes under a temporary name, then renames over `file`.
    static func write(_ response: CachedResponse, to file: URL, in directory: URL) -> Bool {
        guard let data = encode(response) else { return false }
        let temporary = directory.appendingPathComponent("tmp-\(UUID().uuidString)")
        do {
            try data.write(to: temporary)
        } catch {
            return false
        }
        guard rename(temporary.path, file.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            return false
        }
        return true
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
