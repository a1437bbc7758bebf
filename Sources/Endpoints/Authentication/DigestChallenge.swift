import Foundation

/// A `Digest` challenge of a `WWW-Authenticate` field (RFC 7616 §3.3) that ``DigestAuth`` can
/// answer, and the answer: the `Authorization` value for one request.
struct DigestChallenge: Equatable, Sendable {
    /// The hash functions of RFC 7616 §3.2, each also in its `-sess` form (§3.4.2): MD5 (the
    /// default), SHA-256 and SHA-512-256.
    enum Algorithm: String, CaseIterable, Sendable {
        case md5 = "MD5"
        case md5Session = "MD5-sess"
        case sha256 = "SHA-256"
        case sha256Session = "SHA-256-sess"
        case sha512_256 = "SHA-512-256"
        case sha512_256Session = "SHA-512-256-sess"

        /// `H(data)` of text, as UTF-8.
        func hash(_ text: String) -> String { hash(Array(text.utf8)) }

        /// `H(data)`: the digest as lower-case hex (RFC 7616 §3.4.1).
        func hash(_ bytes: [UInt8]) -> String {
            switch self {
            case .md5, .md5Session: Hex.lowercase(MD5.hash(bytes))
            case .sha256, .sha256Session: Hex.lowercase(SHA256.hash(bytes))
            case .sha512_256, .sha512_256Session: Hex.lowercase(SHA512.hash512_256(bytes))
            }
        }

        var isSession: Bool { rawValue.hasSuffix("-sess") }
    }

    /// The quality of protection (RFC 7616 §3.3): `auth` signs the method and target, `auth-int`
    /// the body too.
    enum Protection: String, Sendable {
        case auth
        case authInt = "auth-int"
    }

    let realm: String
    private(set) var nonce: String
    let opaque: String?
    let algorithm: Algorithm
    /// Whether the challenge named its algorithm: the answer names it only then, as RFC 2069
    /// servers expect.
    let namesAlgorithm: Bool
    /// The protections offered, in the server's order; empty for an RFC 2069 challenge (no `qop`).
    let protections: [Protection]
    /// The server refused the request's nonce as too old, not its credentials (`stale=true`).
    private(set) var stale: Bool
    /// Whether the user name is sent hashed (`userhash=true`, RFC 7616 §3.4.4).
    let userhash: Bool

    /// The challenge `challenge` is, or `nil` when it is not `Digest`, lacks a realm or a nonce,
    /// names an unknown algorithm, offers only unknown protections, or holds a control
    /// character (which no header may carry back).
    init?(_ challenge: AuthChallenge) {
        let parameters = challenge.parameters
        guard challenge.scheme.lowercased() == "digest", let realm = parameters["realm"],
            let nonce = parameters["nonce"], !nonce.isEmpty,
            !parameters.values.contains(where: CredentialText.containsControl)
        else { return nil }
        let algorithmName = parameters["algorithm"]
        guard
            let algorithm = Algorithm.allCases.first(where: {
                $0.rawValue.lowercased() == (algorithmName ?? "MD5").lowercased()
            })
        else { return nil }
        var protections: [Protection] = []
        if let qop = parameters["qop"] {
            protections = qop.split(separator: ",").compactMap {
                Protection(rawValue: $0.trimmingCharacters(in: .whitespaces).lowercased())
            }
            guard !protections.isEmpty else { return nil }
        }
        self.realm = realm
        self.nonce = nonce
        self.opaque = parameters["opaque"]
        self.algorithm = algorithm
        self.namesAlgorithm = algorithmName != nil
        self.protections = protections
        self.stale = parameters["stale"]?.lowercased() == "true"
        self.userhash = parameters["userhash"]?.lowercased() == "true"
    }

    /// The first `Digest` challenge in a `WWW-Authenticate` value that can be answered: a server
    /// lists its challenges in its order of preference (RFC 7616 §3.7).
    static func first(in field: String) -> DigestChallenge? {
        AuthChallenge.parse(field).lazy.compactMap(DigestChallenge.init).first
    }

    /// The same challenge with another nonce: an `Authentication-Info` field's `nextnonce`
    /// (RFC 7616 §3.5).
    func with(nonce: String) -> DigestChallenge {
        var copy = self
        copy.nonce = nonce
        copy.stale = false
        return copy
    }

    /// What one request sends: its method, its request-target, and its body when in memory.
    struct Request {
        var method: String
        /// The request-target as sent: the path, and `?` with the query when there is one.
        var target: String
        /// The body, or `nil` when it is streamed (from a file or a sequence) and cannot be hashed.
        var body: [UInt8]?
    }

    /// The `Authorization` value answering this challenge for `request`, the `nc`-th use of the
    /// nonce with `cnonce`; `nil` when only `auth-int` is offered and the body is streamed.
    func authorization(
        username: String, password: String, for request: Request, nonceCount: UInt32, cnonce: String
    ) -> String? {
        let protection: Protection?
        if protections.isEmpty {
            protection = nil
        } else if protections.contains(.auth) {
            protection = .auth
        } else if request.body != nil {
            protection = .authInt
        } else {
            return nil
        }
        let h = algorithm.hash as (String) -> String
        var secret = h("\(username):\(realm):\(password)")
        if algorithm.isSession { secret = h("\(secret):\(nonce):\(cnonce)") }
        var signed = "\(request.method):\(request.target)"
        if protection == .authInt { signed += ":" + algorithm.hash(request.body ?? []) }
        let count = Self.nonceCount(nonceCount)
        let response =
            if let protection {
                h("\(secret):\(nonce):\(count):\(cnonce):\(protection.rawValue):\(h(signed))")
            } else {
                h("\(secret):\(nonce):\(h(signed))")
            }
        var fields: [String] = []
        if userhash {
            fields.append("username=\(Self.quoted(h("\(username):\(realm)")))")
        } else if username.unicodeScalars.allSatisfy(\.isASCII) {
            fields.append("username=\(Self.quoted(username))")
        } else {
            // RFC 8187's value-chars: the unreserved bytes kept (all are attr-chars), the rest %XX.
            fields.append("username*=UTF-8''\(PercentEncoding.encode(username, as: .component))")
        }
        fields.append("realm=\(Self.quoted(realm))")
        fields.append("uri=\(Self.quoted(request.target))")
        if namesAlgorithm { fields.append("algorithm=\(algorithm.rawValue)") }
        fields.append("nonce=\(Self.quoted(nonce))")
        if let protection {
            fields.append("nc=\(count)")
            fields.append("cnonce=\(Self.quoted(cnonce))")
            fields.append("qop=\(protection.rawValue)")
        }
        fields.append("response=\(Self.quoted(response))")
        if let opaque { fields.append("opaque=\(Self.quoted(opaque))") }
        if userhash { fields.append("userhash=true") }
        return "Digest " + fields.joined(separator: ", ")
    }

    /// `nc`: eight hex digits (RFC 7616 §3.4).
    static func nonceCount(_ count: UInt32) -> String {
        let digits = String(count, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// A quoted-string: `"` and `\` escaped.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
