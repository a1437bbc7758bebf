#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking

    /// Linux only: the session that sends a `URLSessionTransport`'s buffered requests, one per
    /// session the transport was given, with that session's configuration.
    ///
    /// corelibs delivers a completion handler on the session's delegate queue, one thread hop
    /// after the transfer ends, except for its own `data(for:)`, which completes on the transfer's
    /// queue. That hop was the transport's whole cost over raw `data(for:)` (3–9% of the CPU per
    /// request on loopback). `data(for:)` cannot take the library's per-request redirect guard
    /// (corelibs asks only the task's `delegate`, which falls back to the session's), so the
    /// companion's delegate, a ``RedirectRefusal``, follows no redirect: each one comes back as
    /// its 3xx response, and ``send(_:credentialHeaders:)`` sends the next hop itself under
    /// ``RedirectPolicy``, with everything it needs in local variables. Nothing is registered or
    /// tagged per request (tagging one copied its `URLRequest` storage, 7 µs a request).
    ///
    /// The companion shares the given session's cookie store, cache and protocol classes by
    /// reference, and has a connection pool of its own. It has no credential storage: the library
    /// never answers an HTTP authentication challenge from one, so a 401 reaches the pipeline once.
    /// ``Registry`` keeps one companion per live session; a session that ended takes its companion
    /// down the next time a companion is made.
    struct CompanionSession: Sendable {
        let session: URLSession
        let refusal: RedirectRefusal

        /// The companion of `session`, made on first use.
        static func of(_ session: URLSession) -> CompanionSession { Registry.shared.companion(of: session) }

        /// One companion per live session. One companion per session is what lets its connections
        /// be reused, so `shared` is a registry of sessions, like corelibs' own `URLSession.shared`.
        final class Registry: Sendable {
            static let shared = Registry()

            private struct Entry {
                weak var owner: URLSession?
                let companion: CompanionSession
            }

            private let table = Locked<[ObjectIdentifier: Entry]>([:])

            /// How many companions the registry holds.
            var count: Int { table.withLock { $0.count } }

            /// The companion of `session`, made on first use; companions of sessions that ended
            /// are invalidated then.
            func companion(of session: URLSession) -> CompanionSession {
                let key = ObjectIdentifier(session)
                let (companion, ended) = table.withLock { table -> (CompanionSession, [CompanionSession]) in
                    if let entry = table[key], entry.owner === session { return (entry.companion, []) }
                    var ended: [CompanionSession] = []
                    for (key, entry) in table where entry.owner == nil {
                        ended.append(entry.companion)
                        table[key] = nil
                    }
                    let refusal = RedirectRefusal()
                    let companion = CompanionSession(
                        session: CompanionSession.session(like: session, delegate: refusal), refusal: refusal)
                    table[key] = Entry(owner: session, companion: companion)
                    return (companion, ended)
                }
                for stale in ended { stale.session.finishTasksAndInvalidate() }
                return companion
            }
        }

        /// A session with `session`'s configuration, without its credential storage.
        static func session(like session: URLSession, delegate: RedirectRefusal) -> URLSession {
            // `configuration` is the session's own object on Linux, not a copy: copy it to change it.
            let configuration = session.configuration.copy() as! URLSessionConfiguration
            configuration.urlCredentialStorage = nil
            return URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        }

        /// Sends `request` with `data(for:)`, following its redirects as corelibs would (the same
        /// statuses, at most ``RedirectPolicy/maximumHops``) under a ``RedirectPolicy`` that drops
        /// `credentialHeaders` on a redirect to another origin. Each hop is a request of its own,
        /// which corelibs gives the store's cookies for its URL; a 307 or 308 keeps its body.
        func send(_ request: URLRequest, credentialHeaders: Set<String>) async throws -> (Data, HTTPURLResponse) {
            var current = request
            var policy: RedirectPolicy?
            var hops = 0
            while true {
                let data: Data
                let response: URLResponse
                do {
                    (data, response) = try await session.data(for: current)
                } catch {
                    if Task.isCancelled { throw CancellationError() }
                    // Nothing else cancels a companion's task: the refusal refused a challenge, which
                    // corelibs answers only to a 401, and kept its head (corelibs drops the body).
                    if (error as? URLError)?.code == .cancelled {
                        return (Data(), refusal.takeRefusedChallenge(for: current) ?? Self.unauthorized(current))
                    }
                    throw error
                }
                guard let response = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
                if let target = Self.redirectTarget(of: response, from: current) {
                    hops += 1
                    guard hops <= RedirectPolicy.maximumHops else {
                        throw URLError(
                            .httpTooManyRedirects, userInfo: [NSURLErrorFailingURLErrorKey: request.url as Any])
                    }
                    let rules = policy ?? RedirectPolicy(original: request, credentialHeaders: credentialHeaders)
                    policy = rules
                    current = rules.nextRequest(after: current, status: response.statusCode, target: target)
                    continue
                }
                if let violation = ResponseFraming.violation(
                    of: response, bodyLength: data.count, requestMethod: request.httpMethod)
                {
                    throw violation
                }
                return (data, response)
            }
        }

        /// A 401 head for `request`, when the refused challenge's own was not found.
        static func unauthorized(_ request: URLRequest) -> HTTPURLResponse {
            HTTPURLResponse(
                url: request.url ?? URL(string: "about:blank")!, statusCode: 401, httpVersion: "HTTP/1.1",
                headerFields: [:])!
        }

        /// Where corelibs would redirect `current` after `response`: the statuses it follows
        /// (301–303, 305–308) with a `Location` it can parse, resolved as RFC 3986 says.
        static func redirectTarget(of response: HTTPURLResponse, from current: URLRequest) -> URL? {
            switch response.statusCode {
            case 301...303, 305...308: break
            default: return nil
            }
            guard let location = response.value(forHTTPHeaderField: "Location"), URL(string: location) != nil else {
                return nil
            }
            return RedirectPolicy.target(of: response, location: location, current: current)
        }
    }

    /// The companion session's delegate: it follows no redirect, so that each comes back to
    /// ``CompanionSession/send(_:credentialHeaders:)`` as its 3xx response (with its body), and
    /// refuses HTTP authentication challenges, so that a 401 reaches the pipeline exactly once.
    ///
    /// corelibs ends a task whose challenge was refused as cancelled, without the 401's body (and
    /// never completes one whose challenge gets the default handling). The refusal keeps the
    /// 401's head for the request that was sent, until the sender takes it; two identical
    /// requests in flight at once may take each other's (they carry the same credentials). At
    /// most ``keptChallenges`` heads are kept, the oldest dropped first.
    final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
        static let keptChallenges = 64
        private let refused = Locked<[(request: URLRequest, response: HTTPURLResponse)]>([])

        /// The head of the 401 whose challenge was refused for `request`, once.
        func takeRefusedChallenge(for request: URLRequest) -> HTTPURLResponse? {
            refused.withLock { refused in
                guard let index = refused.firstIndex(where: { $0.request == request }) else { return nil }
                return refused.remove(at: index).response
            }
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            switch challenge.protectionSpace.authenticationMethod {
            case NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest,
                NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate:
                if let response = (challenge.failureResponse ?? task.response) as? HTTPURLResponse,
                    let request = task.originalRequest
                {
                    refused.withLock { refused in
                        if refused.count >= Self.keptChallenges { refused.removeFirst() }
                        refused.append((request, response))
                    }
                }
                completionHandler(.rejectProtectionSpace, nil)
            default:
                // On Linux, TLS is evaluated by libcurl and no other challenge reaches a delegate.
                completionHandler(.performDefaultHandling, nil)
            }
        }
    }
#endif
