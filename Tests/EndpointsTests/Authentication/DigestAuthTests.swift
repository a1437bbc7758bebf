import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// ``DigestAuth``'s parts alone: MD5, the challenge parser, the answer (RFC 7616's own examples)
/// and the state. The exchange with a real server is in `HTTPBinDigestAuthTests`.
@Suite struct DigestAuthTests {
    /// RFC 1321 §A.5's digests, and lengths around the padding's block boundary.
    @Test(arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
        (String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a"),
        (String(repeating: "x", count: 55), "04364420e25c512fd958a70738aa8f72"),
        (String(repeating: "x", count: 56), "668a72d5ba17f08e62dabcafad6db14b"),
        (String(repeating: "x", count: 64), "c1bb4f81d892b2d57947682aeb252456"),
        (String(repeating: "x", count: 1000), "398533d48111e9f664b1f64cb10c4b63"),
    ])
    func md5MatchesRFC1321(message: String, digest: String) {
        #expect(Hex.lowercase(MD5.hash(Array(message.utf8))) == digest)
    }

    @Test func challengesAreSplitWhereATokenIsNotFollowedByEquals() {
        let field =
            #"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple", "#
            + #"Negotiate YIIGhgYJKoZIhvcSAQICAQBuggZ1MIIGcaADAgEFoQMCAQ6i==, "#
            + #"Digest realm = "a, b" ,nonce="n",qop="auth,auth-int""#
        #expect(
            AuthChallenge.parse(field) == [
                AuthChallenge(
                    scheme: "Newauth", parameters: ["realm": "apps", "type": "1", "title": #"Login to "apps""#]),
                AuthChallenge(scheme: "Basic", parameters: ["realm": "simple"]),
                AuthChallenge(scheme: "Negotiate", parameters: [:]),
                AuthChallenge(scheme: "Digest", parameters: ["realm": "a, b", "nonce": "n", "qop": "auth,auth-int"]),
            ])
    }

    @Test(arguments: ["", ",", " , ,", "\"", "=", "Digest", "Digest ,,", "=x, Digest realm=r", "(bad) x=1"])
    func malformedChallengesNeverTrapAndYieldOnlyWhatParses(field: String) {
        let challenges = AuthChallenge.parse(field)
        #expect(challenges.allSatisfy { !$0.scheme.isEmpty })
    }

    /// The server's order is its preference (RFC 7616 §3.7): the first challenge that can be
    /// answered is.
    @Test func theFirstAnswerableChallengeIsChosen() throws {
        let field =
            #"Basic realm="r", Digest realm="r", nonce="a", algorithm=SHA3-256, qop="auth", "#
            + #"Digest realm="r", nonce="b", algorithm=SHA-256, qop="auth", "#
            + #"Digest realm="r", nonce="c", algorithm=MD5, qop="auth""#
        let chosen = try #require(DigestChallenge.first(in: field))
        #expect(chosen.nonce == "b")
        #expect(chosen.algorithm == .sha256)
    }

    @Test(arguments: [
        #"Basic realm="r""#,
        #"Digest nonce="n""#,  // no realm
        #"Digest realm="r""#,  // no nonce
        #"Digest realm="r", nonce="n", algorithm=SHA3-256"#,
        #"Digest realm="r", nonce="n", qop="auth-conf""#,
        "Digest realm=\"r\", nonce=\"n\u{1}\"",
    ])
    func challengesThatCannotBeAnsweredAreIgnored(field: String) {
        #expect(DigestChallenge.first(in: field) == nil)
    }

    /// RFC 7616 §3.9.1: the same request answered with MD5 and with SHA-256.
    @Test(arguments: [
        ("MD5", "8ca523f5e9506fed4657c9700eebdbec"),
        ("SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"),
        // Not in the RFC; computed with Python's hashlib.
        ("SHA-512-256", "430d05014cecc49cab6fbe03176d41a1da86cbfe24a16580e22aaad928d960d0"),
    ])
    func answersRFC7616sExample(algorithm: String, response: String) throws {
        let challenge = try #require(
            DigestChallenge.first(
                in: #"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=\#(algorithm), "#
                    + #"nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", "#
                    + #"opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#))
        let authorization = challenge.authorization(
            username: "Mufasa", password: "Circle of Life",
            for: .init(method: "GET", target: "/dir/index.html", body: []), nonceCount: 1,
            cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ")
        #expect(
            authorization
                == #"Digest username="Mufasa", realm="http-auth@example.org", uri="/dir/index.html", "#
                + #"algorithm=\#(algorithm), nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", nc=00000001, "#
                + #"cnonce="f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", qop=auth, response="\#(response)", "#
                + #"opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#)
    }

    /// RFC 7616 §3.9.2: SHA-512-256 with a hashed, non-ASCII user name. The hashes are those of its
    /// erratum 4897 (and of Python's hashlib): the RFC's own do not follow from its inputs.
    @Test func answersRFC7616sUserhashExample() throws {
        let challenge = try #require(
            DigestChallenge.first(
                in: #"Digest realm="api@example.org", qop="auth", algorithm=SHA-512-256, "#
                    + #"nonce="5TsQWLVdgBdmrQ0XsxbDODV+57QdFR34I9HAbC/RVvkK", "#
                    + #"opaque="HRPCssKJSGjCrkzDg8OhwpzCiGPChXYjwrI2QmXDnsOS", charset=UTF-8, userhash=true"#))
        let authorization = challenge.authorization(
            username: "Jäsøn Doe", password: "Secret, or not?",
            for: .init(method: "GET", target: "/doe.json", body: []), nonceCount: 1,
            cnonce: "NTg6RKcb9boFIAS3KrFK9BGeh+iDa/sm6jUMp2wds69v")
        #expect(
            authorization
                == #"Digest username="793263caabb707a56211940d90411ea4a575adeccb7e360aeb624ed06ece9b0b", "#
                + #"realm="api@example.org", uri="/doe.json", algorithm=SHA-512-256, "#
                + #"nonce="5TsQWLVdgBdmrQ0XsxbDODV+57QdFR34I9HAbC/RVvkK", nc=00000001, "#
                + #"cnonce="NTg6RKcb9boFIAS3KrFK9BGeh+iDa/sm6jUMp2wds69v", qop=auth, "#
                + #"response="3798d4131c277846293534c3edc11bd8a5e4cdcbff78b05db9d95eeb1cec68a5", "#
                + #"opaque="HRPCssKJSGjCrkzDg8OhwpzCiGPChXYjwrI2QmXDnsOS", userhash=true"#)
    }

    /// SHA-512/256 against Python's hashlib, around the 128-byte block's length field.
    @Test(arguments: [
        ("", "c672b8d1ef56ed28ab87c3622c5114069bdd3ad7b8f9737498d0c01ecef0967a"),
        ("abc", "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23"),
        (String(repeating: "x", count: 111), "79a6132b3c9df0f7dfcb5c9c3c663d829a6e7f1c26440afa4eb49cfef669c8ea"),
        (String(repeating: "x", count: 112), "5349e8f46fcc4e650fe93ee6cd1459ff00c27733cc6f86c1925ceef63bece149"),
        (String(repeating: "x", count: 200), "88a392dba7d9b7c883511ffcd41e54709cdb43b20dbb491a8a14beeae391aaa0"),
    ])
    func sha512_256MatchesHashlib(message: String, digest: String) {
        #expect(Hex.lowercase(SHA512.hash512_256(Array(message.utf8))) == digest)
    }

    @Test func anRFC2069ChallengeIsAnsweredWithoutNonceCount() throws {
        let challenge = try #require(DigestChallenge.first(in: #"Digest realm="r", nonce="n""#))
        let authorization = try #require(
            challenge.authorization(
                username: "u", password: "p", for: .init(method: "GET", target: "/", body: nil), nonceCount: 1,
                cnonce: "c"))
        // H(H(u:r:p):n:H(GET:/)), MD5.
        let expected = Hex.lowercase(
            MD5.hash(
                Array(
                    (Hex.lowercase(MD5.hash(Array("u:r:p".utf8))) + ":n:"
                        + Hex.lowercase(MD5.hash(Array("GET:/".utf8)))).utf8)))
        #expect(authorization == #"Digest username="u", realm="r", uri="/", nonce="n", response="\#(expected)""#)
    }

    @Test func authIntSignsTheBodyAndCannotSignAStreamedOne() throws {
        let challenge = try #require(DigestChallenge.first(in: #"Digest realm="r", nonce="n", qop="auth-int""#))
        let sent = try #require(
            challenge.authorization(
                username: "u", password: "p", for: .init(method: "POST", target: "/x", body: Array("hi".utf8)),
                nonceCount: 1, cnonce: "c"))
        #expect(sent.contains("qop=auth-int"))
        let h = { (text: String) in Hex.lowercase(MD5.hash(Array(text.utf8))) }
        let expected = h("\(h("u:r:p")):n:00000001:c:auth-int:\(h("POST:/x:\(h("hi"))"))")
        #expect(sent.contains(#"response="\#(expected)""#))
        #expect(
            challenge.authorization(
                username: "u", password: "p", for: .init(method: "POST", target: "/x", body: nil), nonceCount: 1,
                cnonce: "c") == nil)
    }

    @Test func sessionAlgorithmsHashTheNonceAndClientNonceIntoTheSecret() throws {
        let challenge = try #require(
            DigestChallenge.first(in: #"Digest realm="r", nonce="n", qop=auth, algorithm=SHA-256-sess"#))
        let sent = try #require(
            challenge.authorization(
                username: "u", password: "p", for: .init(method: "GET", target: "/", body: []), nonceCount: 2,
                cnonce: "c"))
        let h = { (text: String) in Hex.lowercase(SHA256.hash(Array(text.utf8))) }
        let expected = h("\(h("\(h("u:r:p")):n:c")):n:00000002:c:auth:\(h("GET:/"))")
        #expect(sent.contains(#"response="\#(expected)""#))
        #expect(sent.contains("algorithm=SHA-256-sess"))
    }

    @Test func userNamesAreQuotedHashedOrEncodedAsTheChallengeAsks() throws {
        let plain = try #require(DigestChallenge.first(in: #"Digest realm="r", nonce="n", qop=auth"#))
        let request = DigestChallenge.Request(method: "GET", target: "/", body: [])
        let quoted = try #require(
            plain.authorization(username: #"a"b\c"#, password: "p", for: request, nonceCount: 1, cnonce: "c"))
        #expect(quoted.hasPrefix(#"Digest username="a\"b\\c", "#))
        let accented = try #require(
            plain.authorization(username: "Jäsøn Doe", password: "p", for: request, nonceCount: 1, cnonce: "c"))
        #expect(accented.hasPrefix("Digest username*=UTF-8''J%C3%A4s%C3%B8n%20Doe, "))
        let hashing = try #require(DigestChallenge.first(in: #"Digest realm="r", nonce="n", qop=auth, userhash=true"#))
        let hashed = try #require(
            hashing.authorization(username: "u", password: "p", for: request, nonceCount: 1, cnonce: "c"))
        #expect(hashed.hasPrefix(#"Digest username="\#(Hex.lowercase(MD5.hash(Array("u:r".utf8))))", "#))
        #expect(hashed.hasSuffix(", userhash=true"))
    }

    // MARK: The state alone

    private let origin = RedirectPolicy.Origin(URL(string: "https://api.example.com/x")!)!

    private func challenge(_ nonce: String, stale: Bool = false) -> DigestChallenge {
        DigestChallenge.first(in: #"Digest realm="r", nonce="\#(nonce)", qop=auth, stale=\#(stale)"#)!
    }

    @Test func eachUseOfANonceCountsOnce() {
        var state = DigestState()
        let beforeAnyChallenge = state.use(origin: origin)
        #expect(beforeAnyChallenge == nil)
        let retried = state.challenged(origin: origin, by: challenge("n1"), sentNonce: nil, cnonce: "c1")
        #expect(retried)
        let counts = (1...3).compactMap { _ in state.use(origin: origin) }
        #expect(counts.map(\.nonceCount) == [1, 2, 3])
        #expect(counts.allSatisfy { $0.cnonce == "c1" })
        let other = RedirectPolicy.Origin(URL(string: "http://api.example.com/x")!)!
        let atAnotherOrigin = state.use(origin: other)
        #expect(atAnotherOrigin == nil)
    }

    @Test func aRefusalOfTheLatestNonceThatIsNotStaleIsNotSentAgain() {
        var state = DigestState()
        _ = state.challenged(origin: origin, by: challenge("n1"), sentNonce: nil, cnonce: "c1")
        // Wrong credentials: the server refused the latest nonce's answer.
        let retried = state.challenged(origin: origin, by: challenge("n2"), sentNonce: "n1", cnonce: "c2")
        #expect(!retried)
        // The server's new nonce is used from now on, counted afresh.
        let next = state.use(origin: origin)
        #expect(next == .init(challenge: challenge("n2"), nonceCount: 1, cnonce: "c2"))
    }

    @Test func aStaleNonceOrAnOlderOneIsAnsweredAgain() {
        var state = DigestState()
        _ = state.challenged(origin: origin, by: challenge("n1"), sentNonce: nil, cnonce: "c1")
        let stale = state.challenged(origin: origin, by: challenge("n2", stale: true), sentNonce: "n1", cnonce: "c2")
        #expect(stale)
        // A request sent with n1 while another already moved to n2.
        let straggler = state.challenged(origin: origin, by: challenge("n3"), sentNonce: "n1", cnonce: "c3")
        #expect(straggler)
    }

    @Test func aNextNonceStartsANewCount() {
        var state = DigestState()
        _ = state.challenged(origin: origin, by: challenge("n1"), sentNonce: nil, cnonce: "c1")
        _ = state.use(origin: origin)
        state.nextNonce("n2", origin: origin, cnonce: "c2")
        let next = state.use(origin: origin)
        #expect(next == .init(challenge: challenge("n2"), nonceCount: 1, cnonce: "c2"))
        // A nextnonce does not start a session at an origin that never challenged.
        let other = RedirectPolicy.Origin(URL(string: "http://other.example.com/")!)!
        state.nextNonce("n9", origin: other, cnonce: "c9")
        let atOther = state.use(origin: other)
        #expect(atOther == nil)
    }

    // MARK: The method

    @Test func beforeAChallengeTheRequestGoesUnchanged() async throws {
        let request = URLRequest(url: URL(string: "https://api.example.com/x")!)
        let sent = try await DigestAuth(username: "u", password: "p").authenticate(request: request)
        #expect(sent.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test(arguments: [("u\n", "p"), ("u", "p\r"), ("u", "p\u{7F}")])
    func controlCharactersAreRefusedBeforeAnythingIsSent(username: String, password: String) async {
        let request = URLRequest(url: URL(string: "https://api.example.com/x")!)
        await #expect(throws: AuthenticationError.self) {
            _ = try await DigestAuth(username: username, password: password).authenticate(request: request)
        }
    }

    @Test func aChallengeIsAnsweredOnTheNextRequestWithItsTarget() async throws {
        let auth = DigestAuth(username: "u", password: "p")
        var request = URLRequest(url: URL(string: "https://api.example.com/a%20b/c?q=1&r=%2F")!)
        let challenge = HTTPURLResponse(
            url: request.url!, statusCode: 401, httpVersion: "HTTP/1.1",
            headerFields: ["WWW-Authenticate": #"Digest realm="r", nonce="n", qop="auth""#])!
        #expect(auth.shouldReauthenticate(for: request, response: challenge))
        request = try await auth.authenticate(request: request)
        let authorization = try #require(request.value(forHTTPHeaderField: "Authorization"))
        #expect(authorization.contains(#"uri="/a%20b/c?q=1&r=%2F""#))
        #expect(authorization.contains("nc=00000001"))
        // Refused again with the same nonce, not stale: the credentials are wrong.
        #expect(!auth.shouldReauthenticate(for: request, response: challenge))
    }

    /// What a transport asks of the method before a request goes out or follows a redirect: a
    /// request whose answer still fits is left alone, one for another URL or an older nonce is
    /// signed again, and one without Digest credentials gets none.
    @Test func aRequestIsSignedAgainOnlyWhenItsAnswerNoLongerFits() async throws {
        let auth = DigestAuth(username: "u", password: "p")
        let first = URLRequest(url: URL(string: "https://api.example.com/a")!)
        let challenge = { (nonce: String) in
            HTTPURLResponse(
                url: first.url!, statusCode: 401, httpVersion: "HTTP/1.1",
                headerFields: ["WWW-Authenticate": #"Digest realm="r", nonce="\#(nonce)", qop="auth", stale=true"#])!
        }
        #expect(auth.shouldReauthenticate(for: first, response: challenge("n1")))
        let signed = try await auth.authenticate(request: first)
        #expect(auth.updatedCredentials(for: signed) == nil)
        var moved = signed
        moved.url = URL(string: "https://api.example.com/b?x=1")
        let resigned = try #require(auth.updatedCredentials(for: moved))
        #expect(resigned.value(forHTTPHeaderField: "Authorization")?.contains(#"uri="/b?x=1""#) == true)
        #expect(resigned.value(forHTTPHeaderField: "Authorization")?.contains("nc=00000002") == true)
        // Another request renewed the nonce while this one waited.
        #expect(auth.shouldReauthenticate(for: signed, response: challenge("n2")))
        let renewed = try #require(auth.updatedCredentials(for: signed))
        #expect(renewed.value(forHTTPHeaderField: "Authorization")?.contains(#"nonce="n2""#) == true)
        #expect(auth.updatedCredentials(for: first) == nil)
    }

    @Test func thePasswordIsNeverShown() {
        let auth = DigestAuth(username: "admin", password: "hunter2")
        for text in [String(describing: auth), String(reflecting: auth), "\(auth)"] {
            #expect(!text.contains("hunter2"))
        }
        var dumped = ""
        dump(auth, to: &dumped)
        #expect(!dumped.contains("hunter2"))
        #expect(String(describing: auth) == #"DigestAuth(username: "admin", password: <redacted>)"#)
    }
}
