import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The rules a cookie store's cookies are sent and kept by, alone (RFC 6265).
@Suite struct CookieHeaderTests {
    /// §5.1.4: the same path, or one below it at a `/`.
    @Test(arguments: [
        ("/", "/", true), ("/api", "/", true), ("/api", "/api", true), ("/api/items", "/api", true),
        ("/api/items", "/api/", true), ("/apiary", "/api", false), ("/", "/api", false), ("/API", "/api", false),
    ])
    func pathsMatchAsTheRFCSays(path: String, cookiePath: String, matches: Bool) {
        #expect(CookieHeader.pathMatches(path, cookie: cookiePath) == matches)
    }

    /// §5.2.2: digits, or a minus sign and digits; zero or less expires the cookie at once; the
    /// last one counts; anything else is ignored.
    @Test(
        arguments: [
            ("a=b; Max-Age=60", 60.0), ("a=b; max-age = 60 ; Path=/", 60), ("a=b; Max-Age=0", -1),
            ("a=b; Max-Age=-5", -1),
            ("a=b; Max-Age=60; Max-Age=0", -1), ("a=b; Max-Age=99999999999999999999999", 400 * 24 * 3600),
        ] as [(String, TimeInterval)])
    func maximumAgesAreRead(field: String, seconds: TimeInterval) {
        #expect(CookieHeader.maximumAge(in: field) == seconds)
    }

    @Test(arguments: ["a=b", "a=b; Max-Age=", "a=b; Max-Age=1e3", "a=b; Max-Age=+5", "a=b; Max-Age", "max-age=5"])
    func otherMaximumAgesAreIgnored(field: String) {
        #expect(CookieHeader.maximumAge(in: field) == nil)
    }

    /// A cookie for a whole top-level domain (`Domain=com`) is refused; one for the domain above
    /// the host is kept.
    @Test func aCookieForATopLevelDomainIsRefused() throws {
        #if canImport(FoundationNetworking)
            let storage = try #require(URLSessionConfiguration.ephemeral.httpCookieStorage)
            let url = try #require(URL(string: "http://shop.example.com/"))
            let fields = ["a=1; Domain=com", "b=2; Domain=.com", "c=3; Domain=example.com", "d=4"]
            CookieHeader.store(fields, from: url, for: URLRequest(url: url), in: storage)
            #expect((storage.cookies ?? []).map(\.name).sorted() == ["c", "d"])
        #endif
    }

    /// A field that folds two cookies keeps corelibs' reading of it: its `Max-Age` is not taken
    /// for both.
    @Test func aFoldedFieldsMaximumAgeIsNotSpreadToEachCookie() throws {
        #if canImport(FoundationNetworking)
            let storage = try #require(URLSessionConfiguration.ephemeral.httpCookieStorage)
            let url = try #require(URL(string: "http://example.com/"))
            CookieHeader.store(["kept=1", "a=1, b=2; Max-Age=0"], from: url, for: URLRequest(url: url), in: storage)
            #expect((storage.cookies ?? []).map(\.name).sorted() == ["a", "b", "kept"])
        #endif
    }
}
