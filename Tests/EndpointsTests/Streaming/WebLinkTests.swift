import Foundation
import Testing

@testable import Endpoints

@Suite struct WebLinkTests {
    private let base = URL(string: "https://api.example.com/v1/items?page=1")!

    @Test func aNextLink() {
        let links = WebLink.parse(#"<https://api.example.com/v1/items?page=2>; rel="next""#)
        #expect(
            links == [
                WebLink(
                    target: URL(string: "https://api.example.com/v1/items?page=2")!, relations: ["next"],
                    parameters: ["rel": "next"])
            ])
    }

    @Test func severalLinksQuotedAndUnquoted() {
        let header = #"<https://x.test/2>; rel="next", <https://x.test/9>;rel=last ,<https://x.test/1> ; rel = first"#
        let links = WebLink.parse(header)
        #expect(links.map(\.relations) == [["next"], ["last"], ["first"]])
        #expect(links.map(\.target.absoluteString) == ["https://x.test/2", "https://x.test/9", "https://x.test/1"])
    }

    @Test func relativeTargetsResolveAgainstTheRequestURL() {
        let header = #"</v1/items?page=2>; rel="next", <items?page=3>; rel="later", <//cdn.example.com/x>; rel=cdn"#
        let links = WebLink.parse(header, relativeTo: base)
        #expect(
            links.map(\.target.absoluteString) == [
                "https://api.example.com/v1/items?page=2", "https://api.example.com/v1/items?page=3",
                "https://cdn.example.com/x",
            ])
    }

    @Test func severalRelationTypesCaseInsensitive() {
        let links = WebLink.parse(#"<https://x.test/9>; rel="Last  NEXT""#)
        #expect(links.first?.relations == ["last", "next"])
        #expect(
            WebLink.target(of: "next", in: #"<https://x.test/9>; rel="Last  NEXT""#) == URL(string: "https://x.test/9"))
        #expect(WebLink.target(of: "prev", in: #"<https://x.test/9>; rel="last next""#) == nil)
    }

    @Test func quotedValuesMayHoldCommasSemicolonsAndEscapes() {
        let header = #"<https://x.test/a>; title="a, b; \"c\""; rel="next", <https://x.test/b>; rel=prev"#
        let links = WebLink.parse(header)
        #expect(links.count == 2)
        #expect(links.first?.parameters["title"] == #"a, b; "c""#)
        #expect(links.last?.relations == ["prev"])
    }

    @Test func onlyTheFirstRelParameterCounts() {
        let links = WebLink.parse(#"<https://x.test/a>; rel=next; REL=prev; hreflang=de; crossorigin"#)
        #expect(links.first?.relations == ["next"])
        #expect(links.first?.parameters == ["rel": "next", "hreflang": "de", "crossorigin": ""])
    }

    @Test func commasInsideTheTargetDoNotSplit() {
        let links = WebLink.parse(#"<https://x.test/a?ids=1,2,3>; rel="next""#)
        #expect(links.first?.target.absoluteString == "https://x.test/a?ids=1,2,3")
    }

    @Test func malformedPartsAreSkipped() {
        let header = #"garbage, <https://x.test/ok>; rel=next, no-bracket; rel=x, <https://x.test/unterminated"#
        #expect(WebLink.parse(header).map(\.target.absoluteString) == ["https://x.test/ok"])
        #expect(WebLink.parse("").isEmpty)
        #expect(WebLink.parse(" , ,").isEmpty)
    }

    @Test func githubStyleHeader() {
        let header =
            #"<https://api.github.com/repositories/1/issues?page=2>; rel="next", "#
            + #"<https://api.github.com/repositories/1/issues?page=5>; rel="last""#
        #expect(
            WebLink.target(of: "next", in: header)?.absoluteString
                == "https://api.github.com/repositories/1/issues?page=2")
    }
}
