#if canImport(FoundationNetworking)
    import CEndpointsCurl
    import Foundation

    /// A ``TLSTrust`` in libcurl's terms, worked out once per transport.
    ///
    /// Certificate authorities go to libcurl as one PEM file the transport writes (owner-only, in
    /// the temporary directory, removed with the transport): the system bundle followed by the
    /// extra authorities, or the extra ones alone with libcurl's built-in CA folder cleared, since
    /// setting `CURLOPT_CAINFO` replaces the bundle but leaves the folder in use. A file, not a blob,
    /// so that libcurl caches the parsed store between connections (7.87 on). Pins become
    /// `CURLOPT_PINNEDPUBLICKEY` (`sha256//…;sha256//…`), checked by libcurl after its own
    /// verification; a client certificate `CURLOPT_SSLCERT`/`SSLKEY` (PEM) or a P12 `SSLCERT`.
    final class CurlTLS: Sendable {
        private let authorityFile: String?
        private let clearsAuthorityFolder: Bool
        private let pins: String?
        private let certificate: (file: String, type: String)?
        private let key: String?
        private let password: Secret<String>?

        /// Where distributions keep the system bundle, when libcurl does not say (before 7.84).
        private static let systemBundles = [
            "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/ca-bundle.pem",
            "/etc/ssl/cert.pem", "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
        ]

        init(_ trust: TLSTrust) throws(TLSTrust.Invalid) {
            if trust.certificateAuthorities.isEmpty {
                authorityFile = nil
                clearsAuthorityFolder = false
            } else {
                var text = ""
                if trust.trustsSystemRoots {
                    guard let bundle = Self.systemBundle(),
                        let system = try? String(contentsOfFile: bundle, encoding: .utf8)
                    else { throw TLSTrust.Invalid("the system's CA bundle could not be found to add to") }
                    text = system + "\n"
                }
                for authority in trust.certificateAuthorities {
                    text += try TLSTrust.certificates(at: authority).joined(separator: "\n") + "\n"
                }
                let file = FileManager.default.temporaryDirectory
                    .appendingPathComponent("endpoints-ca-\(UUID().uuidString).pem").path
                guard
                    FileManager.default.createFile(
                        atPath: file, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
                else { throw TLSTrust.Invalid("the certificate authorities could not be written to \(file)") }
                authorityFile = file
                clearsAuthorityFolder = !trust.trustsSystemRoots
            }
            pins =
                trust.pinnedPublicKeys.isEmpty
                ? nil : trust.pinnedPublicKeys.map { "sha256//\($0)" }.joined(separator: ";")
            switch trust.clientCertificate?.storage {
            case .pem(let certificate, let privateKey):
                self.certificate = (certificate.path, "PEM")
                key = privateKey.path
            case .pkcs12(let file):
                certificate = (file.path, "P12")
                key = nil
            case nil:
                certificate = nil
                key = nil
            }
            password = trust.clientCertificate?.password
        }

        deinit {
            if let authorityFile { unlink(authorityFile) }
        }

        /// libcurl's own default bundle (7.84 on), or the first of the usual places that exists.
        private static func systemBundle() -> String? {
            if let easy = ep_easy_init() {
                defer { ep_easy_cleanup(easy) }
                var path: UnsafePointer<CChar>?
                if ep_easy_getinfo_string(easy, Int32(EP_CURLINFO_CAINFO), &path) == 0, let path {
                    let bundle = String(cString: path)
                    if FileManager.default.isReadableFile(atPath: bundle) { return bundle }
                }
            }
            return systemBundles.first { FileManager.default.isReadableFile(atPath: $0) }
        }

        /// Sets the options on `easy`.
        func apply(to easy: OpaquePointer) {
            if let authorityFile {
                _ = ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_CAINFO), authorityFile)
                if clearsAuthorityFolder { _ = ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_CAPATH), nil) }
            }
            if let pins { _ = ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_PINNEDPUBLICKEY), pins) }
            if let certificate {
                _ = ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_SSLCERT), certificate.file)
                _ = ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_SSLCERTTYPE), certificate.type)
            }
            if let key {
                _ = ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_SSLKEY), key)
                _ = ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_SSLKEYTYPE), "PEM")
            }
            if let password { _ = ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_KEYPASSWD), password.value) }
        }
    }
#endif
