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
        guard method == "GET", !requestControl.noStore else {
            let (body, response) = try await next(request)
            return (body, Self.marked(response, .bypass))
        }
        let exchange = Exchange(
            cache: self, request: request, context: context, next: next, mayDetach: mayDetach,
            key: "GET \(url.absoluteString) \(Self.credentialDigest(of: request, names: context.credentialHeaders))",
            control: requestControl)
        return try await exchange.run()
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
        let prefixes = targets.map { "GET \($0.absoluteString) " }
        store.removeAll { response in prefixes.contains { response.key.hasPrefix($0) } }
    }

    /// `response` with a `Cache-Status` header (RFC 9211) saying `outcome`.
    static func marked(_ response: HTTPURLResponse, _ outcome: Outcome, stored: Bool = false) -> HTTPURLResponse {
        var fields = CachedResponse.headers(of: response)
        fields["Cache-Status"] = cacheStatus(outcome, stored: stored)
        return HTTPURLResponse(
            url: response.url ?? URL(string: "about:blank")!, statusCode: response.statusCode,
            httpVersion: "HTTP/1.1", headerFields: fields) ?? response
    }

    /// The `Cache-Status` value for `outcome`.
    static func cacheStatus(_ outcome: Outcome, stored: Bool = false) -> String {
        switch outcome {
        case .hit: return "Endpoints; hit"
        case .stale: return "Endpoints; hit; detail=stale"
        case .offline: return "Endpoints; hit; detail=offline"
        case .revalidated: return "Endpoints; fwd=stale; fwd-status=304; detail=revalidated"
        case .miss: return "Endpoints; fwd=miss" + (stored ? "; stored" : "")
        case .bypass: return "Endpoints; fwd=bypass"
        }
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
                CacheControl.trimmed($0).hasPrefix("Endpoints")
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
