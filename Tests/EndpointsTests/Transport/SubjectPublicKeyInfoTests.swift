import Foundation
import Testing

@testable import Endpoints

/// The pins the Apple platforms' delegate computes from a `SecKey`'s raw export equal OpenSSL's
/// pins of the same keys, for RSA and each EC curve. `scripts/nginx.sh` makes the keys, writes
/// what `SecKeyCopyExternalRepresentation` would give (PKCS#1 `RSAPublicKey`, the uncompressed
/// X9.63 point) and OpenSSL's pin of each.
@Suite(.enabled(if: Nginx.isRunning, Nginx.skipReason))
struct SubjectPublicKeyInfoTests {
    @Test(arguments: [
        ("rsa2048", SubjectPublicKeyInfo.Algorithm.rsa), ("p256", .ec(bits: 256)), ("p384", .ec(bits: 384)),
        ("p521", .ec(bits: 521)),
    ])
    func ourPinIsOpenSSLs(key name: String, algorithm: SubjectPublicKeyInfo.Algorithm) throws {
        let raw = try Data(contentsOf: Nginx.keys.appendingPathComponent("\(name).raw"))
        let expected = try String(contentsOf: Nginx.keys.appendingPathComponent("\(name).pin"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(expected.count == 44)
        #expect(SubjectPublicKeyInfo.pin(algorithm: algorithm, key: [UInt8](raw)) == expected)
    }

    /// The server's key, as the delegate would see it in nginx's certificate, is the pin that
    /// `NGINX_SERVER_PIN` (what libcurl matched in the transport's tests) holds.
    @Test func theServersKeyPinsAsLibcurlMatchesIt() throws {
        let raw = try Data(contentsOf: Nginx.keys.appendingPathComponent("rsa2048.raw"))
        #expect(SubjectPublicKeyInfo.pin(algorithm: .rsa, key: [UInt8](raw)) == Nginx.serverPin)
    }
}
