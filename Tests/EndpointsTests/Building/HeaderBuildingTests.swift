import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Header {
    fileprivate static let traceId: Header = "X-Trace-Id"
    fileprivate static let optional: Header = "X-Optional"
}

@Suite struct HeaderBuildingTests {
    struct Components: Sendable {
        var trace = "abc-123"
        var optional: String? = nil
    }

    struct WithHeaders: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Data
        typealias HeaderComponents = HeaderBuildingTests.Components
        static let definition: Definition<WithHeaders> = Definition(
            path: "h",
            headers: [
                Header.traceId.value(path: \.trace),
                Header.optional.value(path: \.optional),
                Header.accept.value("application/json"),
            ]
        )
        var headerComponents = Components()
    }

    struct BadName: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Data
        static let definition: Definition<BadName> = Definition(
            path: "h",
            headers: [Header("X-Bad\r\nInjected").value("1")]
        )
    }

    struct Processed: Endpoint {
        typealias Server = ProcessingServer
        typealias Response = Data
        static let definition: Definition<Processed> = Definition(
            method: .post,
            path: "p",
            headers: [Header.accept.value("text/plain")]
        )
        struct Body: Encodable, Sendable { let a = 1 }
        let body = Body()
    }

    /// Records what the request looked like when its processor ran, by echoing it into a header.
    struct ProcessingServer: ServerDefinition {
        var baseUrls: [Environments: URL] { [.production: URL(string: "https://p.example.com")!] }
        var requestProcessor: @Sendable (URLRequest) -> URLRequest {
            { request in
                var signed = request
                let seen = [
                    request.httpMethod ?? "-", request.url?.absoluteString ?? "-",
                    request.value(forHTTPHeaderField: "Accept") ?? "-",
                    request.value(forHTTPHeaderField: "Content-Type") ?? "-",
                    String(request.httpBody?.count ?? 0),
                ]
                signed.setValue(seen.joined(separator: " "), forHTTPHeaderField: "X-Signature")
                signed.setValue("overridden", forHTTPHeaderField: "Accept")
                return signed
            }
        }
    }

    @Test func customHeadersAreSetAndNilValuesOmitted() throws {
        let request = try WithHeaders().urlRequest()
        #expect(request.value(forHTTPHeaderField: "X-Trace-Id") == "abc-123")
        #expect(request.value(forHTTPHeaderField: "accept") == "application/json")
        #expect(request.value(forHTTPHeaderField: "X-Optional") == nil)
        #expect(request.allHTTPHeaderFields?.count == 2)
    }

    @Test(arguments: ["a\rb", "a\nb", "a\u{0}b", "ok\r\nX-Injected: 1", "\n"])
    func headerValuesWithCRLFOrNULAreRefused(value: String) {
        var endpoint = WithHeaders()
        endpoint.headerComponents.trace = value
        #expect(throws: EndpointError.invalidHeaderValue(name: "X-Trace-Id")) { try endpoint.urlRequest() }
    }

    @Test func refusedHeaderValueNeverAppearsInTheError() {
        var endpoint = WithHeaders()
        endpoint.headerComponents.trace = "secret-token\r\n"
        do {
            _ = try endpoint.urlRequest()
            Issue.record("a header value with CR LF was accepted")
        } catch {
            #expect(!error.description.contains("secret-token"))
        }
    }

    @Test func tabsAndSpacesAreValidHeaderText() throws {
        var endpoint = WithHeaders()
        endpoint.headerComponents.trace = "a\tb c"
        #expect(try endpoint.urlRequest().value(forHTTPHeaderField: "X-Trace-Id") == "a\tb c")
    }

    @Test func invalidHeaderNamesAreRefused() {
        #expect(throws: EndpointError.invalidHeaderName("X-Bad\r\nInjected")) { try BadName().urlRequest() }
    }

    @Test func headerNamesCompareCaseInsensitively() {
        #expect(Header("content-type") == .contentType)
        #expect(Set<Header>(["ACCEPT", .accept]).count == 1)
        #expect(Header.traceId.name == "X-Trace-Id")
    }

    @Test func requestProcessorRunsLastOnTheFinishedRequest() throws {
        let request = try Processed().urlRequest()
        #expect(
            request.value(forHTTPHeaderField: "X-Signature")
                == "POST https://p.example.com/p text/plain application/json 7"
        )
        #expect(request.value(forHTTPHeaderField: "Accept") == "overridden")
    }
}
