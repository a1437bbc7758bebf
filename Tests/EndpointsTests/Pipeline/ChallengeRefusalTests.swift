import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the URLSession transports' task delegate does with an authentication challenge: a server's
/// is refused (its 401 reaches the pipeline once), a proxy's is left to the session and the system,
/// as URLSession handles it without the delegate.
struct ChallengeRefusalTests {
    private final class Sender: NSObject, URLAuthenticationChallengeSender {
        func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
        func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
        func cancel(_ challenge: URLAuthenticationChallenge) {}
        func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
        func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
    }

    /// The disposition the delegate gives a `method` challenge of a server or of a proxy.
    private static func disposition(method: String, proxy: Bool) -> (URLSession.AuthChallengeDisposition?, Bool) {
        let space =
            proxy
            ? URLProtectionSpace(
                proxyHost: "proxy.internal", port: 3128, type: "http", realm: "p", authenticationMethod: method)
            : URLProtectionSpace(
                host: "api.example", port: 443, protocol: "https", realm: "r", authenticationMethod: method)
        let challenge = URLAuthenticationChallenge(
            protectionSpace: space, proposedCredential: nil, previousFailureCount: 0, failureResponse: nil, error: nil,
            sender: Sender())
        let request = URLRequest(url: URL(string: "https://api.example/")!)
        let guardian = RedirectGuard(original: request, credentialHeaders: [])
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let chosen = Locked<URLSession.AuthChallengeDisposition?>(nil)
        guardian.urlSession(session, task: session.dataTask(with: request), didReceive: challenge) { disposition, _ in
            chosen.withLock { $0 = disposition }
        }
        return (chosen.withLock { $0 }, guardian.refusedChallenge == nil)
    }

    @Test(arguments: [NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest])
    func aServersChallengeIsRefusedAndAProxysIsNot(method: String) {
        #expect(Self.disposition(method: method, proxy: false).0 == .rejectProtectionSpace)
        let (proxied, nothingRefused) = Self.disposition(method: method, proxy: true)
        #expect(proxied == .performDefaultHandling)
        #expect(nothingRefused)
    }
}
