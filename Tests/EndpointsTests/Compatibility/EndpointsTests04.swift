import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Endpoints 0.4's EndpointsTests (velos/Endpoints, main: Tests/EndpointsTests/EndpointsTests.swift),
// run against this package. Each test keeps 0.4's expectations; where one is an intended change
// (MigratingFrom04.md, "Intended changes"), the 0.4 expectation is a known issue and the new
// behaviour is asserted beside it. (`"…".data(using: .utf8)!` is written `Data("…".utf8)`, which
// is available on every platform this package supports.)
@Suite struct EndpointsTests04 {
    typealias SimpleEndpoint = V04.SimpleEndpoint
    typealias JSONProviderEndpoint = V04.JSONProviderEndpoint
    typealias PostEndpoint1 = V04.PostEndpoint1
    typealias PostEndpoint2 = V04.PostEndpoint2
    typealias MultipartUploadEndpoint = V04.MultipartUploadEndpoint
    typealias CustomEncodingEndpoint = V04.CustomEncodingEndpoint
    typealias UserEndpoint = V04.UserEndpoint
    typealias TestServer = V04.TestServer

    @Test
    func basicEndpoint() throws {
        let request = try SimpleEndpoint(
            pathComponents: .init(name: "zac", id: "42")
        ).urlRequest()

        #expect(request.url?.path == "/user/zac/42/profile")

        let responseData = Data(#"{"response1": "testing"}"#.utf8)
        let response = try SimpleEndpoint.responseDecoder.decode(SimpleEndpoint.Response.self, from: responseData)

        #expect(response.response1 == "testing")
    }

    @Test
    func basicEndpointWithCustomDecoder() throws {
        let request = try JSONProviderEndpoint(
            body: .init(bodyValueOne: "value"),
            pathComponents: .init(name: "zac", id: "42")
        ).urlRequest()

        #expect(request.url?.path == "/user/zac/42/profile")

        let bodyData = Data(#"{"body_value_one":"value"}"#.utf8)
        #expect(request.httpBody == bodyData)

        let responseData = Data(#"{"response_one": "testing"}"#.utf8)
        let response = try JSONProviderEndpoint.responseDecoder.decode(
            JSONProviderEndpoint.Response.self,
            from: responseData
        )

        #expect(response.responseOne == "testing")
    }

    @Test
    func postEndpointWithEncoder() throws {
        let date = Date()
        let request = try PostEndpoint1(
            body: .init(property1: date, property2: nil)
        ).urlRequest()

        let encodedDate = ISO8601DateFormatter().string(from: date)
        let bodyData = Data("{\"property1\":\"\(encodedDate)\"}".utf8)
        #expect(request.httpBody == bodyData)
    }

    @Test
    func postEndpoint() throws {
        let request = try PostEndpoint2(
            body: .init(property1: "test", property2: nil)
        ).urlRequest()

        #expect(request.url?.path == "/path")
        #expect(request.httpMethod == "POST")
    }

    @Test
    func multipartBodyEncoding() throws {
        let fileData = Data("hello world".utf8)
        let endpoint = MultipartUploadEndpoint(
            body: .init(
                description: "Test description",
                file: MultipartFormFile(data: fileData, fileName: "greeting.txt", contentType: "text/plain"),
                tags: ["tag1", "tag2"],
                metadata: MultipartFormJSON(
                    MultipartUploadEndpoint.Body.Metadata(owner: "zac", priority: 1)
                )
            )
        )

        let request = try endpoint.urlRequest()

        let contentType = try #require(request.value(forHTTPHeaderField: Header.contentType.name))
        #expect(contentType.hasPrefix("multipart/form-data; boundary="))

        let boundaryComponents = contentType.components(separatedBy: "boundary=")
        #expect(boundaryComponents.count == 2)
        let boundary = boundaryComponents[1]

        let bodyData = try #require(request.httpBody)
        let bodyString = try #require(String(data: bodyData, encoding: .utf8))

        #expect(bodyString.contains("Content-Disposition: form-data; name=\"description\""))
        #expect(bodyString.contains("Test description"))
        #expect(bodyString.contains("Content-Disposition: form-data; name=\"tags[0]\""))
        #expect(bodyString.contains("Content-Disposition: form-data; name=\"tags[1]\""))
        #expect(bodyString.contains("Content-Disposition: form-data; name=\"file\"; filename=\"greeting.txt\""))
        #expect(bodyString.contains("Content-Type: text/plain"))
        #expect(bodyString.contains("hello world"))
        #expect(bodyString.contains("Content-Disposition: form-data; name=\"metadata\""))
        #expect(!bodyString.contains("name=\"metadata\"; filename="))
        #expect(bodyString.contains("Content-Type: application/json"))
        #expect(bodyString.contains("\"owner\":\"zac\""))
        #expect(bodyString.contains("\"priority\":1"))
        #expect(bodyString.hasSuffix("--\(boundary)--\r\n"))
    }

    @Test
    func customParameterEncoding() throws {
        let request = try CustomEncodingEndpoint(
            parameterComponents: .init(needsCustomEncoding: "++++")
        ).urlRequest()

        #expect(request.url?.query == "key=%2B%2B%2B%2B")
    }

    @Test
    func parameterEndpoint() throws {
        let date = Date(timeIntervalSince1970: 1_764_547_200)  // 2025-12-01T00:00:00Z
        let request = try UserEndpoint(
            pathComponents: .init(userId: "3"),
            parameterComponents: .init(
                string: "test:of:+thing%asdf",
                date: date,
                double: 2.3,
                int: 42,
                boolTrue: true,
                boolFalse: false,
                timeZone: TimeZone(identifier: "America/Los_Angeles")!,
                optionalString: nil,
                optionalDate: nil
            ),
            headerComponents: .init(headerValue: "test")
        ).urlRequest()

        #expect(request.httpMethod == "GET")
        #expect(request.url?.path == "/hey/3")
        #expect(request.url?.query == "string=test:of:%2Bthing%25asdf&hard_coded_query=true")

        #expect(request.value(forHTTPHeaderField: "HEADER_TYPE") == "test")
        #expect(request.value(forHTTPHeaderField: "HARD_CODED_HEADER") == "test2")
        #expect(request.value(forHTTPHeaderField: "Keep-Alive") == "timeout=5, max=1000")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")

        #expect(request.httpBody != nil)
        let body = String(data: request.httpBody ?? Data(), encoding: .utf8) ?? ""

        #expect(!body.contains("optional_string"))

        // Intended change (RFC 3986 form encoding): 0.4 left `+` and `/` unescaped in a form
        // body, so the server read `+` as a space and a time zone's `/` as written. Both are
        // percent-encoded now, so every value reads back as it was sent.
        withKnownIssue("intended change: `+` and `/` are percent-encoded in form bodies") {
            #expect(body.contains("string=test%3Aof%3A+thing%25asdf"))
            #expect(
                body.contains(
                    "double=2.3&int=42&bool_true=true&bool_false=false&time_zone=America/Los_Angeles&hard_coded_form=true"
                )
            )
        }
        #expect(body.contains("string=test%3Aof%3A%2Bthing%25asdf"))
        #expect(
            body.contains(
                "double=2.3&int=42&bool_true=true&bool_false=false&time_zone=America%2FLos_Angeles&hard_coded_form=true"
            )
        )

        // Intended change (Date parameters): 0.4 sent the day only, in the device's time zone
        // (`2025-12-01` or `2025-11-30` depending on where it ran); a Date is now the instant in
        // ISO 8601, UTC.
        #expect(body.contains("date=2025-12-01T00%3A00%3A00Z"))
    }

    // 0.4's `invalidParameter` built an endpoint whose parameter is not ParameterRepresentable
    // and expected an EndpointError at run time. Such an endpoint does not compile now (checked
    // by scripts/check-migration-compile-errors.sh), which is the intended, earlier failure.

    @Test
    func responseSuccess() throws {
        let successResponse = HTTPURLResponse(
            url: URL(fileURLWithPath: ""),
            statusCode: 200,
            httpVersion: nil,
            headerFields: nil
        )
        let jsonData = try JSONEncoder().encode(SimpleEndpoint.Response(response1: "testing"))
        let result = SimpleEndpoint.definition.response(
            data: jsonData,
            response: successResponse,
            error: nil
        )

        guard case .success(let data) = result else {
            Issue.record("Unexpected failure")
            return
        }

        #expect(data == jsonData)
    }

    @Test
    func responseNetworkError() throws {
        let jsonData = try JSONEncoder().encode(SimpleEndpoint.Response(response1: "testing"))
        let result = SimpleEndpoint.definition.response(
            data: jsonData,
            response: nil,
            error: NSError(
                domain: URLError.errorDomain,
                code: URLError.Code.notConnectedToInternet.rawValue,
                userInfo: nil
            )
        )

        guard case .failure(let taskError) = result, case .internetConnectionOffline = taskError else {
            Issue.record("Unexpected failure")
            return
        }
    }

    @Test
    func responseURLLoadError() throws {
        let jsonData = try JSONEncoder().encode(SimpleEndpoint.Response(response1: "testing"))
        let result = SimpleEndpoint.definition.response(
            data: jsonData,
            response: nil,
            error: NSError(domain: URLError.errorDomain, code: URLError.Code.badServerResponse.rawValue, userInfo: nil)
        )

        guard case .failure(let taskError) = result, case .urlLoadError = taskError else {
            Issue.record("Unexpected failure")
            return
        }
    }

    @Test
    func responseErrorParsing() throws {
        let failureResponse = HTTPURLResponse(
            url: URL(fileURLWithPath: ""),
            statusCode: 404,
            httpVersion: nil,
            headerFields: nil
        )
        let errorResponse = SimpleEndpoint.ErrorResponse(errorDescription: "testing")
        let jsonData = try JSONEncoder().encode(errorResponse)
        let result = SimpleEndpoint.definition.response(
            data: jsonData,
            response: failureResponse,
            error: nil
        )

        guard case .failure(let error) = result else {
            Issue.record("Unexpected failure")
            return
        }

        guard case .errorResponse(let response, let decoded) = error else {
            Issue.record("Unexpected error case")
            return
        }

        #expect(response.statusCode == 404)
        #expect(decoded == errorResponse)
    }

    // Intended change (error types): 0.4 decoded EmptyCodable from an error body, so an HTML error
    // page was `.errorResponseParseError`; an endpoint without an error type gets `.errorResponse`.
    @Test
    func emptyErrorTypeIsAlwaysErrorResponse() throws {
        let badGateway = HTTPURLResponse(
            url: URL(fileURLWithPath: ""), statusCode: 502, httpVersion: nil, headerFields: nil)
        let result = PostEndpoint2.definition.response(data: Data("<html>".utf8), response: badGateway, error: nil)
        guard case .failure(.errorResponse(let response, _)) = result else {
            Issue.record("expected .errorResponse, got \(result)")
            return
        }
        #expect(response.statusCode == 502)
    }

    // Migrated as the README says: `TestServer.environment = .local` is gone (it does not
    // compile, with a message); each request names its environment.
    @Test
    func environmentsChange() throws {
        let endpoint = SimpleEndpoint(
            pathComponents: .init(name: "zac", id: "42")
        )

        #expect(try endpoint.urlRequest(environment: .local).url?.host == "local-api.velosmobile.com")
        #expect(try endpoint.urlRequest(environment: .staging).url?.host == "staging-api.velosmobile.com")
        #expect(try endpoint.urlRequest(environment: .production).url?.host == "api.velosmobile.com")
        #expect(try endpoint.urlRequest().url?.host == "api.velosmobile.com")
    }

    @Test
    func defaultEnvironment() throws {
        #expect(TestServer.defaultEnvironment == .production)
    }
}
