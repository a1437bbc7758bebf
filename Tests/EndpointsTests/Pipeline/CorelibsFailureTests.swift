import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// corelibs keeps no libcurl code: Linux's URLSession reports TLS failures, malformed answers
    /// and undecodable bodies as `URLError -1` with curl's words (a refused status line as
    /// `-1002`). The library gives each the code Apple platforms and ``CurlTransport`` give it;
    /// what it leaves alone is in ``PartialTransferTests/otherFailuresAreLeftAlone()``, and the
    /// same answers over real sockets in `HostileAnswerTests`, `MalformedResponseTests` and
    /// `CurlServerTrustTests`.
    @Suite struct CorelibsFailureTests {
        /// corelibs' `-1`s that curl's words tell apart (besides a body cut short) get the code
        /// Apple platforms and ``CurlTransport`` give them (curl 7.88's texts, as seen in runs),
        /// the original kept underneath (a ``TLSFailure`` for a TLS failure).
        @Test(arguments: [
            ("Illegal or missing hexadecimal sequence in chunked-encoding", URLError.Code.badServerResponse),
            ("Too long hexadecimal number in chunked-encoding", .badServerResponse),
            ("Header without colon", .badServerResponse),
            ("Nul byte in header", .badServerResponse),
            ("Invalid Content-Length: value", .badServerResponse),
            ("Too large response headers: 307227 > 307200", .badServerResponse),
            ("Failed writing header", .badServerResponse),
            ("Error while processing content unencoding: incorrect header check", .cannotDecodeContentData),
            ("Reject response due to more than 5 content encodings", .cannotDecodeContentData),
            ("Unrecognized or bad HTTP Content or Transfer-Encoding", .cannotDecodeContentData),
            ("SSL certificate problem: self-signed certificate", .serverCertificateHasUnknownRoot),
            ("SSL certificate problem: unable to get local issuer certificate", .serverCertificateHasUnknownRoot),
            ("SSL certificate problem: certificate has expired", .serverCertificateHasBadDate),
            (
                "SSL: no alternative certificate subject name matches target host name 'a.test'",
                .serverCertificateUntrusted
            ),
            ("error:0A00010B:SSL routines::wrong version number", .secureConnectionFailed),
            ("OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to 127.0.0.1:443 ", .secureConnectionFailed),
            ("CONNECT tunnel failed, response 407", .userAuthenticationRequired),
            ("CONNECT tunnel failed, response 403", .cannotConnectToHost),
            ("CONNECT tunnel failed, response 0", .badServerResponse),
        ])
        func corelibsOtherTextsGetTheirCode(text: String, code: URLError.Code) throws {
            let original = PartialTransferTests.corelibsError(text)
            let mapped = try #require(URLError.normalizingCorelibsFailure(original) as? URLError)
            #expect(mapped.code == code)
            #expect(mapped.failingURL == original.failingURL)
            #expect(mapped.localizedDescription.contains(text))
            if let failure = mapped.tlsFailure {
                #expect(failure.detail == text)
            } else {
                #expect(mapped.userInfo[NSUnderlyingErrorKey] as? URLError == original)
            }
        }

        /// curl's sentence for a proxy's refusal of a tunnel names the status, and nothing else
        /// reads as one.
        @Test func theStatusOfARefusedTunnelIsRead() {
            #expect(URLError.curlTunnelStatus("CONNECT tunnel failed, response 407") == 407)
            #expect(URLError.curlTunnelStatus("CONNECT tunnel failed, response 0") == 0)
            #expect(URLError.curlTunnelStatus("CONNECT tunnel failed, response 4077") == nil)
            #expect(URLError.curlTunnelStatus("CONNECT tunnel failed, response -1") == nil)
            #expect(URLError.curlTunnelStatus("CONNECT tunnel failed, response ") == nil)
            #expect(URLError.curlTunnelStatus("Proxy CONNECT aborted") == nil)
        }

        /// A response libcurl refuses for its status line (corelibs' `-1002`, `.unsupportedURL`)
        /// is malformed too.
        @Test(arguments: ["Received HTTP/0.9 when not allowed", "Unsupported response code in HTTP response"])
        func aStatusLineLibcurlRefusesIsMalformed(text: String) throws {
            let original = URLError(.unsupportedURL, userInfo: [NSLocalizedDescriptionKey: text])
            #expect((URLError.normalizingCorelibsFailure(original) as? URLError)?.code == .badServerResponse)
        }
    }
#endif
