import Endpoints
import EndpointsMocking
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Sending ad-hoc requests through a fake transport: the response kinds, the checks made before
// anything is sent, and what the pipeline adds (authentication, middleware, status validation).

/// Records the order the middleware ran in, and the request name each one saw.
struct NamingMiddleware: Middleware {
    let label: String
    let seen: TestLocked<[String]>

    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        seen.withLock { $0.append("\(label): \(context.endpointName)") }
        return try await next(request)
    }
}

@Suite struct RequestSendingTests {
    let base = RequestBase(url: URL(string: "https://api.example.com/v1")!, auth: HeaderKeyAuth(key: "k-1"))

    @Test func dataVoidAndMappedResponses() async throws {
        let fake = FakeHTTPTransport()
        fake.register(.get, "/v1/raw", .text("raw bytes"))
        fake.register(.delete, "/v1/users/42", .status(204))
        try await withFakeTransport(fake) {
            let raw = try await URLSession.shared.response(for: Request<Data>.get("raw", on: base))
            #expect(raw == Data("raw bytes".utf8))
            try await URLSession.shared.response(for: Request<Void>.request(.delete, "users/\(42)", on: base))
            let length = try await URLSession.shared.response(for: Request<Data>.get("raw", on: base).map(\.count))
            #expect(length == 9)
        }
        #expect(fake.requests.map { $0.header("Authorization") } == ["Bearer k-1", "Bearer k-1", "Bearer k-1"])
    }

    @Test func aResponseNothingCanDecodeFailsBeforeAnythingIsSent() async {
        struct Image: Sendable {}
        let fake = FakeHTTPTransport()
        let result = await withFakeTransport(fake) { () async -> Result<Image, Request<Image>.TaskError> in
            do throws(Request<Image>.TaskError) {
                return .success(try await URLSession.shared.response(for: Request<Image>.get("avatar", on: base)))
            } catch {
                return .failure(error)
            }
        }
        guard case .endpointError(.unsupportedResponse(let type)) = result.failure() else {
            Issue.record("expected .unsupportedResponse, got \(result)")
            return
        }
        #expect(type == "Image")
        #expect(fake.requests.isEmpty)
    }

    @Test func aMappedResponseNothingCanDecodeStillFailsBeforeAnythingIsSent() async {
        struct Image: Sendable {}
        let fake = FakeHTTPTransport()
        // `Data` decodes, but the request mapped from has nothing to decode its `Image` with.
        let request = Request<Image>.get("avatar", on: base).map { _ in Data() }
        let result = await withFakeTransport(fake) { () async -> Result<Data, Request<Data>.TaskError> in
            do throws(Request<Data>.TaskError) {
                return .success(try await URLSession.shared.response(for: request))
            } catch {
                return .failure(error)
            }
        }
        guard case .endpointError(.unsupportedResponse(let type)) = result.failure() else {
            Issue.record("expected .unsupportedResponse, got \(result)")
            return
        }
        #expect(type == "Data")
        #expect(fake.requests.isEmpty)
    }

    @Test func aThrowingMapIsAResponseParseErrorWithTheBody() async {
        struct Unreadable: Error {}
        let fake = FakeHTTPTransport()
        fake.register(.get, "/v1/raw", .text("raw bytes"))
        let request = Request<Data>.get("raw", on: base).map { _ -> Int in throw Unreadable() }
        let result = await withFakeTransport(fake) { () async -> Result<Int, Request<Int>.TaskError> in
            do throws(Request<Int>.TaskError) {
                return .success(try await URLSession.shared.response(for: request))
            } catch {
                return .failure(error)
            }
        }
        #expect(result.failure()?.responseData == Data("raw bytes".utf8))
    }

    @Test func acceptableStatusesTimeoutAndTypedResponse() async throws {
        let fake = FakeHTTPTransport()
        fake.register(.get, "/v1/avatar", .status(304, headers: ["ETag": "v2"]))
        let client = EndpointClient(transport: fake)
        let request = Request<Data>.get("avatar", on: base)
            .header("If-None-Match", "v1")
            .acceptableStatusCodes(.successful + [304])
            .timeout(2.5)
        let result = try await client.typedResponse(for: request)
        #expect(result.httpResponse.statusCode == 304)
        #expect(result.httpResponse.value(forHTTPHeaderField: "ETag") == "v2")
        #expect(fake.requests.first?.urlRequest.timeoutInterval == 2.5)
        #expect(throws: EndpointError.invalidTimeout(0)) { try request.timeout(0).urlRequest() }
    }

    @Test func middlewareRunBaseThenClientThenRequest() async throws {
        let seen = TestLocked<[String]>([])
        let fake = FakeHTTPTransport()
        fake.register(.get, "/v1/raw", .text("x"))
        let base = RequestBase(
            url: URL(string: "https://api.example.com/v1")!,
            middleware: [NamingMiddleware(label: "base", seen: seen)]
        )
        let client = EndpointClient(transport: fake, middleware: [NamingMiddleware(label: "client", seen: seen)])
        let request = Request<Data>.get("raw", on: base)
            .middleware([NamingMiddleware(label: "request", seen: seen)])
            .named("raw")
        _ = try await client.response(for: request)
        #expect(seen.withLock { $0 } == ["base: raw", "client: raw", "request: raw"])
    }
}
