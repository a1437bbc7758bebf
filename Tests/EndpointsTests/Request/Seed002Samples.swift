import Endpoints
import EndpointsMocking
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Seed 002 (kean's `Endpoint<Response>` with a decode function) in our API, and each of its
// readers' questions answered by a test: Encodable parameters, arrays of Codable items, a custom
// JSON decoder, error bodies after validation, unit tests with mock responses, chaining requests,
// and what a cancelled request reports.

struct Customer: Codable, Sendable, Equatable {
    let name: String
}

struct Order: Codable, Sendable, Equatable {
    let orderId: Int
    let placedAt: Date
}

struct ShopError: Decodable, Sendable, Equatable {
    let code: Int
    let message: String
}

enum API {
    static let base = RequestBase(
        url: URL(string: "https://shop.example.com/api")!,
        auth: HeaderKeyAuth(key: "access-token")
    )
}

extension API {
    static func getCustomer() -> Request<Customer> {
        .get("customer/profile", on: base)
    }

    static func patchCustomer(name: String) -> Request<Customer> {
        .request(.patch, "customer/profile", on: base, body: ["name": name])
    }

    static func orders(for customer: Customer) -> Request<[Order]> {
        .get("customers/\(customer.name)/orders", on: base)
    }
}

/// A shop whose profile and orders answer as the samples expect; any other path is a 404 with a
/// `ShopError` body.
func shopServer() throws -> TestServer {
    let server = try TestServer()
    server.route("/api/customer/profile") { request in
        guard request.header("Authorization") == "Bearer access-token" else {
            return .json(["code": "401", "message": "who are you?"], status: 401)
        }
        if request.method == "PATCH" {
            let patch = try? JSONDecoder().decode(Customer.self, from: request.body)
            return .json(Customer(name: patch?.name ?? "?"))
        }
        return .json(Customer(name: "Alex"))
    }
    server.route("/api/customers/Alex/orders") { _ in
        .json(
            raw:
                #"[{"order_id": 1, "placed_at": "2026-11-29T11:24:18Z"}, {"order_id": 2, "placed_at": "2026-11-30T08:00:00Z"}]"#
        )
    }
    server.route("/api/*") { _ in .json(raw: #"{"code": 404, "message": "no such thing"}"#, status: 404) }
    return server
}

@Suite struct Seed002Samples {
    @Test func gettingTheResults() async throws {
        let server = try shopServer()
        defer { server.stop() }
        try await withLoopback(to: server) {
            let customer = try await URLSession.shared.response(for: API.getCustomer())
            #expect(customer == Customer(name: "Alex"))
            let renamed = try await URLSession.shared.response(for: API.patchCustomer(name: "Alexander"))
            #expect(renamed.name == "Alexander")
        }
        #expect(server.requests.map(\.method) == ["GET", "PATCH"])
        #expect(String(decoding: server.requests[1].body, as: UTF8.self) == #"{"name":"Alexander"}"#)
    }

    @Test func mapTransformsTheResponse() async throws {
        let server = try shopServer()
        defer { server.stop() }
        let name: Request<String> = API.getCustomer().map { $0.name }
        let shouted = name.map { name in
            guard !name.isEmpty else { throw CocoaError(.coderValueNotFound) }
            return name.uppercased()
        }
        try await withLoopback(to: server) {
            let plain = try await URLSession.shared.response(for: name)
            let loud = try await URLSession.shared.response(for: shouted)
            #expect(plain == "Alex")
            #expect(loud == "ALEX")
        }
    }

    @Test func encodableParameters() async throws {
        struct CustomerPatch: Encodable, Sendable {
            let name: String
            let newsletter: Bool
        }
        let server = try shopServer()
        defer { server.stop() }
        let patch = Request<Customer>.request(
            .patch,
            "customer/profile",
            on: API.base,
            body: CustomerPatch(name: "Sam", newsletter: true)
        )
        try await withLoopback(to: server) {
            let patched = try await URLSession.shared.response(for: patch)
            #expect(patched.name == "Sam")
        }
        let sent = try #require(server.requests.last)
        #expect(sent.header("Content-Type") == "application/json")
        #expect(jsonObject(sent.body) == jsonObject(Data(#"{"name": "Sam", "newsletter": true}"#.utf8)))
    }

    @Test func formFields() throws {
        let login = Request<Data>.post("login", on: API.base) {
            Parameter.formValue("user", value: "ada lovelace")
            Parameter.formValue("password", value: "p&ss=word+")
        }
        let request = try login.urlRequest()
        #expect(request.httpBody == Data("user=ada+lovelace&password=p%26ss%3Dword%2B".utf8))
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
    }

    @Test func arraysOfCodableItemsAndACustomDecoder() async throws {
        let server = try shopServer()
        defer { server.stop() }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        try await withLoopback(to: server) {
            let customer = try await URLSession.shared.response(for: API.getCustomer())
            let orders = try await URLSession.shared.response(for: API.orders(for: customer).decoder(decoder))
            #expect(orders.map(\.orderId) == [1, 2])
            #expect(orders[0].placedAt == ISO8601DateFormatter().date(from: "2026-11-29T11:24:18Z"))
        }
    }

    @Test func withoutTheCustomDecoderTheErrorKeepsTheBody() async throws {
        let server = try shopServer()
        defer { server.stop() }
        let customer = Customer(name: "Alex")
        let result = await outcome(loopback: server) { () async throws(Request<[Order]>.TaskError) in
            try await URLSession.shared.response(for: API.orders(for: customer))
        }
        guard case .responseParseError(let http, let data, let error) = result.failure() else {
            Issue.record("expected .responseParseError, got \(result)")
            return
        }
        #expect(http.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self).contains("order_id"))
        #expect(error.codingPath == "[0].orderId")
    }

    @Test func errorBodiesAfterValidation() async throws {
        let server = try shopServer()
        defer { server.stop() }
        let missing = Request<Customer>.get("customers/nobody", on: API.base).errorBody(ShopError.self)
        let result = await outcome(loopback: server) { () async throws(EndpointTaskError<ShopError>) in
            try await URLSession.shared.response(for: missing)
        }
        guard case .errorResponse(let http, let body) = result.failure() else {
            Issue.record("expected .errorResponse, got \(result)")
            return
        }
        #expect(http.statusCode == 404)
        #expect(body == ShopError(code: 404, message: "no such thing"))
    }

    @Test func anErrorBodyThatDoesNotDecodeIsKept() async throws {
        let server = try shopServer()
        defer { server.stop() }
        let unauthorized = API.getCustomer().auth(NoAuth()).errorBody(ShopError.self)
        let result = await outcome(loopback: server) { () async throws(EndpointTaskError<ShopError>) in
            try await URLSession.shared.response(for: unauthorized)
        }
        guard case .errorResponseParseError(let http, let data, _) = result.failure() else {
            Issue.record("expected .errorResponseParseError, got \(result)")
            return
        }
        #expect(http.statusCode == 401)
        #expect(String(decoding: data, as: UTF8.self).contains("who are you?"))
    }

    @Test func unitTestsWithMockResponses() async throws {
        let fake = FakeHTTPTransport()
        fake.register(.get, "/api/customer/profile", .json(Customer(name: "Alex")))
        try await withFakeTransport(fake) {
            let customer = try await URLSession.shared.response(for: API.getCustomer())
            #expect(customer.name == "Alex")
        }
        #expect(fake.requests.map(\.path) == ["/api/customer/profile"])
        #expect(fake.requests.first?.header("Authorization") == "Bearer access-token")
    }

    @Test func unitTestsWithTypedMocks() async throws {
        let mocks = MockRegistry(strict: true)
        mocks.register(API.getCustomer(), returning: Customer(name: "Mocked"))
        try await withMock(mocks) {
            let customer = try await URLSession.shared.response(for: API.getCustomer())
            #expect(customer.name == "Mocked")
        }
        await #expect(throws: Request<[Order]>.TaskError.self) {
            try await withMock(mocks) {
                try await URLSession.shared.response(for: API.orders(for: Customer(name: "Alex")))
            }
        }
        #expect(mocks.requestNames == ["GET customer/profile", "GET customers/{1}/orders"])
    }

    @Test func chainingTwoRequests() async throws {
        let server = try shopServer()
        defer { server.stop() }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        try await withLoopback(to: server) {
            let customer = try await URLSession.shared.response(for: API.getCustomer())
            let orders = try await URLSession.shared.response(for: API.orders(for: customer).decoder(decoder))
            #expect(orders.map(\.orderId) == [1, 2])
        }
        #expect(server.requests.map(\.rawPath) == ["/api/customer/profile", "/api/customers/Alex/orders"])
    }

    @Test func aCancelledRequestIsCancelledNotAnNSURLError() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let slow = Request<Data>.get("\(server.baseURL.absoluteString)/delay/600000")
        let task = Task { () async -> Result<Data, Request<Data>.TaskError> in
            do throws(Request<Data>.TaskError) {
                return .success(try await URLSession.shared.response(for: slow))
            } catch {
                return .failure(error)
            }
        }
        try await waitForRequests(1, on: server)
        task.cancel()
        #expect(await task.value.failure()?.isCancelled == true)
    }
}
