/// The mutable state of one ``DigestAuth``, changed only inside its lock: the challenge each
/// origin answered last, and how many times its nonce was used.
struct DigestState: Equatable {
    /// One origin's challenge and the client's side of it.
    struct Session: Equatable {
        var challenge: DigestChallenge
        /// The uses of the nonce so far; the next request sends one more (`nc`).
        var nonceCount: UInt32 = 0
        /// The client nonce of every request under this nonce (and so of a `-sess` secret).
        var cnonce: String
    }

    /// By origin (scheme, host and port).
    private(set) var sessions: [RedirectPolicy.Origin: Session] = [:]

    /// The challenge to answer for a request to `origin`, with its nonce count already counted;
    /// `nil` before the origin challenged (the request goes without, and its 401 brings one).
    mutating func use(origin: RedirectPolicy.Origin) -> Session? {
        guard var session = sessions[origin] else { return nil }
        session.nonceCount &+= 1
        sessions[origin] = session
        return session
    }

    /// `origin` answered a request with `challenge` (a 401). Returns whether to send the request
    /// again: when it went without Digest credentials (`sentNonce` is `nil`), when its nonce is
    /// stale, or when it used a nonce other than the origin's latest. Sent with the latest nonce
    /// and not stale, the credentials themselves were refused, and the 401 is the answer.
    ///
    /// The challenge replaces the origin's either way: the server's latest nonce is the one to use.
    mutating func challenged(
        origin: RedirectPolicy.Origin, by challenge: DigestChallenge, sentNonce: String?, cnonce: String
    ) -> Bool {
        let latest = sessions[origin]?.challenge.nonce
        sessions[origin] = Session(challenge: challenge, cnonce: cnonce)
        return sentNonce == nil || challenge.stale || sentNonce != latest
    }

    /// `origin` named the nonce to use next (`Authentication-Info: nextnonce=…`, RFC 7616 §3.5).
    mutating func nextNonce(_ nonce: String, origin: RedirectPolicy.Origin, cnonce: String) {
        guard let session = sessions[origin], session.challenge.nonce != nonce else { return }
        sessions[origin] = Session(challenge: session.challenge.with(nonce: nonce), cnonce: cnonce)
    }
}
