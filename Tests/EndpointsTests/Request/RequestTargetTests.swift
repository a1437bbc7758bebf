import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One constructor per method: a `RequestTarget` is an absolute URL, or with `on:` a path on a base.
@Suite struct RequestTargetTests {
    @Test func anAbsoluteURLKeepsItsValuesAsTheyAre() throws {
        let name = "Zaid"
        let id = 42
        let request = try Request<Data>.get("https://api.example.com/users/\(id)?name=\(name)").urlRequest()
        #expect(request.url?.absoluteString == "https://api.example.com/users/42?name=Zaid")
    }

    @Test func onABaseEachValueIsOneSegment() throws {
        let id = "a/b"
        let request = try Request<Data>.get("users/\(id)/posts", on: AdHocFixtures.base).urlRequest()
        #expect(request.url?.absoluteString == "https://api.example.com/v1/users/a%2Fb/posts?api-version=2")
    }

    @Test func aURLInAVariableIsARequestTarget() throws {
        let url = "https://api.example.com/search?q=swift"
        #expect(try Request<Data>.get(RequestTarget(url)).urlRequest().url?.absoluteString == url)
        #expect(try Request<Data>.request(.delete, RequestTarget(url)).urlRequest().httpMethod == "DELETE")
        let path = "users/7"
        let onBase = try Request<Data>.request(.put, RequestTarget(path), on: AdHocFixtures.base, body: ["n": 1])
            .urlRequest()
        #expect(onBase.url?.absoluteString == "https://api.example.com/v1/users/7?api-version=2")
    }

    @Test func aFoundationURLIsARequestTargetSentAsItIs() throws {
        let url = try #require(URL(string: "https://api.example.com/files/a%20b%2Fc?q=x%26y"))
        #expect(try Request<Data>.get(RequestTarget(url)).urlRequest().url == url)
    }

    @Test func theNameIsTheTargetAsWritten() {
        #expect(Request<Data>.get("users/\(7)", on: AdHocFixtures.base).name == "GET users/{1}")
        #expect(
            Request<Data>.post("https://api.example.com/users?key=secret").name == "POST https://api.example.com/users")
    }
}
