import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a redirect is followed. The same rules on every platform: Linux's URLSession copies every
/// header to the new URL, credentials included, so the library builds the next request itself.
///
/// - 301 and 302 turn a POST into a GET without a body; 303 turns anything but HEAD into a GET.
/// - 307 and 308 keep the method and the body.
/// - When the new URL's origin (scheme, host, port) differs from the original request's,
///   `Authorization`, `Proxy-Authorization`, `Cookie` and every header the endpoint's
///   authentication set are removed, and stay removed on later hops.
/// - More than ``maximumHops`` redirects fail with `URLError.httpTooManyRedirects`.
struct RedirectPolicy: Sendable {
    static let maximumHops = 20

    let origin: Origin?
    let credentialHeaders: Set<String>

    init(original: URLRequest, credentialHeaders: Set<String>) {
        origin = original.url.flatMap(Origin.init)
        self.credentialHeaders = credentialHeaders
    }

    /// The request to send next, built from the request that was redirected.
    func nextRequest(after current: URLRequest, status: Int, location: URLRequest) -> URLRequest {
        var next = current
        next.url = location.url
        let method = current.httpMethod ?? "GET"
        let becomesGet = (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST")
        if becomesGet {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.httpBodyStream = nil
            for name in ["Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding"] {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        if let url = location.url, Origin(url) != origin {
            for name in current.allHTTPHeaderFields?.keys ?? [:].keys
            where credentialHeaders.contains(name.lowercased()) {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        return next
    }

    /// Scheme, host and port, with the scheme's default port filled in (RFC 6454).
    struct Origin: Hashable, Sendable {
        let scheme: String
        let host: String
        let port: Int

        init?(_ url: URL) {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
            self.scheme = scheme
            self.host = host
            self.port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        }
    }
}

/// The per-task delegate that applies ``RedirectPolicy``.
final class RedirectGuard: NSObject, URLSessionTaskDelegate, Sendable {
    private struct State {
        var hops = 0
        var current: URLRequest
        var exceeded = false
        var resend: URLRequest?
        var refusedChallenge: HTTPURLResponse?
    }

    private let policy: RedirectPolicy
    private let state: Locked<State>

    init(original: URLRequest, credentialHeaders: Set<String>) {
        policy = RedirectPolicy(original: original, credentialHeaders: credentialHeaders)
        state = Locked(State(current: original))
    }

    /// Whether the task was stopped for redirecting too often.
    var exceededHops: Bool { state.withLock { $0.exceeded } }

    /// The redirected request the caller must send itself, once: corelibs sends a followed
    /// redirect without its body, so a 307 or 308 with a body is not followed but handed back here
    /// (the task then completes with the 3xx response, which the caller discards).
    func takeResend() -> URLRequest? {
        state.withLock { state in
            defer { state.resend = nil }
            return state.resend
        }
    }

    /// The 401 (or 407) whose authentication challenge was refused, if any. corelibs then ends the
    /// task as cancelled, without the body; the caller reports this response instead.
    var refusedChallenge: HTTPURLResponse? { state.withLock { $0.refusedChallenge } }

    /// Refuses HTTP authentication challenges, so that a 401 reaches the pipeline exactly once:
    /// URLSession would otherwise resend the request with a credential from its credential storage
    /// (and corelibs, with none stored, never completes the task). Server trust and client
    /// certificate challenges keep the default handling.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        switch challenge.protectionSpace.authenticationMethod {
        case NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest,
            NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate:
            let response = (challenge.failureResponse ?? task.response) as? HTTPURLResponse
            state.withLock { $0.refusedChallenge = response }
            completionHandler(.rejectProtectionSpace, nil)
        default:
            completionHandler(.performDefaultHandling, nil)
        }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let (next, resend): (URLRequest?, Bool) = state.withLock { state in
            state.hops += 1
            guard state.hops <= RedirectPolicy.maximumHops else {
                state.exceeded = true
                return (nil, false)
            }
            state.current = policy.nextRequest(after: state.current, status: response.statusCode, location: request)
            #if canImport(FoundationNetworking)
                // corelibs drops the body of every redirect it follows for a delegate.
                if state.current.httpBody?.isEmpty == false {
                    state.resend = state.current
                    return (nil, true)
                }
            #endif
            return (state.current, false)
        }
        if next == nil && !resend { task.cancel() }
        completionHandler(next)
    }
}
