import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The deprecated `.put`, `.patch` and `.delete` constructors build what `.request(method, …)` builds.
@Suite struct AdHocMethodsTests {
    @available(*, deprecated)
    @Test func theDeprecatedConstructorsBuildTheGeneralOnesRequest() throws {
        let url = "https://api.example.com/users/42"
        let pairs: [(URLRequest, URLRequest)] = [
            (
                try Request<Data>.put(RequestTarget(url), body: ["n": 1]).urlRequest(),
                try Request<Data>.request(.put, RequestTarget(url), body: ["n": 1]).urlRequest()
            ),
            (
                try Request<Data>.patch(RequestTarget(url), body: ["n": 1]).urlRequest(),
                try Request<Data>.request(.patch, RequestTarget(url), body: ["n": 1]).urlRequest()
            ),
            (
                try Request<Data>.delete(RequestTarget(url)).urlRequest(),
                try Request<Data>.request(.delete, RequestTarget(url)).urlRequest()
            ),
        ]
        for (old, new) in pairs {
            #expect(old.httpMethod == new.httpMethod && old.url == new.url && old.httpBody == new.httpBody)
            #expect(old.allHTTPHeaderFields == new.allHTTPHeaderFields)
        }
        #expect(pairs.map { $0.0.httpMethod } == ["PUT", "PATCH", "DELETE"])
    }
}
