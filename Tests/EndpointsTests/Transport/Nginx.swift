import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The nginx servers and the throwaway certificates of `scripts/nginx.sh`, from its variables.
///
/// `scripts/nginx.sh run swift test` makes a CA and certificates with openssl, starts nginx on
/// free loopback ports, runs the command with the `NGINX_*` variables set and stops it. Without
/// them the suites that need it are skipped.
enum Nginx {
    private static let environment = ProcessInfo.processInfo.environment

    /// Whether `scripts/nginx.sh` runs this process.
    static let isRunning = environment["NGINX_HTTPS_PORT"] != nil

    /// Why the suites are skipped without it.
    static let skipReason: Comment =
        "NGINX_HTTPS_PORT is not set; run `scripts/nginx.sh run swift test` (scripts/test.sh does) to include the TLS suites against nginx"

    /// One of nginx's servers.
    enum Server: String, Sendable, CustomTestStringConvertible {
        /// HTTP/2, TLS 1.2 and 1.3, a certificate of the CA for 127.0.0.1 and localhost.
        case https = "NGINX_HTTPS_PORT"
        /// The same key and CA, a certificate that expired in 2020.
        case expired = "NGINX_EXPIRED_PORT"
        /// The same key and CA, a certificate valid from 2099.
        case notYetValid = "NGINX_NOT_YET_VALID_PORT"
        /// The same key and CA, a certificate for `other.invalid`.
        case wrongHost = "NGINX_WRONG_HOST_PORT"
        /// A self-signed certificate for 127.0.0.1.
        case selfSigned = "NGINX_SELF_SIGNED_PORT"
        /// As ``https``, requiring a client certificate of the client CA the way nginx does: the
        /// handshake completes and a request without one is answered 400.
        case clientCertificate = "NGINX_CLIENT_CERT_PORT"
        /// As ``clientCertificate``, but OpenSSL refuses a handshake without a certificate.
        case strictClientCertificate = "NGINX_STRICT_CLIENT_CERT_PORT"
        /// As ``strictClientCertificate``, TLS 1.2 only.
        case tls12ClientCertificate = "NGINX_TLS12_CLIENT_CERT_PORT"
        /// Plain HTTP.
        case http = "NGINX_HTTP_PORT"

        var port: Int { Int(Nginx.environment[rawValue] ?? "") ?? 9 }

        /// `https://127.0.0.1:port` (`http://` for ``http``).
        var url: URL { URL(string: "\(self == .http ? "http" : "https")://127.0.0.1:\(port)")! }

        var testDescription: String { "\(self)" }
    }

    private static func file(_ variable: String) -> URL {
        URL(fileURLWithPath: environment[variable] ?? "/nonexistent/\(variable)")
    }

    /// The CA that signed the servers' certificates.
    static var certificateAuthority: URL { file("NGINX_CA") }
    /// The CA of the client certificate, which signed no server's.
    static var clientCertificateAuthority: URL { file("NGINX_CLIENT_CA") }
    static var clientCertificate: URL { file("NGINX_CLIENT_CERT") }
    static var clientKey: URL { file("NGINX_CLIENT_KEY") }
    static var clientPKCS12: URL { file("NGINX_CLIENT_P12") }
    static var clientPKCS12Password: String { environment["NGINX_CLIENT_P12_PASSWORD"] ?? "" }
    /// OpenSSL's pin of the servers' key.
    static var serverPin: String { environment["NGINX_SERVER_PIN"] ?? "" }
    /// OpenSSL's pin of a key no server has.
    static var otherPin: String { environment["NGINX_OTHER_PIN"] ?? "" }
    /// The folder nginx serves.
    static var root: URL { file("NGINX_ROOT") }
    /// `NAME.raw` (a public key as Apple's `SecKey` exports it) and `NAME.pin` (OpenSSL's pin).
    static var keys: URL { file("NGINX_KEYS") }

    /// The lines of nginx's access log for the requests whose URI holds `marker`, once there are
    /// `count` of them: `port connection request-on-connection protocol tls-version method uri
    /// status client-verification`.
    ///
    /// nginx writes a request's line as it finishes it, which may be just after the client has
    /// the response: this waits for the lines (the event), failing after ``TestTiming/giveUp``.
    static func accessLog(for marker: String, count: Int) async throws -> [[Substring]] {
        let deadline = Date().addingTimeInterval(TestTiming.giveUp)
        var lines: [[Substring]] = []
        while true {
            let log = (try? String(contentsOf: file("NGINX_ACCESS_LOG"), encoding: .utf8)) ?? ""
            lines = log.split(separator: "\n").filter { $0.contains(marker) }.map { $0.split(separator: " ") }
            if lines.count >= count || Date() > deadline { break }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        try #require(lines.count == count, "nginx logged \(lines.count) request(s) with \(marker), not \(count)")
        return lines
    }

    /// Whether nginx logged a request whose URI holds `marker` (it had, when it logged `after`,
    /// sent later: requests are logged as they finish).
    static func logged(_ marker: String, before after: String) async throws -> Bool {
        _ = try await accessLog(for: after, count: 1)
        let log = try String(contentsOf: file("NGINX_ACCESS_LOG"), encoding: .utf8)
        return log.contains(marker)
    }
}

/// `GET /small.json?marker=…`: nginx's small JSON file; the marker finds the request in its log.
struct NginxJSON: Endpoint {
    typealias Server = LoopbackServer
    struct Response: Decodable, Sendable, Equatable {
        let name: String
        let secure: Bool
    }
    struct ParameterComponents: Sendable { let marker: String }

    static let definition: Definition<NginxJSON> = Definition(
        path: "small.json", parameters: [.query("marker", path: \.marker)])

    let parameterComponents: ParameterComponents

    init(marker: String = UUID().uuidString) { parameterComponents = ParameterComponents(marker: marker) }
}

/// `GET /large.bin`: 8 MiB of random bytes, raw.
struct NginxLargeFile: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Data

    static let definition: Definition<NginxLargeFile> = Definition(path: "large.bin")
}

extension EndpointClient {
    /// Sends `endpoint` to the server at `baseURL`, keeping the typed error.
    func send<E: Endpoint>(
        _ endpoint: E, to baseURL: URL
    ) async -> Result<TypedResponse<E.Response>, E.TaskError> {
        await Loopback.$baseURL.withValue(baseURL) {
            do throws(E.TaskError) {
                return .success(try await typedResponse(with: endpoint))
            } catch {
                return .failure(error)
            }
        }
    }
}

extension EndpointTaskError {
    /// The typed cause of a TLS failure, else `nil`.
    var tlsFailure: TLSFailure? {
        if case .urlLoadError(let error) = self { error.tlsFailure } else { nil }
    }
}
