import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Range requests and partial content (RFC 9110 §14, RFC 9111 §3.3–3.4): a stored whole response
// answers any one byte range of it; a stored part answers the ranges inside it; parts of the same
// representation (the same strong entity tag) are combined, up to the whole.

extension HTTPCache.Exchange {
    /// The caller's one byte range, when the cache can answer it: a `GET` with `Range` and no
    /// `If-Range` (that one is the server's to judge).
    var requestedRange: ByteRangeSpec? {
        guard request.value(forHTTPHeaderField: "If-Range") == nil else { return nil }
        return request.value(forHTTPHeaderField: "Range").flatMap(ByteRangeSpec.init)
    }

    /// Answers `range` from a stored response that holds it and needs no validation, else sends
    /// the request as it is (its 206 is stored and combined, its 200 stored whole).
    func answerRange(_ range: ByteRangeSpec, from matching: [(id: String, response: CachedResponse)])
        async throws -> Answer
    {
        let now = cache.now()
        for (id, stored) in matching {
            let age = stored.age(at: now)
            guard let bytes = stored.bytes(for: range),
                let outcome = usableWithoutValidation(stored, age: age, lifetime: stored.freshnessLifetime)
            else { continue }
            return rangeAnswer(from: stored, id: id, bytes: bytes, age: age, outcome: outcome)
        }
        if control.onlyIfCached { return gatewayTimeout() }
        return try await fetchAndStore(request, outcome: .miss)
    }

    /// `bytes` of `stored` as a 206, with its `Content-Range` and `Content-Length`.
    func rangeAnswer(
        from stored: CachedResponse, id: String, bytes: ClosedRange<Int>, age: TimeInterval, outcome: HTTPCache.Outcome
    )
        -> Answer
    {
        let start = stored.contentRange?.range.lowerBound ?? 0
        let total = stored.status == 206 ? stored.contentRange?.completeLength : stored.body.count
        let slice = stored.body.subdata(in: (bytes.lowerBound - start)..<(bytes.upperBound - start + 1))
        cache.store.touch(id)
        let response = stored.httpResponse(
            status: 206,
            extra: [
                "Age": String(Int(max(0, age).rounded(.down))),
                "Cache-Status": HTTPCache.cacheStatus(outcome, after: stored.header("Cache-Status")),
                "Content-Range": ContentRange(range: bytes, completeLength: total).headerValue,
                "Content-Length": String(slice.count),
            ])
        return (ResponseBody(slice), response)
    }

    /// A whole response is asked for and only a part is stored: when the part has a strong
    /// entity tag and lacks bytes at one end only, asks for those (`Range` with `If-Range`) and
    /// answers with the combined whole, stored; `nil` when that cannot be done (no strong tag,
    /// bytes missing at both ends, another answer), and the whole is then asked for as usual.
    func complete(_ part: CachedResponse) async throws -> Answer? {
        guard !callerIsConditional, let tag = part.strongETag, let held = part.contentRange,
            let total = held.completeLength
        else { return nil }
        let missing: String
        if held.range.lowerBound == 0 {
            missing = "bytes=\(held.range.upperBound + 1)-"
        } else if held.range.upperBound == total - 1 {
            missing = "bytes=0-\(held.range.lowerBound - 1)"
        } else {
            return nil
        }
        var ranged = request
        ranged.setValue(missing, forHTTPHeaderField: "Range")
        ranged.setValue(tag, forHTTPHeaderField: "If-Range")
        let sent = cache.now()
        let (body, response) = try await fetch(ranged)
        guard response.statusCode == 206 else {
            if response.statusCode == 200 { return store(body, response, sent: sent, outcome: .miss) }
            body.cancel()
            return nil
        }
        let data = try await body.collect(upTo: max(0, cache.store.maximumBytes))
        let received = cache.now()
        let rest = CachedResponse(
            key: key, credential: part.credential, url: part.url, status: 206,
            headers: CachedResponse.headers(of: response), varied: part.varied,
            requestTime: sent.timeIntervalSince1970, responseTime: received.timeIntervalSince1970, body: data)
        guard let whole = rest.combined(with: part), whole.status == 200 else { return nil }
        let stored = Self.mayStore(whole)
        if stored { cache.store.store(whole) }
        let shown = HTTPCache.marked(
            whole.httpResponse(extra: [:]), .miss, stored: stored, forwarded: "partial",
            age: CachedResponse.age(of: response, sent: sent, received: received))
        return (ResponseBody(whole.body), shown)
    }
}

extension CachedResponse {
    /// The `Content-Range` of a stored 206.
    var contentRange: ContentRange? {
        guard status == 206 else { return nil }
        return header("Content-Range").flatMap(ContentRange.init)
    }

    /// The entity tag when it is strong (RFC 9110 §8.8.3): what parts must share to be combined.
    var strongETag: String? {
        guard let tag = etag.map(CacheControl.trimmed), tag.hasPrefix("\""), tag.count >= 2 else { return nil }
        return tag
    }

    /// The bytes `range` asks for, when this response holds them all: a whole 200 any range of
    /// it, a part those inside it.
    func bytes(for range: ByteRangeSpec) -> ClosedRange<Int>? {
        if status == 200 { return range.resolved(length: body.count) }
        guard let held = contentRange, held.range.count == body.count else { return nil }
        let wanted: ClosedRange<Int>?
        if let total = held.completeLength {
            wanted = range.resolved(length: total)
        } else if let first = range.first, let last = range.last {
            wanted = first...last
        } else {
            wanted = nil
        }
        guard let wanted, held.range.contains(wanted.lowerBound), held.range.contains(wanted.upperBound) else {
            return nil
        }
        return wanted
    }

    /// This 206 combined with `stored` (RFC 9111 §3.4, RFC 9110 §15.3.7.3): what to store, or
    /// `nil` for nothing (its body is not its `Content-Range`, or a stored whole response stays).
    ///
    /// With the same strong entity tag, a stored whole response is kept, its fields updated from
    /// this one, and a stored part of the same length that overlaps or adjoins this one is joined
    /// with it. A stored whole response is replaced only by a part with another strong tag (a new
    /// representation); otherwise this part alone replaces what was stored. A part that is the
    /// whole becomes a 200.
    func combined(with stored: CachedResponse?) -> CachedResponse? {
        guard let part = contentRange, part.range.count == body.count else { return nil }
        let sameRepresentation = strongETag != nil && strongETag == stored?.strongETag
        if let stored, stored.status == 200 {
            if sameRepresentation {
                return stored.updated(with: headers, requestTime: requestTime, responseTime: responseTime)
            }
            guard strongETag != nil, stored.strongETag != nil else { return nil }
        }
        var joined = self
        if let stored, sameRepresentation, let held = stored.contentRange, held.range.count == stored.body.count,
            held.completeLength != nil, held.completeLength == part.completeLength,
            part.range.lowerBound <= held.range.upperBound + 1, held.range.lowerBound <= part.range.upperBound + 1
        {
            let range =
                min(held.range.lowerBound, part.range.lowerBound)...max(held.range.upperBound, part.range.upperBound)
            var bytes = Data(count: range.count)
            bytes.replaceSubrange(
                (held.range.lowerBound - range.lowerBound)..<(held.range.upperBound - range.lowerBound + 1),
                with: stored.body)
            bytes.replaceSubrange(
                (part.range.lowerBound - range.lowerBound)..<(part.range.upperBound - range.lowerBound + 1), with: body)
            joined = stored.updated(with: headers, requestTime: requestTime, responseTime: responseTime)
            joined.body = bytes
            joined.set("Content-Range", ContentRange(range: range, completeLength: part.completeLength).headerValue)
            joined.set("Content-Length", String(bytes.count))
        }
        guard let whole = joined.contentRange, whole.range.lowerBound == 0,
            whole.completeLength == whole.range.count
        else { return joined }
        joined.status = 200
        joined.set("Content-Range", nil)
        joined.set("Content-Length", String(joined.body.count))
        return joined
    }

    /// Sets header `name` (any case) to `value`, or removes it.
    mutating func set(_ name: String, _ value: String?) {
        for existing in headers.keys where existing.lowercased() == name.lowercased() { headers[existing] = nil }
        if let value { headers[name] = value }
    }
}
