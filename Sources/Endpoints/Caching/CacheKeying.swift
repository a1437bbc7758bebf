import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a store turns credentials into the parts of its keys: HMAC-SHA-256 under a random key of
/// its own (the salt), so that the digest on disk cannot be checked against guessed passwords
/// without the salt, and two stores give the same credential different digests.
///
/// The salt is a ``Secret``: no description, debug description or mirror shows it. A memory
/// store draws one when it is made; a disk store keeps its own beside its entries
/// (``DiskCacheStore``), so that the entries outlive the process.
struct CacheKeying: Sendable {
    let salt: Secret<[UInt8]>

    init(salt: [UInt8]) { self.salt = Secret(salt) }

    /// A new random salt of ``saltLength`` bytes.
    static func random() -> CacheKeying { CacheKeying(salt: randomSalt()) }

    static let saltLength = 32

    static func randomSalt() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<saltLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// The hex HMAC-SHA-256 of `text` under the salt.
    func digest(_ text: String) -> String {
        Hex.lowercase(HMACSHA256.authenticationCode(for: Array(text.utf8), key: salt.value))
    }

    /// The digest of the request's credential headers (names lower-cased, sorted), empty when it
    /// carries none: the part of the key that keeps users apart.
    func credentialDigest(of request: URLRequest, names: Set<String>) -> String {
        guard let fields = request.allHTTPHeaderFields else { return "" }
        let credentials = fields.filter { names.contains($0.key.lowercased()) }
            .map { "\($0.key.lowercased()):\($0.value)" }.sorted()
        guard !credentials.isEmpty else { return "" }
        return digest(credentials.joined(separator: "\n"))
    }
}

/// HMAC (RFC 2104) over the project's ``SHA256``.
enum HMACSHA256 {
    static let blockSize = 64

    static func authenticationCode(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        var block = key.count > blockSize ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        let inner = SHA256.hash(block.map { $0 ^ 0x36 } + message)
        return SHA256.hash(block.map { $0 ^ 0x5C } + inner)
    }
}
