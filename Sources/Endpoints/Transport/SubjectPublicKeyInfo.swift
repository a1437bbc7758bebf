import Foundation

/// A public key's SubjectPublicKeyInfo (RFC 5280 §4.1.2.7) in DER, built from the raw key an
/// Apple `SecKey` exports, and its pin: the base64 SHA-256 of those bytes, what ``TLSTrust``'s
/// `pinnedPublicKeys` hold and what `openssl … | openssl dgst -sha256 -binary | base64` prints.
///
/// Apple platforms export an RSA key as its PKCS#1 `RSAPublicKey` and an EC key as its X9.63
/// point; the algorithm identifier around them is what a certificate carries. Pure code, so it is
/// tested on Linux against keys whose pins OpenSSL computed.
enum SubjectPublicKeyInfo {
    enum Algorithm {
        /// rsaEncryption, with NULL parameters.
        case rsa
        /// id-ecPublicKey on the named curve of this many bits (256, 384 or 521).
        case ec(bits: Int)
    }

    /// The DER of the SubjectPublicKeyInfo for `key`; `nil` for an EC curve it does not know.
    static func der(algorithm: Algorithm, key: [UInt8]) -> [UInt8]? {
        let identifier: [UInt8]
        switch algorithm {
        case .rsa:
            // SEQUENCE { OID 1.2.840.113549.1.1.1, NULL }
            identifier = sequence([0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00])
        case .ec(let bits):
            let curve: [UInt8]
            switch bits {
            case 256: curve = [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]  // prime256v1
            case 384: curve = [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22]  // secp384r1
            case 521: curve = [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x23]  // secp521r1
            default: return nil
            }
            // SEQUENCE { OID 1.2.840.10045.2.1, curve }
            identifier = sequence([0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01] + curve)
        }
        // BIT STRING with no unused bits.
        let bits = [0x03] + length(key.count + 1) + [0x00] + key
        return sequence(identifier + bits)
    }

    /// The pin of `key`: the base64 SHA-256 of its SubjectPublicKeyInfo.
    static func pin(algorithm: Algorithm, key: [UInt8]) -> String? {
        der(algorithm: algorithm, key: key).map { Data(SHA256.hash($0)).base64EncodedString() }
    }

    private static func sequence(_ content: [UInt8]) -> [UInt8] { [0x30] + length(content.count) + content }

    /// A DER length: short form below 128, long form otherwise.
    private static func length(_ count: Int) -> [UInt8] {
        guard count >= 128 else { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
