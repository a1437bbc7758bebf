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

    /// A field goes to corelibs' parser only when, in the cookie and in each attribute, the text
    /// before the first `=` and the character after it are ASCII. The rest of a value may hold
    /// anything (a comma in one starts another cookie only before an ASCII name), and text with
    /// no `=` is no name.
    @Test(
        arguments: [
            ("a=b", true), ("a=b; Path=/; HttpOnly", true), ("a=\u{1F600}\u{1F600}", false), ("a=b=\u{1F600}", true),
            ("a=b; Path=/caf\u{E9}", true), ("a=b; \u{1F600}", true), ("a=b; \u{1F600}\u{1F600}", true),
            ("a=b; Expires=Wed, 21 Oct 2015 07:28:00 GMT", true),
            ("\u{1F600}\u{1F600}=1", false), ("\u{1F600}=1", false), ("e\u{301}=1", false), ("caf\u{E9}=1", false),
            ("a=1; \u{1F1FA}\u{1F1F8}=2", false), ("a=1, \u{1F600}\u{1F600}=2", true),
            ("\u{FFFD}\u{975D7}, a=1", false), (" \u{A0}a=1", false),
            ("a\r\n=1", false), ("=\u{340}=", false), ("a=\u{E9}", false), ("a=1; b=\u{301}x", false),
        ] as [(String, Bool)])
    func fieldsCorelibsCanReadAreTold(field: String, safe: Bool) {
        #expect(CookieHeader.corelibsReadsSafely(field) == safe)
    }

    #if canImport(FoundationNetworking)
        /// What the check above keeps from corelibs' parser (6.3): it finds a value by the UTF-16
        /// offset of its `=` counted in characters, and `😀😀=1` indexes past the end and traps. A
        /// child process shows it; once corelibs is fixed the child exits normally and this test
        /// fails, to be turned around.
        @Test func corelibsCookieParserTrapsOnANameOfTwoEmoji() async {
            await #expect(processExitsWith: .failure) {
                let url = URL(string: "http://example.com/")!
                _ = HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": "\u{1F600}\u{1F600}=1"], for: url)
                exit(EXIT_SUCCESS)
            }
        }
    #endif

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
