import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// `CurlTransport` trusting nginx over TLS by a ``TLSTrust``: extra and only authorities,
    /// HTTP/2 and its multiplexing, pins, and each way a server's certificate is refused, with
    /// its typed cause. Run with `scripts/nginx.sh run swift test`; `scripts/test.sh` does.
    @Suite(.enabled(if: Nginx.isRunning, Nginx.skipReason))
    struct CurlServerTrustTests {
        private func client(_ trust: TLSTrust?) throws -> EndpointClient {
            EndpointClient(transport: try CurlTransport(tls: trust))
        }

        private var trustingTheCA: TLSTrust {
            get throws { try TLSTrust(certificateAuthorities: [Nginx.certificateAuthority]) }
        }

        @Test func anExtraAuthorityIsTrustedAndHTTP2Negotiated() async throws {
            let marker = UUID().uuidString
            let result = try await client(trustingTheCA).send(NginxJSON(marker: marker), to: Nginx.Server.https.url)
                .get()
            #expect(result.value == NginxJSON.Response(name: "endpoints", secure: true))
            let connection = try #require(result.metrics.attempts.first?.connection)
            #expect(connection.networkProtocol == "h2")
            #expect(connection.secureConnection != nil)
            let line = try #require(try await Nginx.accessLog(for: marker, count: 1).first)
            #expect(line[3] == "HTTP/2.0" && line[4] == "TLSv1.3", "nginx logged \(line)")
        }

        /// `trustsSystemRoots: false` with a folder: its certificate files are the only anchors,
        /// and other files in it are ignored.
        @Test func aFolderOfAuthoritiesAloneIsTrusted() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            defer { try? FileManager.default.removeItem(at: folder) }
            try FileManager.default.copyItem(
                at: Nginx.certificateAuthority, to: folder.appendingPathComponent("internal.crt"))
            try Data("not a certificate".utf8).write(to: folder.appendingPathComponent("README.txt"))
            let trust = try TLSTrust(certificateAuthorities: [folder], trustsSystemRoots: false)
            let result = try await client(trust).send(NginxJSON(), to: Nginx.Server.https.url).get()
            #expect(result.value.secure)
        }

        /// Sixteen requests at once on a new transport: one connection, the others multiplexed on
        /// it (libcurl waits for the first handshake rather than open more), as nginx saw too.
        @Test func concurrentRequestsShareOneHTTP2Connection() async throws {
            let client = try client(trustingTheCA)
            let marker = UUID().uuidString
            let count = 16
            let connections = try await withThrowingTaskGroup(of: RequestMetrics.ConnectionMetrics?.self) { group in
                for _ in 0..<count {
                    group.addTask {
                        try await client.send(NginxJSON(marker: marker), to: Nginx.Server.https.url).get()
                            .metrics.attempts.first?.connection
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(connections.count == count)
            #expect(connections.allSatisfy { $0?.networkProtocol == "h2" })
            #expect(connections.filter { $0?.reusedConnection == false }.count == 1)
            let lines = try await Nginx.accessLog(for: marker, count: count)
            let seen = Set(lines.map { $0[1] })
            #expect(seen.count == 1, "nginx saw the requests on connections \(seen.sorted())")
        }

        /// 8 MiB over HTTP/2, through its flow control, byte for byte.
        @Test func aLargeFileArrivesWholeOverHTTP2() async throws {
            let result = try await client(trustingTheCA).send(NginxLargeFile(), to: Nginx.Server.https.url).get()
            let expected = try Data(contentsOf: Nginx.root.appendingPathComponent("large.bin"))
            #expect(result.value.count == expected.count)
            #expect(result.value == expected)
            #expect(result.metrics.attempts.first?.connection?.networkProtocol == "h2")
        }

        /// A certificate refused, and the typed cause and `URLError` code it is reported with.
        enum Refusal: String, CaseIterable, Sendable {
            case noAuthority, anotherAuthorityOnly, selfSigned, wrongHost, expired, notYetValid
            /// A pin of the server's key does not make a certificate for another host, or an
            /// expired one, acceptable: pins are checked on top of verification.
            case pinnedButWrongHost, pinnedButExpired
            case plainHTTPServer

            var url: URL {
                switch self {
                case .noAuthority, .anotherAuthorityOnly: Nginx.Server.https.url
                case .selfSigned: Nginx.Server.selfSigned.url
                case .wrongHost, .pinnedButWrongHost: Nginx.Server.wrongHost.url
                case .expired, .pinnedButExpired: Nginx.Server.expired.url
                case .notYetValid: Nginx.Server.notYetValid.url
                case .plainHTTPServer: URL(string: "https://127.0.0.1:\(Nginx.Server.http.port)")!
                }
            }

            func trust() throws -> TLSTrust? {
                switch self {
                case .noAuthority, .plainHTTPServer: nil
                case .anotherAuthorityOnly:
                    try TLSTrust(certificateAuthorities: [Nginx.clientCertificateAuthority], trustsSystemRoots: false)
                case .pinnedButWrongHost, .pinnedButExpired:
                    try TLSTrust(
                        certificateAuthorities: [Nginx.certificateAuthority], pinnedPublicKeys: [Nginx.serverPin])
                default: try TLSTrust(certificateAuthorities: [Nginx.certificateAuthority])
                }
            }

            var reason: TLSFailure.Reason {
                switch self {
                case .noAuthority, .anotherAuthorityOnly, .selfSigned: .untrusted
                case .wrongHost, .pinnedButWrongHost: .hostnameMismatch
                case .expired, .pinnedButExpired: .expired
                case .notYetValid: .notYetValid
                case .plainHTTPServer: .handshake
                }
            }

            var code: URLError.Code {
                switch reason {
                case .untrusted: .serverCertificateHasUnknownRoot
                case .hostnameMismatch: .serverCertificateUntrusted
                case .expired: .serverCertificateHasBadDate
                case .notYetValid: .serverCertificateNotYetValid
                default: .secureConnectionFailed
                }
            }
        }

        @Test(arguments: Refusal.allCases)
        func aCertificateIsRefusedWithItsCause(_ refusal: Refusal) async throws {
            let marker = UUID().uuidString
            let error = try #require(
                await client(refusal.trust()).send(NginxJSON(marker: marker), to: refusal.url).failure())
            #expect(error.tlsFailure?.reason == refusal.reason, "got \(error)")
            #expect(error.urlErrorCode == refusal.code, "got \(error)")
        }

        /// Pins as the server's key's (one of several, with or without curl's `sha256//`).
        @Test(arguments: [false, true])
        func aPinnedKeyIsTrusted(curlSpelling: Bool) async throws {
            let pins = [Nginx.otherPin, Nginx.serverPin].map { curlSpelling ? "sha256//\($0)" : $0 }
            let trust = try TLSTrust(certificateAuthorities: [Nginx.certificateAuthority], pinnedPublicKeys: pins)
            let result = try await client(trust).send(NginxJSON(), to: Nginx.Server.https.url).get()
            #expect(result.value.secure)
        }

        /// A key matching no pin ends the connection after the handshake: the request is never
        /// sent, and nginx never logs it (while it logs the next one, sent after it).
        @Test func aKeyMatchingNoPinIsRefusedBeforeTheRequestIsSent() async throws {
            let trust = try TLSTrust(
                certificateAuthorities: [Nginx.certificateAuthority], pinnedPublicKeys: [Nginx.otherPin])
            let refused = UUID().uuidString
            let error = try #require(
                await client(trust).send(NginxJSON(marker: refused), to: Nginx.Server.https.url).failure())
            #expect(error.tlsFailure?.reason == .pinMismatch, "got \(error)")
            #expect(error.urlErrorCode == .serverCertificateUntrusted)
            let later = UUID().uuidString
            _ = try await client(trustingTheCA).send(NginxJSON(marker: later), to: Nginx.Server.https.url).get()
            #expect(try await !Nginx.logged(refused, before: later))
        }

        /// Linux's URLSession cannot be told to trust a CA (so every certificate here is refused
        /// as untrusted) and reports each TLS failure as `URLError -1`: the library reads the cause
        /// from curl's words and reports it as ``CurlTransport`` does, its ``TLSFailure``
        /// underneath.
        @Test(arguments: [Refusal.noAuthority, .selfSigned, .wrongHost, .expired, .plainHTTPServer])
        func linuxURLSessionReportsTheCauseCurlNames(_ refusal: Refusal) async throws {
            let client = EndpointClient(session: URLSession(configuration: .ephemeral))
            let error = try #require(await client.send(NginxJSON(), to: refusal.url).failure())
            let reason: TLSFailure.Reason = refusal == .plainHTTPServer ? .handshake : .untrusted
            #expect(error.tlsFailure?.reason == reason, "got \(error)")
            #expect(
                error.urlErrorCode
                    == (reason == .handshake ? .secureConnectionFailed : .serverCertificateHasUnknownRoot),
                "got \(error)")
        }

        /// The trust settings leave plain HTTP alone.
        @Test func plainHTTPIsUnaffected() async throws {
            let trust = try TLSTrust(
                certificateAuthorities: [Nginx.certificateAuthority], trustsSystemRoots: false,
                pinnedPublicKeys: [Nginx.otherPin])
            let result = try await client(trust).send(NginxJSON(), to: Nginx.Server.http.url).get()
            #expect(result.value.secure)
            #expect(result.metrics.attempts.first?.connection?.networkProtocol == "http/1.1")
        }
    }
#endif
