import Foundation

/// Which servers a client trusts over TLS, and the certificate it shows them: one value, given to
/// the client (`EndpointClient(tls:)`).
///
/// ```swift
/// let trust = try TLSTrust(
///     certificateAuthorities: [URL(fileURLWithPath: "/etc/myapp/internal-ca.pem")],
///     clientCertificate: .pkcs12(URL(fileURLWithPath: "/etc/myapp/client.p12"), password: "secret"),
///     pinnedPublicKeys: ["r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E="]
/// )
/// let client = EndpointClient(tls: trust)
/// ```
///
/// - **Certificate authorities**: PEM files (each may hold several certificates) or folders of
///   them, trusted besides the system's roots, or instead of them when `trustsSystemRoots` is
///   `false` (a private PKI only).
/// - **A client certificate** for mutual TLS: a PKCS#12 file, or on Linux a PEM certificate with
///   its key.
/// - **Public-key pins**: the base64 SHA-256 of a certificate's SubjectPublicKeyInfo (what
///   `openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`
///   prints); a connection succeeds only when a key of the server's chain matches one, on top of
///   the usual verification, never instead of it.
///
/// There is no switch that turns verification off. A failure is a `URLError` whose
/// `tlsFailure` says why (``TLSFailure``). Everything is checked when the value is made: a file
/// that cannot be read, a folder without certificates or a malformed pin is a ``Invalid`` error
/// before anything is sent.
///
/// On Linux the value configures ``CurlTransport`` (libcurl with OpenSSL). On Apple platforms it
/// is applied by the session's delegate when the server's trust is evaluated (extra anchors,
/// anchors only, pins) and when a client certificate is asked for (PKCS#12 only there); that code
/// is small and availability-audited, but is not run by this project's tests, which run on Linux.
public struct TLSTrust: Sendable, Hashable {
    /// PEM files or folders of them, trusted as certificate authorities.
    public let certificateAuthorities: [URL]
    /// Whether the system's roots are trusted too.
    public let trustsSystemRoots: Bool
    /// The certificate shown to servers that ask for one.
    public let clientCertificate: ClientCertificate?
    /// Base64 SHA-256 digests of the public keys (SubjectPublicKeyInfo) a server's chain must hold one of.
    public let pinnedPublicKeys: [String]

    /// The system's roots and nothing else: what a client trusts by default.
    public static let system = TLSTrust(validated: [], trustsSystemRoots: true, clientCertificate: nil, pins: [])

    /// Checks and makes the value.
    ///
    /// - Parameters:
    ///   - certificateAuthorities: PEM files or folders of PEM files (`.pem`, `.crt`, `.cer`).
    ///   - trustsSystemRoots: `false` to trust only `certificateAuthorities`.
    ///   - clientCertificate: The certificate for servers that ask for one.
    ///   - pinnedPublicKeys: Base64 SHA-256 digests of SubjectPublicKeyInfo (a `sha256//` prefix,
    ///     as curl writes them, is accepted).
    /// - Throws: ``Invalid`` when a file cannot be read, a folder holds no certificate, no
    ///   authority is left to trust, a pin is not a SHA-256 digest, or (on Apple platforms, which
    ///   import it here) a PKCS#12 file does not open with its password.
    public init(
        certificateAuthorities: [URL] = [],
        trustsSystemRoots: Bool = true,
        clientCertificate: ClientCertificate? = nil,
        pinnedPublicKeys: [String] = []
    ) throws(Invalid) {
        guard trustsSystemRoots || !certificateAuthorities.isEmpty else {
            throw Invalid(
                "no certificate authority is trusted: give certificateAuthorities or trust the system's roots")
        }
        for authority in certificateAuthorities {
            guard !(try Self.certificates(at: authority)).isEmpty else {
                throw Invalid("\(authority.path) holds no PEM certificate")
            }
        }
        var pins: [String] = []
        for pin in pinnedPublicKeys {
            let digest = pin.hasPrefix("sha256//") ? String(pin.dropFirst(8)) : pin
            guard let bytes = Data(base64Encoded: digest), bytes.count == 32 else {
                throw Invalid("the pin \"\(pin)\" is not the base64 of a SHA-256 digest")
            }
            pins.append(digest)
        }
        if let clientCertificate { try clientCertificate.check() }
        self.init(
            validated: certificateAuthorities, trustsSystemRoots: trustsSystemRoots,
            clientCertificate: clientCertificate, pins: pins)
    }

    private init(
        validated authorities: [URL], trustsSystemRoots: Bool, clientCertificate: ClientCertificate?, pins: [String]
    ) {
        certificateAuthorities = authorities
        self.trustsSystemRoots = trustsSystemRoots
        self.clientCertificate = clientCertificate
        pinnedPublicKeys = pins
    }

    /// A certificate and its key, shown to a server that asks for one (mutual TLS).
    public struct ClientCertificate: Sendable, Hashable, CustomStringConvertible {
        enum Storage: Sendable, Hashable {
            case pem(certificate: URL, privateKey: URL)
            case pkcs12(URL)
        }

        let storage: Storage
        /// The key's or the file's password, never shown.
        let password: Secret<String>?

        /// A PEM certificate (with its chain, if any) and its PEM private key, encrypted with
        /// `password` or not at all. Linux only: Apple platforms take ``pkcs12(_:password:)``, and
        /// say so when this is compiled for them (their session delegate can only present an
        /// identity imported from PKCS#12, so a PEM pair would be dropped without a word).
        @available(macOS, unavailable, message: "A client certificate there is PKCS#12: .pkcs12(_:password:)")
        @available(iOS, unavailable, message: "A client certificate there is PKCS#12: .pkcs12(_:password:)")
        @available(tvOS, unavailable, message: "A client certificate there is PKCS#12: .pkcs12(_:password:)")
        @available(watchOS, unavailable, message: "A client certificate there is PKCS#12: .pkcs12(_:password:)")
        @available(visionOS, unavailable, message: "A client certificate there is PKCS#12: .pkcs12(_:password:)")
        public static func pem(certificate: URL, privateKey: URL, password: String? = nil) -> ClientCertificate {
            ClientCertificate(
                storage: .pem(certificate: certificate, privateKey: privateKey), password: password.map(Secret.init))
        }

        /// A PKCS#12 file (`.p12`, `.pfx`) holding the certificate and its key, on every platform.
        public static func pkcs12(_ file: URL, password: String) -> ClientCertificate {
            ClientCertificate(storage: .pkcs12(file), password: Secret(password))
        }

        /// The files, and `password: <redacted>` when there is one.
        public var description: String {
            let files =
                switch storage {
                case .pem(let certificate, let key): "certificate: \(certificate.path), privateKey: \(key.path)"
                case .pkcs12(let file): "pkcs12: \(file.path)"
                }
            return "ClientCertificate(\(files)\(password == nil ? "" : ", password: <redacted>"))"
        }

        func check() throws(Invalid) {
            switch storage {
            case .pem(let certificate, let key):
                try TLSTrust.readable(certificate)
                try TLSTrust.readable(key)
            case .pkcs12(let file):
                try TLSTrust.readable(file)
                #if canImport(Security) && !canImport(FoundationNetworking)
                    // The session delegate imports it when a server asks; a file that does not open
                    // with its password would then present nothing, so it is refused here.
                    guard let data = try? Data(contentsOf: file), TLSTrustDelegate.identity(data, password) != nil
                    else {
                        throw Invalid("\(file.path) does not open as PKCS#12 with its password")
                    }
                #endif
            }
        }
    }

    /// A ``TLSTrust`` that cannot be used, and why.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        /// What is wrong.
        public let reason: String

        init(_ reason: String) { self.reason = reason }

        /// A sentence naming the problem.
        public var description: String { "The TLS trust settings are invalid: \(reason)." }
    }

    private static func readable(_ file: URL) throws(Invalid) {
        guard FileManager.default.isReadableFile(atPath: file.path) else {
            throw Invalid("\(file.path) cannot be read")
        }
    }

    /// The PEM certificates in `location`: a file, or the `.pem`, `.crt` and `.cer` files of a folder.
    static func certificates(at location: URL) throws(Invalid) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: location.path, isDirectory: &isFolder) else {
            throw Invalid("\(location.path) does not exist")
        }
        var files = [location]
        if isFolder.boolValue {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: location.path)) ?? []
            files = names.sorted().filter { name in
                [".pem", ".crt", ".cer"].contains { name.lowercased().hasSuffix($0) }
            }
            .map { location.appendingPathComponent($0) }
        }
        var certificates: [String] = []
        for file in files {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else {
                throw Invalid("\(file.path) cannot be read as PEM text")
            }
            certificates += pemBlocks(in: text)
        }
        return certificates
    }

    /// The `-----BEGIN CERTIFICATE-----` blocks of `text`, each with its markers.
    static func pemBlocks(in text: String) -> [String] {
        let begin = "-----BEGIN CERTIFICATE-----"
        let end = "-----END CERTIFICATE-----"
        var blocks: [String] = []
        var rest = Substring(text)
        while let start = rest.range(of: begin), let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex)
        {
            blocks.append(String(rest[start.lowerBound..<stop.upperBound]))
            rest = rest[stop.upperBound...]
        }
        return blocks
    }
}
