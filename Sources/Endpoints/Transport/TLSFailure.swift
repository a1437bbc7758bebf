import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Why a TLS connection was refused, as a typed cause: what ``CurlTransport`` (and, from curl's
/// words, Linux's URLSession through the library) puts under the `URLError`'s
/// `NSUnderlyingErrorKey`, read back with `URLError.tlsFailure`.
///
/// ```swift
/// catch .urlLoadError(let error) {
///     if error.tlsFailure?.reason == .pinMismatch { alertPossibleInterception() }
/// }
/// ```
///
/// The `URLError` keeps the code URLSession uses for the same failure on Apple platforms
/// (`.serverCertificateUntrusted`, `.serverCertificateHasBadDate`, `.secureConnectionFailed`, …),
/// so code that matches codes goes on working; the reason says more than a code can (a hostname
/// mismatch and an unknown root are both "untrusted" there).
public struct TLSFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The cause.
    public enum Reason: String, Sendable, Hashable {
        /// The certificate chain does not lead to a trusted root (self-signed, unknown issuer,
        /// missing intermediate).
        case untrusted
        /// The certificate does not name the host that was asked for.
        case hostnameMismatch
        /// The certificate expired.
        case expired
        /// The certificate is not valid yet.
        case notYetValid
        /// The certificate was revoked.
        case revoked
        /// No public key of the chain matches a pin of the client's ``TLSTrust``.
        case pinMismatch
        /// The server asked for a client certificate and refused the one sent (or none was), or
        /// the client's certificate or key could not be used.
        case clientCertificate
        /// The handshake failed for another reason (no common protocol or cipher, a plain-HTTP
        /// server, a broken connection).
        case handshake
    }

    /// The cause.
    public let reason: Reason
    /// What the TLS library said, for people.
    public let detail: String

    /// A sentence: the cause, then the TLS library's words.
    public var description: String {
        let what =
            switch reason {
            case .untrusted: "the server's certificate is not trusted"
            case .hostnameMismatch: "the server's certificate does not name the host"
            case .expired: "the server's certificate has expired"
            case .notYetValid: "the server's certificate is not valid yet"
            case .revoked: "the server's certificate was revoked"
            case .pinMismatch: "the server's public key matches none of the pinned keys"
            case .clientCertificate: "the client certificate was refused or could not be used"
            case .handshake: "the TLS handshake failed"
            }
        return "The secure connection failed: \(what) (\(detail))."
    }

    /// The `URLError` code URLSession reports for this cause on Apple platforms.
    var urlErrorCode: URLError.Code {
        switch reason {
        case .untrusted: .serverCertificateHasUnknownRoot
        case .hostnameMismatch, .revoked, .pinMismatch: .serverCertificateUntrusted
        case .expired: .serverCertificateHasBadDate
        case .notYetValid: .serverCertificateNotYetValid
        case .clientCertificate: .clientCertificateRejected
        case .handshake: .secureConnectionFailed
        }
    }

    init(reason: Reason, detail: String) {
        self.reason = reason
        self.detail = detail
    }

    /// The cause of libcurl's TLS failure `code`, given OpenSSL's verification result and
    /// libcurl's sentence (which alone tells a hostname mismatch, checked by libcurl itself).
    init(curlCode code: Int32, verifyResult: Int, detail: String) {
        let lowered = detail.lowercased()
        let reason: Reason
        switch code {
        case 90:  // CURLE_SSL_PINNEDPUBKEYNOTMATCH
            reason = .pinMismatch
        case 58, 98:  // CURLE_SSL_CERTPROBLEM, CURLE_SSL_CLIENTCERT
            reason = .clientCertificate
        case 60, 83:  // CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_ISSUER_ERROR
            switch verifyResult {
            case 10: reason = .expired  // X509_V_ERR_CERT_HAS_EXPIRED
            case 9: reason = .notYetValid  // X509_V_ERR_CERT_NOT_YET_VALID
            case 23: reason = .revoked  // X509_V_ERR_CERT_REVOKED
            case 62: reason = .hostnameMismatch  // X509_V_ERR_HOSTNAME_MISMATCH
            default:
                reason =
                    lowered.contains("does not match") || lowered.contains("no alternative certificate subject name")
                    ? .hostnameMismatch : .untrusted
            }
        default:
            reason = Self.otherReason(lowered)
        }
        self.init(reason: reason, detail: detail)
    }

    /// The cause of a TLS failure libcurl (7.88 or 8, over OpenSSL) described with `text` alone,
    /// as Linux's URLSession reports it, with no code or verification result: "SSL certificate
    /// problem: certificate has expired", "SSL: no alternative certificate subject name matches
    /// target host name '…'", "OpenSSL SSL_connect: …", "error:0A00010B:SSL routines::wrong
    /// version number". `nil` when `text` is not a TLS failure.
    init?(curlText text: String) {
        let lowered = text.lowercased()
        guard
            ["ssl ", "ssl:", "openssl ", "unknown ssl protocol error"].contains(where: lowered.hasPrefix)
                || lowered.contains(":ssl routines:") || lowered.contains("ssl_connect")
        else { return nil }
        let reason: Reason
        if lowered.hasPrefix("ssl certificate problem") {
            reason =
                lowered.contains("expired")
                ? .expired
                : lowered.contains("not yet valid") ? .notYetValid : lowered.contains("revoked") ? .revoked : .untrusted
        } else if lowered.contains("subject name"), lowered.contains("match") {
            reason = .hostnameMismatch
        } else {
            reason = Self.otherReason(lowered)
        }
        self.init(reason: reason, detail: text)
    }

    /// A failure that is not the server's certificate's: the server refused the client's
    /// certificate (its alert), or the handshake failed.
    private static func otherReason(_ lowered: String) -> Reason {
        lowered.contains("certificate required")
            || lowered.contains("unknown ca")
                && lowered.contains("alert")
            || lowered.contains("bad certificate")
            ? .clientCertificate : .handshake
    }
}

extension URLError {
    /// The typed cause of a TLS failure, when the transport knew it: ``CurlTransport`` always
    /// does, Linux's URLSession when curl's words name it, Apple's URLSession never.
    public var tlsFailure: TLSFailure? {
        userInfo[NSUnderlyingErrorKey] as? TLSFailure
    }
}
