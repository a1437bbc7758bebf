import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``TLSTrust`` is checked when it is made: what cannot work is a typed `TLSTrust.Invalid`
/// before any client exists, so before anything is sent; and its password is never shown.
@Suite struct TLSTrustValidationTests {
    /// A folder of its own, removed when `body` returns.
    private func withFolder<T>(_ body: (URL) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-trust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder)
    }

    private static let certificate = """
        -----BEGIN CERTIFICATE-----
        MIIBdzCCAR2gAwIBAgIUTest
        -----END CERTIFICATE-----
        """

    @Test func aMissingAuthorityFileIsRefused() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString)/ca.pem")
        let error = #expect(throws: TLSTrust.Invalid.self) {
            try TLSTrust(certificateAuthorities: [missing])
        }
        #expect(error?.reason.contains(missing.path) == true, "got \(String(describing: error))")
    }

    /// A folder is read for `.pem`, `.crt` and `.cer` files; one with none (a key, notes) holds
    /// no authority.
    @Test func aFolderWithoutCertificatesIsRefused() throws {
        try withFolder { folder in
            try Data("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8)
                .write(to: folder.appendingPathComponent("server.pem"))
            try Data(Self.certificate.utf8).write(to: folder.appendingPathComponent("ca.txt"))
            let error = #expect(throws: TLSTrust.Invalid.self) {
                try TLSTrust(certificateAuthorities: [folder])
            }
            #expect(error?.reason.contains("holds no PEM certificate") == true, "got \(String(describing: error))")
        }
    }

    @Test func aFolderWithACertificateIsAccepted() throws {
        try withFolder { folder in
            try Data(Self.certificate.utf8).write(to: folder.appendingPathComponent("ca.CRT"))
            let trust = try TLSTrust(certificateAuthorities: [folder], trustsSystemRoots: false)
            #expect(trust.certificateAuthorities == [folder])
        }
    }

    @Test(arguments: [
        "", "not base64!", "sha256//", "sha1//2jmj7l5rSw0yVb/vlWAYkK/YBwk=",
        // SHA-1 length, and SHA-256 length with a character short.
        "2jmj7l5rSw0yVb/vlWAYkK/YBwk=", "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuF",
        // A hex digest, as `openssl dgst` prints by default.
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    ])
    func aMalformedPinIsRefused(_ pin: String) {
        #expect(throws: TLSTrust.Invalid.self) {
            try TLSTrust(pinnedPublicKeys: ["47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", pin])
        }
    }

    /// A pin is kept as its digest, curl's `sha256//` spelling accepted.
    @Test func pinsAreKeptAsDigests() throws {
        let digest = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
        let trust = try TLSTrust(pinnedPublicKeys: [digest, "sha256//\(digest)"])
        #expect(trust.pinnedPublicKeys == [digest, digest])
    }

    /// Trusting nothing would refuse every server: refused when made, never a silent fallback.
    @Test func noAuthorityAtAllIsRefused() {
        let error = #expect(throws: TLSTrust.Invalid.self) {
            try TLSTrust(trustsSystemRoots: false, pinnedPublicKeys: ["47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="])
        }
        #expect(error?.reason.contains("no certificate authority is trusted") == true)
    }

    @Test func aClientCertificateThatCannotBeReadIsRefused() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString)")
        try withFolder { folder in
            let present = folder.appendingPathComponent("client.pem")
            try Data(Self.certificate.utf8).write(to: present)
            for certificate in [
                TLSTrust.ClientCertificate.pem(certificate: present, privateKey: missing.appendingPathComponent("key")),
                .pem(certificate: missing.appendingPathComponent("cert"), privateKey: present),
                .pkcs12(missing.appendingPathComponent("client.p12"), password: "secret"),
            ] {
                let error = #expect(throws: TLSTrust.Invalid.self) {
                    try TLSTrust(clientCertificate: certificate)
                }
                #expect(error?.reason.contains(missing.path) == true, "got \(String(describing: error))")
            }
        }
    }

    /// The password of a PKCS#12 file or an encrypted key appears in no description, reflection
    /// or dump of the trust, its client certificate, or a transport and client made with it.
    @Test func thePasswordIsNeverShown() throws {
        let password = "hunter2-\(UUID().uuidString)"
        try withFolder { folder in
            let file = folder.appendingPathComponent("client.p12")
            try Data([0x30]).write(to: file)
            for certificate in [
                TLSTrust.ClientCertificate.pkcs12(file, password: password),
                .pem(certificate: file, privateKey: file, password: password),
            ] {
                let trust = try TLSTrust(clientCertificate: certificate)
                var texts = [
                    "\(trust)", String(reflecting: trust), "\(certificate)", String(reflecting: certificate),
                ]
                var dumped = ""
                dump(trust, to: &dumped)
                texts.append(dumped)
                #if canImport(FoundationNetworking)
                    let transport = try CurlTransport(tls: trust)
                    var dumpedTransport = ""
                    dump(transport, to: &dumpedTransport)
                    dump(EndpointClient(transport: transport), to: &dumpedTransport)
                    texts += [dumpedTransport, String(reflecting: transport)]
                #endif
                for text in texts {
                    #expect(!text.contains(password), "shown in \(text)")
                }
                #expect("\(certificate)".contains("password: <redacted>"))
            }
        }
    }
}
