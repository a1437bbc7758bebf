#if canImport(Security) && !canImport(FoundationNetworking)
    import Foundation
    import Security

    /// A ``TLSTrust`` applied by a `URLSession`'s delegate, on Apple platforms: the server's trust is
    /// evaluated with the extra anchors (only them, when the system's roots are not trusted), then
    /// its chain must hold a pinned key; a client-certificate challenge is answered with the PKCS#12
    /// identity. A server that fails is refused by cancelling the challenge, which URLSession
    /// reports as `URLError.cancelled` (the request's error is then ``EndpointTaskError/cancelled``
    /// there, where ``CurlTransport`` gives the ``TLSFailure``).
    ///
    /// This code is compiled for Apple platforms only and is not run by the project's tests, which
    /// run on Linux; its pin computation (``SubjectPublicKeyInfo``) is tested there. It keeps only
    /// values (the anchors' DER), making the Security objects when a challenge comes.
    final class TLSTrustDelegate: NSObject, URLSessionDelegate, Sendable {
        private let trust: TLSTrust
        /// The extra anchors, in DER.
        private let anchors: [Data]

        init(_ trust: TLSTrust) {
            self.trust = trust
            anchors = trust.certificateAuthorities.flatMap { location -> [Data] in
                let blocks = (try? TLSTrust.certificates(at: location)) ?? []
                return blocks.compactMap { block in
                    Data(base64Encoded: block.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined())
                }
            }
        }

        /// A session that applies `trust`, with the default configuration.
        static func session(for trust: TLSTrust) -> URLSession {
            URLSession(configuration: .default, delegate: TLSTrustDelegate(trust), delegateQueue: nil)
        }

        private static func identity(_ certificate: TLSTrust.ClientCertificate?) -> URLCredential? {
            guard let certificate, case .pkcs12(let file) = certificate.storage, let data = try? Data(contentsOf: file)
            else { return nil }
            return identity(data, certificate.password)
        }

        /// The identity of the PKCS#12 `data` opened with `password`, with its chain; `nil` when it
        /// does not open (``TLSTrust/ClientCertificate`` checks this when it is made).
        static func identity(_ data: Data, _ password: Secret<String>?) -> URLCredential? {
            let options = [kSecImportExportPassphrase as String: password?.value ?? ""] as CFDictionary
            var items: CFArray?
            guard SecPKCS12Import(data as CFData, options, &items) == errSecSuccess,
                let first = (items as? [[String: Any]])?.first,
                let identity = first[kSecImportItemIdentity as String]
            else { return nil }
            let chain = first[kSecImportItemCertChain as String] as? [Any]
            // swift-format-ignore: NeverForceUnwrap
            return URLCredential(identity: identity as! SecIdentity, certificates: chain, persistence: .forSession)
        }

        func urlSession(
            _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            switch challenge.protectionSpace.authenticationMethod {
            case NSURLAuthenticationMethodServerTrust:
                guard let serverTrust = challenge.protectionSpace.serverTrust else {
                    completionHandler(.performDefaultHandling, nil)
                    return
                }
                if !anchors.isEmpty {
                    let certificates = anchors.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
                    SecTrustSetAnchorCertificates(serverTrust, certificates as CFArray)
                    SecTrustSetAnchorCertificatesOnly(serverTrust, !trust.trustsSystemRoots)
                }
                guard SecTrustEvaluateWithError(serverTrust, nil), matchesPins(serverTrust) else {
                    completionHandler(.cancelAuthenticationChallenge, nil)
                    return
                }
                completionHandler(.useCredential, URLCredential(trust: serverTrust))
            case NSURLAuthenticationMethodClientCertificate:
                let identity = Self.identity(trust.clientCertificate)
                completionHandler(identity == nil ? .performDefaultHandling : .useCredential, identity)
            default:
                completionHandler(.performDefaultHandling, nil)
            }
        }

        /// Whether a key of the chain is pinned (always, without pins).
        private func matchesPins(_ serverTrust: SecTrust) -> Bool {
            guard !trust.pinnedPublicKeys.isEmpty else { return true }
            let chain = (SecTrustCopyCertificateChain(serverTrust) as? [SecCertificate]) ?? []
            return chain.contains { certificate in
                guard let key = SecCertificateCopyKey(certificate),
                    let raw = SecKeyCopyExternalRepresentation(key, nil) as Data?,
                    let attributes = SecKeyCopyAttributes(key) as? [String: Any]
                else { return false }
                let type = attributes[kSecAttrKeyType as String] as? String
                let bits = attributes[kSecAttrKeySizeInBits as String] as? Int ?? 0
                let algorithm: SubjectPublicKeyInfo.Algorithm =
                    type == (kSecAttrKeyTypeRSA as String) ? .rsa : .ec(bits: bits)
                guard let pin = SubjectPublicKeyInfo.pin(algorithm: algorithm, key: [UInt8](raw)) else { return false }
                return trust.pinnedPublicKeys.contains(pin)
            }
        }
    }
#endif
