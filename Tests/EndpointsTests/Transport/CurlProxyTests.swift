#if canImport(FoundationNetworking)
    import EndpointsTestServer
    import Foundation
    import Testing

    @testable import Endpoints

    /// ``CurlTransport/Proxy``'s checks and what it shows, without a proxy (ApacheProxyTests
    /// sends through real ones).
    struct CurlProxySettingsTests {
        private static func proxy(
            _ url: String, username: String? = nil, password: String? = nil, bypassing: [String] = []
        ) throws(CurlTransport.Proxy.Invalid) -> CurlTransport.Proxy {
            try CurlTransport.Proxy(URL(string: url)!, username: username, password: password, bypassing: bypassing)
        }

        @Test func aProxyIsNamedByHostAndPort() throws {
            #expect(try Self.proxy("http://proxy.internal:3128").curlProxy == "http://proxy.internal:3128")
            #expect(try Self.proxy("http://proxy.internal/").curlProxy == "http://proxy.internal:80")
            #expect(try Self.proxy("HTTP://[::1]:8080").curlProxy == "http://[::1]:8080")
            #expect(CurlTransport.Proxy.direct.curlProxy == "")
            #expect(CurlTransport.Proxy.environment.curlProxy == nil)
        }

        @Test func credentialsInTheURLAreTakenAsArguments() throws {
            let proxy = try Self.proxy("http://svc%40corp%2541:p%3Ass%2541@proxy:3128")
            // Each decoded once: `%2541` is `%41`, not `A`.
            #expect(proxy.username == "svc@corp%41")
            #expect(proxy.password?.value == "p:ss%41")
            #expect(proxy == (try Self.proxy("http://proxy:3128", username: "svc@corp%41", password: "p:ss%41")))
            #expect(try Self.proxy("http://user@proxy:3128").password?.value == "")
        }

        @Test(
            arguments: [
                ("https://proxy:3128", nil, nil, []),
                ("socks5://proxy:1080", nil, nil, []),
                ("http://proxy:3128/path", nil, nil, []),
                ("http://proxy:3128?q=1", nil, nil, []),
                ("http://user:pass@proxy:3128", "user", "pass", []),
                ("http://proxy:3128", "user", nil, []),
                ("http://proxy:3128", nil, "pass", []),
                ("http://proxy:3128", "us:er", "pass", []),
                ("http://proxy:3128", "", "pass", []),
                ("http://proxy:3128", "user", "pa\r\nss", []),
                ("http://proxy:3128", "us\ner", "pass", []),
                ("http://proxy:3128", nil, nil, [""]),
                ("http://proxy:3128", nil, nil, ["a.com,b.com"]),
                ("http://proxy:3128", nil, nil, ["a.com b.com"]),
                ("http://proxy:3128", nil, nil, ["a.com\r\n"]),
            ] as [(String, String?, String?, [String])])
        func whatCannotBeUsedIsRefusedWhenMade(url: String, username: String?, password: String?, bypassing: [String]) {
            #expect(throws: CurlTransport.Proxy.Invalid.self) {
                try Self.proxy(url, username: username, password: password, bypassing: bypassing)
            }
        }

        /// A 407 is the proxy's only for an `http` URL it carries: not through a tunnel, not
        /// straight to a bypassed host (curl's reading of `no_proxy`), not without a proxy.
        @Test func aProxyCarriesHttpRequestsToTheHostsItDoesNotBypass() throws {
            let proxy = try Self.proxy(
                "http://proxy:3128", bypassing: ["Example.com", ".internal", "10.0.0.0/8", "::1"])
            let carried = { (url: String) in proxy.carries(URL(string: url)!) }
            #expect(carried("http://api.example.net/x"))
            #expect(carried("http://notexample.com/"))
            #expect(carried("http://db.cluster.local/"))
            #expect(!carried("https://api.example.net/x"))
            #expect(!carried("http://example.com/"))
            #expect(!carried("http://API.EXAMPLE.COM/"))
            #expect(!carried("http://svc.internal/"))
            #expect(!carried("http://internal/"))
            #expect(!carried("http://10.1.2.3/"))
            #expect(!carried("http://[::1]:8080/"))
            #expect(!(try Self.proxy("http://proxy:3128", bypassing: ["*"]).carries(URL(string: "http://a.b/")!)))
            #expect(!CurlTransport.Proxy.environment.carries(URL(string: "http://a.b/")!))
            #expect(!CurlTransport.Proxy.direct.carries(URL(string: "http://a.b/")!))
        }

        /// A server reached straight that answers 407 with a Digest challenge is not the proxy:
        /// its 407 is the answer, the request is not sent again, and the transport still answers
        /// its proxy with Basic.
        @Test func aServersOwn407TeachesNothingAboutTheProxy() async throws {
            let server = try TestServer()
            defer { server.stop() }
            server.route("/407") { _ in
                TestServer.Response(
                    status: 407, headers: [("Proxy-Authenticate", #"Digest realm="x", nonce="n", qop="auth""#)])
            }
            let proxy = try Self.proxy(
                "http://127.0.0.1:9", username: "user", password: "pass", bypassing: ["127.0.0.1"])
            let transport = try CurlTransport(proxy: proxy)
            let result = await EndpointClient(transport: transport).send(RawRouteEndpoint("407"), to: server.baseURL)
            #expect(result.failure()?.statusCode == 407)
            #expect(server.requestCount == 1)
            #expect(transport.engine.proxyScheme == .basic)
        }

        /// A proxy that refuses everything, asking for Digest, and closes each connection: the
        /// request goes three times at most (Basic; then without credentials for the nonce, and
        /// answered), and the refusal reaches the caller: a 407 for `http`,
        /// `.userAuthenticationRequired` for a tunnel. A tunnel's Digest answer goes only on the
        /// connection of the proxy's 407 (libcurl's way), which this proxy closed: two CONNECTs,
        /// and the error says it was a 407, not a lost connection (which would be retried).
        @Test func aProxyThatRefusesEverythingIsAskedThreeTimesAtMost() async throws {
            let refusal =
                "HTTP/1.1 407 Proxy Authentication Required\r\n"
                + #"Proxy-Authenticate: Digest realm="p", nonce="n1", qop="auth""# + "\r\nContent-Length: 0\r\n\r\n"
            for tunnel in [false, true] {
                let proxy = try RawServer(reply: refusal)
                defer { proxy.stop() }
                let transport = try CurlTransport(
                    proxy: Self.proxy(proxy.url.absoluteString, username: "u", password: "p"))
                let request = Request<Data>.get(tunnel ? "https://example.invalid/x" : "http://example.invalid/x")
                do throws(EndpointTaskError<EmptyCodable>) {
                    _ = try await EndpointClient(transport: transport).response(for: request)
                    Issue.record("the proxy's refusal was taken for an answer")
                } catch {
                    #expect(
                        tunnel ? error.urlErrorCode == .userAuthenticationRequired : error.statusCode == 407, "\(error)"
                    )
                }
                let heads = proxy.heads.value
                #expect(heads.count == (tunnel ? 2 : 3), "\(heads)")
                #expect(heads.first?.contains("Proxy-Authorization: Basic ") == true)
                #expect(heads.dropFirst().first?.contains("Proxy-Authorization") == false)
                if !tunnel { #expect(heads.last?.contains("Proxy-Authorization: Digest ") == true) }
                #expect(
                    heads.allSatisfy {
                        $0.hasPrefix(tunnel ? "CONNECT example.invalid:443 " : "GET http://example.invalid/x ")
                    })
            }
        }

        /// A 407 that names no scheme (or only NTLM) teaches nothing: the answer at once, one request.
        @Test(arguments: ["", "Proxy-Authenticate: NTLM\r\n"])
        func aRefusalWithoutASchemeToAnswerIsTheAnswerAtOnce(challenge: String) async throws {
            let proxy = try RawServer(
                reply: "HTTP/1.1 407 Proxy Authentication Required\r\n\(challenge)Content-Length: 0\r\n\r\n")
            defer { proxy.stop() }
            let transport = try CurlTransport(proxy: Self.proxy(proxy.url.absoluteString, username: "u", password: "p"))
            let result = await EndpointClient(transport: transport).send(
                RawRouteEndpoint("x"), to: URL(string: "http://example.invalid")!)
            #expect(result.failure()?.statusCode == 407)
            #expect(proxy.heads.value.count == 1)
            #expect(transport.engine.proxyScheme == .basic)
        }

        /// The password never shows: not in the description, the mirror, `dump`, or an error's reason.
        @Test func thePasswordIsNeverShown() throws {
            let proxy = try Self.proxy(
                "http://proxy.internal:3128", username: "svc", password: "hunter2", bypassing: ["localhost"])
            #expect(proxy.description == "http://proxy.internal:3128 (as svc; bypassing localhost)")
            var dumped = ""
            dump(proxy, to: &dumped)
            for text in [proxy.description, String(reflecting: proxy), "\(proxy)", dumped] {
                #expect(!text.contains("hunter2"), "\(text)")
            }
            #expect(dumped.contains("<redacted>"))
            do {
                _ = try Self.proxy("http://proxy:3128", username: "svc", password: "hunter2\n")
            } catch {
                #expect(!error.description.contains("hunter2"))
            }
            #expect(CurlTransport.Proxy.environment.description == "environment")
        }
    }

    /// How a transport learns the scheme its proxy asks for, alone.
    struct ProxyAuthenticationTests {
        private static let basic = ProxyAuthentication.Scheme.basic.curlBit
        private static let digest = ProxyAuthentication.Scheme.digest.curlBit
        /// NTLM's bit, which the transport does not answer.
        private static let ntlm = 1 << 3

        /// `state.refused(…)`, out of `#expect`, which takes no mutating call.
        private func refuse(
            _ state: inout ProxyAuthentication, sentWith used: ProxyAuthentication.Scheme, offering offered: Int
        ) -> Bool {
            state.refused(sentWith: used, offering: offered)
        }

        @Test func basicGoesFirst() {
            #expect(ProxyAuthentication().scheme == .basic)
        }

        @Test func aRefusalAskingForAnotherSchemeIsAnsweredWithIt() {
            var state = ProxyAuthentication()
            #expect(refuse(&state, sentWith: .basic, offering: Self.digest))
            #expect(state.scheme == .digest)
            // A proxy that then asks for Basic alone (reconfigured) is answered with Basic again.
            #expect(refuse(&state, sentWith: .digest, offering: Self.basic))
            #expect(state.scheme == .basic)
            // Offered both after Basic was refused: the credentials were refused, not the scheme.
            #expect(!refuse(&state, sentWith: .basic, offering: Self.basic | Self.digest))
            #expect(state.scheme == .basic)
        }

        /// Two requests sent with Basic at once, both refused: the second is sent again too, and
        /// what was learnt stays.
        @Test func aLateRefusalOfTheOldSchemeKeepsWhatWasLearnt() {
            var state = ProxyAuthentication()
            #expect(refuse(&state, sentWith: .basic, offering: Self.digest))
            #expect(refuse(&state, sentWith: .basic, offering: Self.digest))
            #expect(state.scheme == .digest)
        }

        @Test func aRefusalNoSchemeAnswersChangesNothing() {
            var state = ProxyAuthentication()
            #expect(!refuse(&state, sentWith: .basic, offering: Self.ntlm))
            #expect(!refuse(&state, sentWith: .basic, offering: 0))
            #expect(!refuse(&state, sentWith: .basic, offering: Self.basic))
            #expect(state.scheme == .basic)
            #expect(ProxyAuthentication.answer(refusalOf: .digest, offering: Self.digest | Self.ntlm) == nil)
            #expect(ProxyAuthentication.answer(refusalOf: .basic, offering: Self.digest | Self.ntlm) == .digest)
        }
    }

    /// What one exchange does with its proxy's 407s, alone: the events of each kind of exchange.
    struct CurlProxyRoundTests {
        private static let basic = ProxyAuthentication.Scheme.basic.curlBit
        private static let digest = ProxyAuthentication.Scheme.digest.curlBit

        /// `round.headEnded(offering:)` and `round.answerContinues()`, out of `#expect`, which takes
        /// no mutating call.
        private static func ended(_ round: inout CurlProxyRound, _ offered: Int) -> CurlProxyRound.Decision {
            round.headEnded(offering: offered)
        }

        private static func continues(_ round: inout CurlProxyRound) -> Bool { round.answerContinues() }

        private static func round(
            _ scheme: ProxyAuthentication.Scheme?, resends: Bool = true, reopens: Bool = true
        ) -> CurlProxyRound {
            CurlProxyRound(scheme: scheme, mayResendRequest: resends, mayReopenTunnel: reopens)
        }

        /// Basic, refused by a proxy that asks for Digest: held back for the transport.
        @Test func basicRefusedForDigestIsHeldBack() {
            var round = Self.round(.basic)
            #expect(Self.ended(&round, Self.digest) == .holdBack)
            #expect(round.refusal == Self.digest)
        }

        /// The same refusal of a request that may not go again (a body from a stream, sent again
        /// already, a server's 407): the answer, at once.
        @Test func aRefusalThatMayNotGoAgainIsTheAnswer() {
            var round = Self.round(.basic, resends: false)
            #expect(Self.ended(&round, Self.digest) == .handOver)
            #expect(round.refusal == nil)
        }

        /// Basic refused while the proxy offers Basic: the credentials are wrong, the 407 is the answer.
        @Test func refusedCredentialsAreTheAnswer() {
            var round = Self.round(.basic)
            #expect(Self.ended(&round, Self.basic | Self.digest) == .handOver)
            #expect(round.state == .settled)
        }

        /// Digest: the proxy's first 407 waits; the next status line is the answer's head.
        @Test func libcurlsDigestRoundIsNotTheAnswer() {
            var round = Self.round(.digest)
            #expect(Self.ended(&round, Self.digest) == .wait)
            round.statusLineArrived()
            #expect(round.state == .settled)
            // The credentials refused: the second 407 is the answer.
            #expect(Self.ended(&round, Self.digest) == .handOver)
            #expect(!Self.continues(&round))
        }

        /// Digest, and the 407 is not answered by libcurl (its body comes, or the transfer ends):
        /// it is the answer, handed over then.
        @Test func aDigestRoundLibcurlDoesNotAnswerIsTheAnswer() {
            var round = Self.round(.digest)
            #expect(Self.ended(&round, 1 << 3) == .wait)
            #expect(Self.continues(&round))
            #expect(!Self.continues(&round))
            #expect(round.state == .settled)
        }

        /// Digest refused by a proxy that asks for Basic alone: held back for Basic.
        @Test func digestRefusedForBasicIsHeldBack() {
            var round = Self.round(.digest)
            #expect(Self.ended(&round, Self.basic) == .holdBack)
            #expect(round.refusal == Self.basic)
        }

        @Test func withoutCredentialsEvery407IsTheAnswer() {
            var round = CurlProxyRound.none
            #expect(Self.ended(&round, Self.digest) == .handOver)
            #expect(!round.reopensTunnel(offering: Self.digest))
        }

        @Test func aRefusedTunnelIsAskedForAgainOnceWithAnotherScheme() {
            #expect(Self.round(.basic).reopensTunnel(offering: Self.digest))
            #expect(!Self.round(.basic).reopensTunnel(offering: Self.basic))
            #expect(!Self.round(.basic, reopens: false).reopensTunnel(offering: Self.digest))
            #expect(Self.round(.digest).reopensTunnel(offering: Self.basic))
        }
    }
#endif
