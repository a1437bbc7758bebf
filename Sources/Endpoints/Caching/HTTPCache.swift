import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A private HTTP cache (RFC 9111) for the requests of a client, server or endpoint: a
/// middleware you declare, off unless declared.
///
/// ```swift
/// let cache = HTTPCache(storage: .memory(maximumBytes: 20 << 20))
/// let client = EndpointClient(session: .shared, middleware: [cache])
/// let first = try await client.typedResponse(for: Request<Data>.get("https://api.example.com/feed"))
/// let again = try await client.typedResponse(for: Request<Data>.get("https://api.example.com/feed"))
/// print(again.httpResponse.cacheOutcome)  // Optional(.hit) while the first is fresh
/// ```
///
/// It stores `GET` responses the RFC allows a private cache to store, answers from them while
/// they are fresh (`max-age`, `Expires`, `Age`, and the 10% heuristic for a response with
/// `Last-Modified` and no explicit lifetime), and revalidates them with `If-None-Match` /
/// `If-Modified-Since` when stale: a 304 updates the stored headers and the caller gets the
/// stored body as a 200, unless it sent a conditional request itself or accepts 304 (then it
/// sees the 304). It honours `no-store`, `no-cache`, `must-revalidate`, `immutable`, `Vary`,
/// the request's `no-cache`, `max-age`, `min-fresh`, `max-stale` and `only-if-cached` (a 504
/// when nothing usable is stored), `stale-while-revalidate` (the stale response at once, a
/// revalidation in the background) and `stale-if-error`; a successful `POST`, `PUT`, `PATCH`
/// or `DELETE` removes what is stored for its URL and its `Location` and `Content-Location`.
/// A `HEAD` is answered from the stored `GET` response, and its 200 freshens it; a request for
/// one byte range is answered from a stored whole response or a stored part that holds it, and
/// parts with the same strong entity tag are combined. `Vary: Accept-Language` compares the
/// languages, not the text.
///
/// Entries are keyed by the request's credentials (an HMAC of the headers the authentication
/// set, under a random key of the store's, never the secret itself): two users never see each
/// other's responses, and ``removeEntries(storedWith:)`` clears one user's on logout.
///
/// Each response the caller sees says what the cache did in a `Cache-Status` header (RFC 9211),
/// after what the caches upstream said, read back with `HTTPURLResponse.cacheOutcome` (see
/// ``Outcome``); ``LoggingMiddleware`` shows it. A response forwarded from the server carries
/// its `Age` when it is a second or more.
///
/// The session's `URLCache`: requests the cache sends use `.reloadIgnoringLocalCacheData`, so
/// `URLCache` never answers in its place; set the session's `urlCache` to `nil` so that it does
/// not store the responses a second time.
public struct HTTPCache: StreamingMiddleware {
    /// Where the responses are kept.
    public enum Storage: Sendable, Hashable {
        /// In memory, up to `maximumBytes` (heads and bodies), least recently used first out.
        case memory(maximumBytes: Int)
        /// In files in a folder of its own, `Endpoints.HTTPCache`, that the cache makes in
        /// `directory` (itself created if needed), up to `maximumBytes`, least recently used
        /// first out. Nothing else in `directory` is read, changed or removed, and a file cut
        /// short or changed in the folder is a miss and is removed.
        ///
        /// Opening reads no entry; instances (and processes) opened on one directory see each
        /// other's entries and removals. See <doc:Caching#Memory-or-disk>.
        case disk(directory: URL, maximumBytes: Int)
    }

    /// What the cache did for a response: read it with `HTTPURLResponse.cacheOutcome`.
    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        /// Answered from the store, fresh; nothing was sent.
        case hit
        /// The stored response was revalidated: the server answered 304 (or 200 to a `HEAD`, with
        /// the same validators), the stored body was used.
        case revalidated
        /// A stale stored response, allowed by `max-stale`, `stale-while-revalidate` or `stale-if-error`.
        case stale
        /// A stale stored response because the network could not be reached.
        case offline
        /// Sent to the server; its response was stored when it could be.
        case miss
        /// Not for the cache (a method other than `GET` and `HEAD`, `no-store` in the request,
        /// ``DigestAuth`` credentials): sent as it was.
        case bypass
    }

    let store: CacheStore
    let coalescer: RequestCoalescer?
    let servesStaleWhenOffline: Bool
    /// The clock, for tests.
    let now: @Sendable () -> Date

    /// A cache with its own store.
    /// - Parameters:
    ///   - storage: Memory (the default, 10 MiB) or a directory, each with its size limit.
    ///   - coalescing: Whether identical `GET`s in flight at once (same URL and headers,
    ///     credentials included) share one transport call; their bodies are then read whole.
    ///     A caller cancelled while waiting leaves the others their result.
    ///   - servesStaleWhenOffline: Whether a stored response, however stale, answers when the
    ///     network cannot be reached (outcome ``Outcome/offline``), unless it has
    ///     `must-revalidate` or `no-cache`.
    public init(
        storage: Storage = .memory(maximumBytes: 10 << 20),
        coalescing: Bool = false,
        servesStaleWhenOffline: Bool = true
    ) {
        self.init(storage: storage, coalescing: coalescing, servesStaleWhenOffline: servesStaleWhenOffline) {
            Date()
        }
    }

    init(
        storage: Storage, coalescing: Bool, servesStaleWhenOffline: Bool, now: @escaping @Sendable () -> Date
    ) {
        switch storage {
        case .memory(let maximumBytes): store = CacheStore(directory: nil, maximumBytes: maximumBytes)
        case .disk(let directory, let maximumBytes):
            store = CacheStore(directory: directory, maximumBytes: maximumBytes)
        }
        coalescer = coalescing ? RequestCoalescer() : nil
        self.servesStaleWhenOffline = servesStaleWhenOffline
        self.now = now
    }

    /// Removes every stored response (on disk its files, which every instance on the directory
    /// then misses).
    public func removeAll() {
        store.removeAll()
    }

    /// Removes the responses stored for requests that `auth` authenticated: call it on logout,
    /// before the credential is forgotten.
    ///
    /// ```swift
    /// await cache.removeEntries(storedWith: session.auth)
    /// ```
    public func removeEntries(storedWith auth: any AuthenticationMethod) async {
        let blank = URLRequest(url: URL(string: "http://localhost/")!)
        guard let authenticated = try? await auth.authenticate(request: blank) else { return }
        let names =
            auth is NoAuth
            ? RequestContext.standardCredentialHeaders
            : RequestContext.credentialHeaders(setBy: authenticated, on: blank)
        store.removeEntries(credential: store.keying.credentialDigest(of: authenticated, names: names))
    }
}
