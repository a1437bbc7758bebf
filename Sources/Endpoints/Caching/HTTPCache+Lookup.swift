import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPCache {
    /// One `GET` through the cache: look up, answer, revalidate or fetch, and store.
    struct Exchange: Sendable {
        let cache: HTTPCache
        let request: URLRequest
        let context: RequestContext
        let next: Next
        /// Whether `next` may be called after the lookup returns (background revalidation, a
        /// coalesced call that outlives its first caller).
        let mayDetach: Bool
        /// Method, URL and credential digest.
        let key: String
        /// The request's `Cache-Control`.
        let control: CacheControl
        /// Whether the request is a `HEAD`, answered from (and freshening) the stored `GET`.
        var isHead = false

        typealias Answer = (ResponseBody, HTTPURLResponse)

        /// The conditional headers a caller may send itself.
        static let conditionalHeaders = [
            "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range",
        ]

        var callerIsConditional: Bool {
            Self.conditionalHeaders.contains { request.value(forHTTPHeaderField: $0) != nil }
        }

        func run() async throws -> Answer {
            let entries = cache.store.entries(for: key)
            let matching = entries.filter {
                $0.response.matches(request, credentialHeaders: context.credentialHeaders, keying: cache.store.keying)
            }
            if !isHead, request.value(forHTTPHeaderField: "Range") != nil {
                // One the store cannot answer (several ranges, another unit, `If-Range`) goes as it is.
                guard let range = requestedRange else { return try await fetchAndStore(request, outcome: .miss) }
                return try await answerRange(range, from: matching)
            }
            // A part answers only range requests; a whole response is asked for when none is whole.
            guard let (id, stored) = matching.first(where: { $0.response.status != 206 }) else {
                if control.onlyIfCached { return gatewayTimeout() }
                if isHead { return try await head(nil) }
                if let part = matching.first?.response, let answer = try await complete(part) { return answer }
                let tagged = entries.map(\.response).filter { $0.etag != nil && $0.status == 200 }
                if !tagged.isEmpty, !callerIsConditional { return try await validateVariants(tagged) }
                return try await fetchAndStore(request, outcome: .miss)
            }
            let now = cache.now()
            let storedControl = stored.cacheControl
            let age = stored.age(at: now)
            let lifetime = stored.freshnessLifetime(control: storedControl)
            if let outcome = usableWithoutValidation(stored, age: age, lifetime: lifetime) {
                return answer(from: stored, id: id, age: age, outcome: outcome)
            }
            if control.onlyIfCached { return gatewayTimeout() }
            if isHead { return try await head(stored) }
            let staleness = age - lifetime
            let mayServeStale = !storedControl.mustRevalidate && !storedControl.noCache
            if mayDetach, mayServeStale, !control.noCache, lifetime > 0 || stored.hasExplicitLifetime,
                let window = storedControl.staleWhileRevalidate, staleness >= 0, staleness < window
            {
                let revalidation = self
                Task {
                    // Read the new body through, so that a streamed one is stored too.
                    if let (body, _) = try? await revalidation.revalidate(stored, age: age) {
                        _ = try? await body.collect(upTo: revalidation.cache.store.maximumBytes)
                    }
                }
                return answer(from: stored, id: id, age: age, outcome: .stale)
            }
            return try await revalidate(stored, age: age)
        }

        /// How `stored`, at `age`, answers without asking the server: ``Outcome/hit`` while fresh,
        /// ``Outcome/stale`` within the request's `max-stale`; `nil` when it must be validated.
        func usableWithoutValidation(_ stored: CachedResponse, age: TimeInterval, lifetime: TimeInterval) -> Outcome? {
            let storedControl = stored.cacheControl
            guard !control.noCache, !storedControl.noCache, acceptable(age: age, lifetime: lifetime) else { return nil }
            let staleness = age - lifetime
            if staleness < 0 { return .hit }
            let mayServeStale = !storedControl.mustRevalidate
            if mayServeStale, let maxStale = control.maxStale, staleness <= maxStale { return .stale }
            return nil
        }

        /// No stored variant matches the request's `Vary` fields: asks with the other variants'
        /// entity tags (RFC 9111 §4.3.1); a 304 naming one of them stores it for this request too.
        func validateVariants(_ variants: [CachedResponse]) async throws -> Answer {
            var conditional = request
            conditional.setValue(
                variants.compactMap(\.etag).joined(separator: ", "), forHTTPHeaderField: "If-None-Match")
            let sent = cache.now()
            let (body, response) = try await fetch(conditional)
            guard response.statusCode == 304 else { return store(body, response, sent: sent, outcome: .miss) }
            guard let tag = response.value(forHTTPHeaderField: "ETag"),
                var chosen = variants.first(where: { $0.etag.map(Self.weakTag) == Self.weakTag(tag) })
            else { return try await fetchAndStore(request, outcome: .miss) }
            chosen = chosen.updated(
                from: response, requestTime: sent.timeIntervalSince1970,
                responseTime: cache.now().timeIntervalSince1970)
            var varied: [String: String?] = [:]
            for name in CachedResponse.varyNames(chosen.header("Vary")) ?? [] {
                varied[name] = CachedResponse.variedValue(
                    name, of: request, credentialHeaders: context.credentialHeaders, keying: cache.store.keying)
            }
            chosen.varied = varied
            cache.store.store(chosen)
            if context.acceptsNotModified { return (body, HTTPCache.marked(response, .revalidated)) }
            return answer(
                from: chosen, id: CacheStore.id(of: chosen), age: chosen.age(at: cache.now()), outcome: .revalidated)
        }

        /// Whether a stored response of `age` suits the request's `max-age` and `min-fresh`.
        func acceptable(age: TimeInterval, lifetime: TimeInterval) -> Bool {
            if let maxAge = control.maxAge, maxAge == 0 || age > maxAge { return false }
            if let minFresh = control.minFresh, lifetime - age < minFresh { return false }
            return true
        }

        /// Sends the request with the stored validators (unless the caller sent its own) and
        /// answers from a 304, from the stored response on an error `stale-if-error` allows, or
        /// with the new response.
        func revalidate(_ stored: CachedResponse, age: TimeInterval) async throws -> Answer {
            var conditional = request
            let ownValidators = callerIsConditional
            if !ownValidators {
                if let etag = stored.etag { conditional.setValue(etag, forHTTPHeaderField: "If-None-Match") }
                if let modified = stored.lastModified {
                    conditional.setValue(modified, forHTTPHeaderField: "If-Modified-Since")
                }
            }
            let storedControl = stored.cacheControl
            let staleness = age - stored.freshnessLifetime
            let mayServeStale = !storedControl.mustRevalidate && !storedControl.noCache
            let staleIfError = storedControl.staleIfError ?? control.staleIfError
            let errorAllowsStale = mayServeStale && staleIfError.map { staleness <= $0 } == true
            let sent = cache.now()
            let body: ResponseBody
            let response: HTTPURLResponse
            do {
                (body, response) = try await fetch(conditional)
            } catch {
                if Task.isCancelled || error is CancellationError { throw error }
                if cache.servesStaleWhenOffline, mayServeStale, Self.isUnreachable(error) {
                    return answer(from: stored, id: CacheStore.id(of: stored), age: age, outcome: .offline)
                }
                if errorAllowsStale {
                    return answer(from: stored, id: CacheStore.id(of: stored), age: age, outcome: .stale)
                }
                throw error
            }
            if response.statusCode == 304 {
                guard Self.validatorsMatch(stored, response) else {
                    if ownValidators { return (body, HTTPCache.marked(response, .miss)) }
                    // Another representation than the stored one: ask again, unconditionally.
                    return try await fetchAndStore(request, outcome: .miss)
                }
                let updated = stored.updated(
                    from: response, requestTime: sent.timeIntervalSince1970,
                    responseTime: cache.now().timeIntervalSince1970)
                cache.store.store(updated)
                if ownValidators || context.acceptsNotModified {
                    return (body, HTTPCache.marked(response, .revalidated))
                }
                return answer(
                    from: updated, id: CacheStore.id(of: updated), age: updated.age(at: cache.now()),
                    outcome: .revalidated)
            }
            if [500, 502, 503, 504].contains(response.statusCode), errorAllowsStale {
                body.cancel()
                return answer(from: stored, id: CacheStore.id(of: stored), age: age, outcome: .stale)
            }
            return store(body, response, sent: sent, outcome: .miss)
        }

        /// Whether a 304's validators are those of `stored` (RFC 9111 §4.3.4): the same entity
        /// tag when it sends one, else the same `Last-Modified` when it sends one.
        static func validatorsMatch(_ stored: CachedResponse, _ response: HTTPURLResponse) -> Bool {
            if let etag = response.value(forHTTPHeaderField: "ETag") {
                guard let storedTag = stored.etag else { return false }
                return weakTag(etag) == weakTag(storedTag)
            }
            if let modified = response.value(forHTTPHeaderField: "Last-Modified"),
                let storedModified = stored.lastModified
            {
                return modified == storedModified
            }
            return true
        }

        static func weakTag(_ tag: String) -> String {
            let trimmed = CacheControl.trimmed(tag)
            return trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed
        }

        /// Whether `error` says the network or the server could not be reached.
        static func isUnreachable(_ error: any Error) -> Bool {
            guard let error = error as? URLError else { return false }
            let codes: [URLError.Code] = [
                .notConnectedToInternet, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed,
                .networkConnectionLost, .timedOut, .internationalRoamingOff, .dataNotAllowed,
            ]
            return codes.contains(error.code)
        }

        /// Sends `request` and stores what may be stored.
        func fetchAndStore(_ request: URLRequest, outcome: Outcome) async throws -> Answer {
            let sent = cache.now()
            let (body, response) = try await fetch(request)
            return store(body, response, sent: sent, outcome: outcome)
        }

        /// Sends `request`, through the coalescer when there is one.
        func fetch(_ request: URLRequest) async throws -> Answer {
            let request = HTTPCache.uncached(request)
            guard mayDetach, let coalescer = cache.coalescer else { return try await next(request) }
            let headers = (request.allHTTPHeaderFields ?? [:]).map { "\($0.key.lowercased()):\($0.value)" }.sorted()
            let flightKey = ([key, request.url?.absoluteString ?? ""] + headers).joined(separator: "\n")
            let next = self.next
            let (data, response) = try await coalescer.run(flightKey) {
                let (body, response) = try await next(request)
                return (try await body.collect(), response)
            }
            return (ResponseBody(data), response)
        }

        /// Keeps `response` when the RFC allows (now when its body is in memory, else once the
        /// caller has read it whole; a part is combined with the part stored, see
        /// ``CachedResponse/combined(with:)``) and returns it marked, with its `Age` when it has
        /// one (RFC 9111 §4.2.3: what upstream said, plus the time it took to arrive).
        func store(_ body: ResponseBody, _ response: HTTPURLResponse, sent: Date, outcome: Outcome) -> Answer {
            let received = cache.now()
            var headers = CachedResponse.headers(of: response)
            // Not stored: the fields `Connection` lists and those a qualified `no-cache` names
            // (RFC 9111 §3.1, §5.2.2.4).
            let omitted = Set(
                (CachedResponse.header("Connection", in: headers) ?? "").split(separator: ",")
                    .map { CacheControl.trimmed($0).lowercased() }
                    + CacheControl(CachedResponse.header("Cache-Control", in: headers)).noCacheFields)
            if !omitted.isEmpty { headers = headers.filter { !omitted.contains($0.key.lowercased()) } }
            var candidate = CachedResponse(
                key: key, credential: CachedResponse.split(key).credential,
                url: response.url?.absoluteString ?? request.url?.absoluteString ?? "", status: response.statusCode,
                headers: headers, varied: [:], requestTime: sent.timeIntervalSince1970,
                responseTime: received.timeIntervalSince1970, body: Data())
            let age = candidate.age(at: received)
            guard let varyNames = CachedResponse.varyNames(CachedResponse.header("Vary", in: headers)) else {
                return (body, HTTPCache.marked(response, outcome, age: age))
            }
            for name in varyNames {
                candidate.varied[name] = CachedResponse.variedValue(
                    name, of: request, credentialHeaders: context.credentialHeaders, keying: cache.store.keying)
            }
            guard !isHead, Self.mayStore(candidate) else {
                if !isHead, ![206, 304].contains(response.statusCode), !(500...599).contains(response.statusCode) {
                    cache.store.remove(key: key, varied: candidate.varied)
                }
                return (body, HTTPCache.marked(response, outcome, age: age))
            }
            let store = cache.store
            let head = candidate
            let expected = head.header("Content-Length").flatMap { Int(CacheControl.trimmed($0)) }
            let keep: @Sendable (Data) -> Void = { data in
                // A body whose length disagrees with its Content-Length was cut short: not stored.
                if let expected, expected != data.count { return }
                var complete = head
                complete.body = data
                guard complete.status == 206 else {
                    store.store(complete)
                    return
                }
                let stored = store.entries(for: complete.key).first { $0.response.varied == complete.varied }
                if let combined = complete.combined(with: stored?.response) { store.store(combined) }
            }
            if let data = body.bufferedData {
                keep(data)
                return (body, HTTPCache.marked(response, outcome, stored: true, age: age))
            }
            let limit = store.maximumBytes
            let collected = Locked<Data?>(Data())
            let observed = body.observing { chunk in
                guard let chunk else {
                    if let data = collected.withLock({ $0 }) { keep(data) }
                    return
                }
                collected.withLock { data in
                    data?.append(chunk)
                    if (data?.count ?? 0) > limit { data = nil }
                }
            }
            return (observed, HTTPCache.marked(response, outcome, stored: true, age: age))
        }

        /// Whether a private cache may store `response` (RFC 9111 §3): a final status other than
        /// 304 (a 206 only with one `Content-Range` in bytes it can read, §3.3), no `no-store`,
        /// no `Vary: *`, and an explicit lifetime, `public` or `private`, or a heuristically
        /// cacheable status; and something to reuse it with (a lifetime or a validator).
        static func mayStore(_ response: CachedResponse) -> Bool {
            guard response.status >= 200, response.status != 304 else { return false }
            guard response.status != 206 || response.contentRange != nil else { return false }
            let control = response.cacheControl
            guard !control.noStore else { return false }
            let explicit = response.hasExplicitLifetime || control.isPublic || control.isPrivate
            guard explicit || CachedResponse.heuristicallyCacheable.contains(response.status) else { return false }
            return response.freshnessLifetime > 0 || response.etag != nil || response.lastModified != nil
                || control.staleWhileRevalidate != nil || control.staleIfError != nil
        }

        /// The stored response as the caller sees it: `Age` and `Cache-Status` added (after the
        /// upstream `Cache-Status` it was stored with); a 304 when the caller's own conditions
        /// match it; no body for a `HEAD`.
        func answer(
            from stored: CachedResponse, id: String, age: TimeInterval, outcome: Outcome, forwardStatus: Int = 304
        ) -> Answer {
            let seconds = String(Int(max(0, age).rounded(.down)))
            let status = HTTPCache.cacheStatus(
                outcome, forwardStatus: forwardStatus, after: stored.header("Cache-Status"))
            let extra = ["Age": seconds, "Cache-Status": status]
            if callerIsConditional, Self.notModified(request, stored) {
                return (ResponseBody(Data()), stored.httpResponse(status: 304, extra: extra))
            }
            let label = "\(seconds) \(status) \(stored.responseTime)"
            let response = cache.store.show(id, label: label) { stored.httpResponse(extra: extra) }
            return (ResponseBody(isHead ? Data() : stored.body), response)
        }

        /// Whether the request's `If-None-Match` (or, without one, `If-Modified-Since`) matches
        /// `stored` (RFC 9110 §13.1).
        static func notModified(_ request: URLRequest, _ stored: CachedResponse) -> Bool {
            guard stored.status == 200 else { return false }
            if let match = request.value(forHTTPHeaderField: "If-None-Match") {
                guard let etag = stored.etag else { return false }
                let tags = match.split(separator: ",").map { CacheControl.trimmed($0) }
                return tags.contains("*") || tags.contains { weakTag($0) == weakTag(etag) }
            }
            if let since = request.value(forHTTPHeaderField: "If-Modified-Since").flatMap({
                CachedResponse.httpDate($0)
            }),
                let modified = stored.lastModified.flatMap({ CachedResponse.httpDate($0) })
            {
                return modified <= since
            }
            return false
        }

        /// The answer to `only-if-cached` when nothing usable is stored (RFC 9111 §5.2.1.7).
        func gatewayTimeout() -> Answer {
            let response = HTTPURLResponse(
                url: request.url ?? URL(string: "about:blank")!, statusCode: 504, httpVersion: "HTTP/1.1",
                headerFields: [
                    "Content-Length": "0", "Cache-Status": "\(HTTPCache.cacheName); fwd=miss; detail=only-if-cached",
                ])!
            return (ResponseBody(Data()), response)
        }
    }
}
