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
///   authentication set are removed, and stay removed on later hops. Within the origin,
///   credentials that sign the request itself (``DigestAuth``'s) are signed again for the new URL.
/// - A relative `Location` is resolved against the URL that was redirected (RFC 3986 §5.2, see
///   ``RedirectLocation``), not against the root as corelibs does.
/// - Each hop follows the session's cookie policy: cookies the session stored (including those a
///   redirect response set) go to the new URL when the configuration's `httpShouldSetCookies` and
///   the request's `httpShouldHandleCookies` allow it, as URLSession does without a delegate.
/// - More than ``maximumHops`` redirects fail with `URLError.httpTooManyRedirects`.
struct RedirectPolicy: Sendable {
    /// 16, the limit Apple documents for `URLError.httpTooManyRedirects`, on every platform
    /// (corelibs alone would allow 20).
    static let maximumHops = 16

    /// Whether a response of `status` is a redirect to follow when it has a usable `Location`:
    /// 301, 302, 303, 307, 308.
    static func isRedirect(status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: true
        default: false
        }
    }

    /// The error of a request redirected more than ``maximumHops`` times, from `url`.
    static func tooManyRedirects(from url: URL?) -> URLError {
        URLError(
            .httpTooManyRedirects,
            userInfo: [
                NSLocalizedDescriptionKey:
                    "The server redirected more than \(maximumHops) times; the last redirect was not followed.",
                NSURLErrorFailingURLErrorKey: url as Any,
            ])
    }

    /// The original request's URL, whose origin a redirect is compared with (worked out only
    /// when a redirect happens, so a request that is not redirected never parses its host).
    let originalURL: URL?
    let credentialHeaders: Set<String>
    /// The request with its credentials brought up to date, or `nil` when they need no change
    /// (``RequestContext``'s, from the authentication method): a same-origin hop is passed through
    /// it, so that credentials which sign the request itself (``DigestAuth``'s) sign the new one.
    let currentCredentials: (@Sendable (URLRequest) -> URLRequest?)?

    init(
        original: URLRequest, credentialHeaders: Set<String>,
        currentCredentials: (@Sendable (URLRequest) -> URLRequest?)? = nil
    ) {
        originalURL = original.url
        self.credentialHeaders = credentialHeaders
        self.currentCredentials = currentCredentials
    }

    /// The original request's origin.
    var origin: Origin? { originalURL.flatMap(Origin.init) }

    /// The request to send next to `target`, built from the request that was redirected.
    func nextRequest(after current: URLRequest, status: Int, target: URL?) -> URLRequest {
        var next = current
        next.url = target
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
        if let url = target, Origin(url) != origin {
            for name in current.allHTTPHeaderFields?.keys ?? [:].keys
            where credentialHeaders.contains(name.lowercased()) {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        } else if let updated = currentCredentials?(next) {
            next = updated
        }
        return next
    }

    /// Whether `next` lost a header `current` carried: the credentials dropped for another origin
    /// (the only headers ``nextRequest(after:status:target:)`` removes besides a body's).
    static func droppedCredentials(from current: URLRequest, to next: URLRequest) -> Bool {
        let before = current.allHTTPHeaderFields?.count ?? 0
        let after = next.allHTTPHeaderFields?.count ?? 0
        let bodyHeaders = ["Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding"]
        let droppedBody = bodyHeaders.filter {
            current.value(forHTTPHeaderField: $0) != nil && next.value(forHTTPHeaderField: $0) == nil
        }.count
        return before - droppedBody > after
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
    /// Hears of each hop followed (and on Apple platforms of the system's metrics).
    let recorder: RequestRecorder?
    /// Whether redirects are followed at all; when not, the task completes with the 3xx.
    private let follows: Bool

    init(
        original: URLRequest, credentialHeaders: Set<String>,
        currentCredentials: (@Sendable (URLRequest) -> URLRequest?)? = nil, recorder: RequestRecorder? = nil,
        follows: Bool = true
    ) {
        policy = RedirectPolicy(
            original: original, credentialHeaders: credentialHeaders, currentCredentials: currentCredentials)
        state = Locked(State(current: original))
        self.recorder = recorder
        self.follows = follows
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
    /// (and corelibs, with none stored, never completes the task).
    ///
    /// A proxy's challenge (a 407, which only Apple's URLSession turns into one) is not the
    /// pipeline's: it is handled as URLSession handles it without this delegate, by the session's
    /// delegate or by default (the credentials of the system's proxy settings and of the
    /// credential storage), as below.
    ///
    /// Every other challenge (server trust, client certificates) is answered as if this per-task
    /// delegate were not there, so certificate pinning in the session's delegate keeps working. Apple
    /// documents that a session-level challenge goes to the session delegate's
    /// `urlSession(_:didReceive:completionHandler:)` and, only when there is none, to the task
    /// delegate; with a task delegate set, the library forwards the challenge explicitly: to the
    /// session delegate's task-level method if it has one, else to its session-level method, and
    /// only without either does it ask for the default handling (the system's trust evaluation).
    /// On Linux, TLS is evaluated by libcurl and these challenges never reach a delegate.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let space = challenge.protectionSpace
        switch space.isProxy() ? "" : space.authenticationMethod {
        case NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest,
            NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate:
            let response = (challenge.failureResponse ?? task.response) as? HTTPURLResponse
            state.withLock { $0.refusedChallenge = response }
            completionHandler(.rejectProtectionSpace, nil)
        default:
            #if !canImport(FoundationNetworking)
                if let delegate = session.delegate, delegate !== self {
                    if let taskDelegate = delegate as? any URLSessionTaskDelegate,
                        taskDelegate.urlSession?(
                            session, task: task, didReceive: challenge, completionHandler: completionHandler) != nil
                    {
                        return
                    }
                    if delegate.urlSession?(session, didReceive: challenge, completionHandler: completionHandler) != nil
                    {
                        return
                    }
                }
            #endif
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
        guard follows else {
            completionHandler(nil)  // the 3xx is the answer
            return
        }
        let configuration = session.configuration
        let next: URLRequest? = state.withLock { state in
            state.hops += 1
            guard state.hops <= RedirectPolicy.maximumHops else {
                state.exceeded = true
                return nil
            }
            let before = state.current
            let base = response.url ?? state.current.url
            let target =
                base.flatMap { RedirectLocation.target(of: response.value(forHTTPHeaderField: "Location"), from: $0) }
                ?? request.url
            state.current = policy.nextRequest(after: state.current, status: response.statusCode, target: target)
            recorder?.redirected(
                status: response.statusCode,
                droppedCredentials: RedirectPolicy.droppedCredentials(from: before, to: state.current))
            #if canImport(FoundationNetworking)
                // corelibs drops the body of every redirect it follows for a delegate, and waits
                // for a body stream (an upload's file) it never gets: the call resends those itself.
                if state.current.httpBody?.isEmpty == false || state.current.httpBodyStream != nil {
                    state.resend = state.current
                    return nil
                }
                // corelibs adds the store's cookies only to requests it builds itself, not to the
                // request a delegate hands back (it already stored the redirect's Set-Cookie).
                return CookieHeader.withStoredCookies(state.current, configuration: configuration)
            #else
                // Apple's URLSession adds the store's cookies to the request it is handed.
                _ = configuration
                return state.current
            #endif
        }
        // Past the limit, the redirect is not followed: the task completes with the 3xx, which the
        // caller reports as `httpTooManyRedirects` (see ``exceededHops``). Cancelling the task here
        // instead would race corelibs, which traps when the handler is called after a cancel.
        completionHandler(next)
    }
}
