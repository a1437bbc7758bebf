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
    /// (corelibs asks only the task's `delegate`, which falls back to the session's), so requests
    /// go through a session whose delegate is a ``CallRouter``: it finds each task's guard by the
    /// call number the request carries and hands it the redirect or challenge.
    ///
    /// The companion shares everything the configuration holds by reference with the given
    /// session (cookie store, cache, credential storage, protocol classes), and has a connection
    /// pool of its own. ``Registry`` keeps one companion per live session; a session that ended
    /// takes its companion down the next time a companion is made.
    struct CompanionSession: Sendable {
        let session: URLSession
        let router: CallRouter

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
                    let router = CallRouter()
                    let companion = CompanionSession(
                        session: URLSession(configuration: session.configuration, delegate: router, delegateQueue: nil),
                        router: router)
                    table[key] = Entry(owner: session, companion: companion)
                    return (companion, ended)
                }
                for stale in ended { stale.session.finishTasksAndInvalidate() }
                return companion
            }
        }

        /// Whether `request` can go through a companion: it carries the call number in
        /// `mainDocumentURL`, which corelibs never reads, so one that has its own is sent as before.
        static func canSend(_ request: URLRequest) -> Bool { request.mainDocumentURL == nil }

        /// Sends `request` with `data(for:)`, its redirects and challenges decided by a
        /// ``RedirectGuard`` that drops `credentialHeaders` on a redirect to another origin.
        func send(_ request: URLRequest, credentialHeaders: Set<String>) async throws -> (Data, HTTPURLResponse) {
            var tagged = request
            let call = router.open(&tagged, credentialHeaders: credentialHeaders)
            defer { router.close(call) }
            var next = tagged
            while true {
                let data: Data
                let response: URLResponse
                do {
                    (data, response) = try await session.data(for: next)
                } catch {
                    return try DataTaskCall.outcome(
                        of: request, data: nil, response: nil, error: error, cancelled: Task.isCancelled,
                        timedOut: false, redirects: call.redirects
                    ).get()
                }
                if let resend = call.redirects.takeResend() {
                    next = resend
                    continue
                }
                return try DataTaskCall.outcome(
                    of: request, data: data, response: response, error: nil, cancelled: false, timedOut: false,
                    redirects: call.redirects
                ).get()
            }
        }
    }

    /// The companion session's delegate: hands each task's redirect and challenge to the
    /// ``RedirectGuard`` of the call its request belongs to.
    final class CallRouter: NSObject, URLSessionTaskDelegate, Sendable {
        struct Call: Sendable {
            let number: UInt64
            let redirects: RedirectGuard
        }

        private struct State {
            var next: UInt64 = 0
            var calls: [UInt64: RedirectGuard] = [:]
        }

        private static let scheme = "x-endpoints-call"
        private let state = Locked(State())

        /// Numbers `request` (in its `mainDocumentURL`) and registers its guard until ``close(_:)``.
        func open(_ request: inout URLRequest, credentialHeaders: Set<String>) -> Call {
            let number = state.withLock { state -> UInt64 in
                state.next &+= 1
                return state.next
            }
            request.mainDocumentURL = URL(string: "\(Self.scheme):\(number)")
            let redirects = RedirectGuard(original: request, credentialHeaders: credentialHeaders)
            state.withLock { $0.calls[number] = redirects }
            return Call(number: number, redirects: redirects)
        }

        /// How many calls are open (for tests).
        var openCalls: Int { state.withLock { $0.calls.count } }

        func close(_ call: Call) {
            _ = state.withLock { $0.calls.removeValue(forKey: call.number) }
        }

        private func redirects(for task: URLSessionTask) -> RedirectGuard? {
            guard let marker = task.originalRequest?.mainDocumentURL, marker.scheme == Self.scheme,
                let number = UInt64(marker.absoluteString.dropFirst(Self.scheme.count + 1))
            else { return nil }
            return state.withLock { $0.calls[number] }
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            guard let redirects = redirects(for: task) else { return completionHandler(nil) }
            redirects.urlSession(
                session, task: task, willPerformHTTPRedirection: response, newRequest: request,
                completionHandler: completionHandler)
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            guard let redirects = redirects(for: task) else { return completionHandler(.rejectProtectionSpace, nil) }
            redirects.urlSession(session, task: task, didReceive: challenge, completionHandler: completionHandler)
        }
    }
#endif
