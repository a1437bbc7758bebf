import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPCache.Exchange {
    /// A `HEAD` that the stored `GET` response (if any) cannot answer alone: sent as a `HEAD`.
    /// A 200 freshens the stored response when its validators and `Content-Length` agree with
    /// it, and makes it unusable when they do not (RFC 9111 §4.3.5); the answer is then the
    /// updated stored head, which keeps the fields the `HEAD` response did not send. A `HEAD`
    /// response is never stored by itself.
    func head(_ stored: CachedResponse?) async throws -> Answer {
        let sent = cache.now()
        let (body, response) = try await fetch(request)
        let received = cache.now()
        let age = CachedResponse.age(of: response, sent: sent, received: received)
        guard response.statusCode == 200, let stored, stored.status == 200 else {
            return (body, HTTPCache.marked(response, .miss, age: age))
        }
        guard Self.headAgrees(response, with: stored) else {
            cache.store.remove(key: key, varied: stored.varied)
            return (body, HTTPCache.marked(response, .miss, age: age))
        }
        let updated = stored.updated(
            from: response, requestTime: sent.timeIntervalSince1970, responseTime: received.timeIntervalSince1970)
        cache.store.store(updated)
        return answer(
            from: updated, id: CacheStore.id(of: updated), age: updated.age(at: received), outcome: .revalidated,
            forwardStatus: 200)
    }

    /// Whether a `HEAD` response describes `stored`: every validator it sends (`ETag`,
    /// `Last-Modified`) is the stored one, and so is its `Content-Length` when it sends one.
    static func headAgrees(_ response: HTTPURLResponse, with stored: CachedResponse) -> Bool {
        if let etag = response.value(forHTTPHeaderField: "ETag"),
            CacheControl.trimmed(etag) != stored.etag.map(CacheControl.trimmed)
        {
            return false
        }
        if let modified = response.value(forHTTPHeaderField: "Last-Modified"),
            CacheControl.trimmed(modified) != stored.lastModified.map(CacheControl.trimmed)
        {
            return false
        }
        if let length = response.value(forHTTPHeaderField: "Content-Length") {
            return Int(CacheControl.trimmed(length)) == stored.body.count
        }
        return true
    }
}
