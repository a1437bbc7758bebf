import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPCache {
    typealias Next = @Sendable (URLRequest) async throws -> (ResponseBody, HTTPURLResponse)

    /// Answers `request` from the store, through `next`, or both (RFC 9111 §4).
    public func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @escaping @Sendable (URLRequest) async throws -> (ResponseBody, HTTPURLResponse)
    ) async throws -> (ResponseBody, HTTPURLResponse) {
        try await handle(request, context: context, mayDetach: true, next: next)
    }

    /// Answers `request` with the body in memory, when the cache is called as a plain
    /// ``Middleware``: `next` cannot be kept, so a `stale-while-revalidate` response is
    /// revalidated before answering and requests are not coalesced.
    public func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        try await withoutActuallyEscaping(next) { next in
            let (body, response) = try await handle(request, context: context, mayDetach: false) { request in
                let (data, response) = try await next(request)
                return (ResponseBody(data), response)
            }
            return (try await body.collect(), response)
        }
    }

    /// The lookup, whose outcome the request's metrics are told (read back from the answer's
    /// `Cache-Status`, which every path through the lookup sets); `mayDetach` says whether `next`
    /// may be called after it returns.
    private func handle(
        _ request: URLRequest, context: RequestContext, mayDetach: Bool, next: @escaping Next
    ) async throws -> (ResponseBody, HTTPURLResponse) {
        let (body, response) = try await lookup(request, context: context, mayDetach: mayDetach, next: next)
        if let recorder = context.recorder, let outcome = response.cacheOutcome {
            recorder.cacheAnswered(outcome)
        }
        return (body, response)
    }

    private func lookup(
        _ request: URLRequest, context: RequestContext, mayDetach: Bool, next: @escaping Next
    ) async throws -> (ResponseBody, HTTPURLResponse) {
        let method = request.httpMethod?.uppercased() ?? "GET"
        guard let url = request.url else { return try await next(request) }
        if !Self.safeMethods.contains(method) {
            let (body, response) = try await next(request)
            if (200..<400).contains(response.statusCode) { invalidate(after: response, of: url, context: context) }
            return (body, Self.marked(response, .bypass))
        }
        let requestControl = Self.requestControl(request)
        // A Digest `Authorization` differs on every request (its nonce count) and proves nothing
        // to the cache: the response is not stored.
        guard method == "GET" || method == "HEAD", !requestControl.noStore, !Self.isDigest(request) else {
            let (body, response) = try await next(request)
            return (body, Self.marked(response, .bypass))
        }
        // A HEAD is looked up as the GET it stands for (RFC 9111 §4.3.5).
        let credential = store.keying.credentialDigest(of: request, names: context.credentialHeaders)
        var exchange = Exchange(
            cache: self, request: request, context: context, next: next, mayDetach: mayDetach,
            key: "GET \(url.absoluteString) \(credential)", control: requestControl)
        exchange.isHead = method == "HEAD"
        return try await exchange.run()
    }

    /// Whether `request` carries Digest credentials (``DigestAuth``).
    private static func isDigest(_ request: URLRequest) -> Bool {
        guard let value = request.value(forHTTPHeaderField: "Authorization") else { return false }
        return value.prefix(7).lowercased() == "digest "
    }

    /// Methods that change nothing on the server: their responses do not invalidate.
    static let safeMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"]

    /// The request with the session's own cache set aside.
    static func uncached(_ request: URLRequest) -> URLRequest {
        var request = request
        request.cachePolicy = .reloadIgnoringLocalCacheData
        return request
    }

    /// The request's directives. `Pragma` is not read: RFC 9111 §5.4 deprecates it.
    static func requestControl(_ request: URLRequest) -> CacheControl {
        CacheControl(request.value(forHTTPHeaderField: "Cache-Control"))
    }

    /// Removes what is stored for `url`, and for the response's `Location` and
    /// `Content-Location` on the same origin (RFC 9111 §4.4), for every credential.
    func invalidate(after response: HTTPURLResponse, of url: URL, context: RequestContext) {
        var targets = [url]
        for name in ["Location", "Content-Location"] {
            guard let value = response.value(forHTTPHeaderField: name),
                let target = URL(string: value, relativeTo: url)?.absoluteURL,
                target.scheme == url.scheme, target.host == url.host, target.port == url.port
            else { continue }
            targets.append(target)
        }
        for target in targets { store.removeEntries(resource: "GET \(target.absoluteString)") }
    }

    /// `response` with our member added to its `Cache-Status` header (RFC 9211), after the
    /// members upstream caches wrote, and with its `Age` when `age` is a second or more.
    static func marked(
        _ response: HTTPURLResponse, _ outcome: Outcome, stored: Bool = false, forwarded: String? = nil,
        age: TimeInterval = 0
    ) -> HTTPURLResponse {
        var fields = CachedResponse.headers(of: response)
        let upstream = fields.first { $0.key.lowercased() == "cache-status" }
        if let upstream { fields[upstream.key] = nil }
        fields["Cache-Status"] = cacheStatus(outcome, stored: stored, forwarded: forwarded, after: upstream?.value)
        if age >= 1 {
            if let existing = fields.keys.first(where: { $0.lowercased() == "age" }) { fields[existing] = nil }
            fields["Age"] = String(Int(age.rounded(.down)))
        }
        return HTTPURLResponse(
            url: response.url ?? URL(string: "about:blank")!, statusCode: response.statusCode,
            httpVersion: "HTTP/1.1", headerFields: fields) ?? response
    }

    /// The name of our member of `Cache-Status`.
    static let cacheName = "Endpoints"

    /// The `Cache-Status` value for `outcome`, after `upstream`'s members when there are any;
    /// `forwarded` names another `fwd` reason than the outcome's (`partial`), `forwardStatus` the
    /// status that revalidated (a `HEAD`'s 200).
    static func cacheStatus(
        _ outcome: Outcome, stored: Bool = false, forwarded: String? = nil, forwardStatus: Int = 304,
        after upstream: String? = nil
    ) -> String {
        let ours: String
        switch outcome {
        case .hit: ours = "\(cacheName); hit"
        case .stale: ours = "\(cacheName); hit; detail=stale"
        case .offline: ours = "\(cacheName); hit; detail=offline"
        case .revalidated: ours = "\(cacheName); fwd=stale; fwd-status=\(forwardStatus); detail=revalidated"
        case .miss: ours = "\(cacheName); fwd=\(forwarded ?? "miss")" + (stored ? "; stored" : "")
        case .bypass: ours = "\(cacheName); fwd=bypass"
        }
        guard let upstream = upstream.map(CacheControl.trimmed), !upstream.isEmpty else { return ours }
        return upstream + ", " + ours
    }
}

extension HTTPURLResponse {
    /// What ``HTTPCache`` did for this response, from its `Cache-Status` header; `nil` when no
    /// cache handled it.
    ///
    /// ```swift
    /// if result.httpResponse.cacheOutcome == .offline { showOfflineBanner() }
    /// ```
    public var cacheOutcome: HTTPCache.Outcome? {
        guard let status = value(forHTTPHeaderField: "Cache-Status"),
            let ours = status.split(separator: ",").last(where: {
                CacheControl.trimmed($0).hasPrefix(HTTPCache.cacheName)
            })
        else { return nil }
        let parameters = ours.split(separator: ";").map { CacheControl.trimmed($0) }
        if let detail = parameters.first(where: { $0.hasPrefix("detail=") }),
            let outcome = HTTPCache.Outcome(rawValue: String(detail.dropFirst("detail=".count)))
        {
            return outcome
        }
        if parameters.contains("hit") { return .hit }
        if parameters.contains("fwd=bypass") { return .bypass }
        return parameters.contains(where: { $0.hasPrefix("fwd=") }) ? .miss : nil
    }
}
