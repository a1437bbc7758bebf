import Endpoints
import Foundation
import Testing

// The deprecated forwarders of `Compatibility/Auth+Cuts.swift`: `description` reads as the
// description derived from the mirror, secrets redacted, and `credentialHeaderNames` still
// answers on the two methods that had their own. Public API only, as such code sees it.
@Suite struct AuthCutsTests {
    @Test func descriptionsForwardToTheMirrorAndShowNoSecret() {
        let secret = "cut-s3cr3t"
        let pair = JWTAuth.TokenPair(accessToken: secret, refreshToken: secret)
        let provider = OAuth.Provider(
            tokenURL: URL(string: "https://auth.example.com/token")!, clientID: "app", clientSecret: secret)
        let base = RequestBase(url: URL(string: "https://api.example.com/v1")!, headers: ["X-Key": secret])
        let request = Request<Data>.get("users", on: base) { Header.authorization.value(secret) }
        let pairs: [(String, String)] = [
            (
                BasicAuth(username: "ada", password: secret).description,
                String(describing: BasicAuth(username: "ada", password: secret))
            ),
            (HeaderKeyAuth(key: secret).description, String(describing: HeaderKeyAuth(key: secret))),
            (
                CookieAuth(name: "s", value: secret).description,
                String(describing: CookieAuth(name: "s", value: secret))
            ),
            (pair.description, String(describing: pair)),
            (provider.description, String(describing: provider)),
            (base.description, String(describing: base)),
            (request.description, String(describing: request)),
        ]
        for (old, new) in pairs {
            #expect(old == new)
            #expect(!old.contains(secret), "\(old)")
        }
        let jwt = JWTAuth(initialTokens: pair, refreshHandler: { _ in pair })
        #expect(jwt.description == String(describing: jwt))
        let oauth = OAuth(provider: provider, grant: .refreshToken(secret))
        #expect(oauth.description == String(describing: oauth))
        #expect(!jwt.description.contains(secret) && !oauth.description.contains(secret))
    }

    @Test func credentialHeaderNamesAnswerAsBefore() {
        #expect(HeaderKeyAuth(key: "k", header: "X-Client-Key", prefix: nil).credentialHeaderNames == ["X-Client-Key"])
        #expect(CookieAuth(name: "s", value: "v").credentialHeaderNames == ["Cookie"])
    }
}
