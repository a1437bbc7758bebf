import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server whose environment is the loopback server's base URL.
private struct MapServer: ServerDefinition {
    typealias Environments = URL
    var baseUrls: [URL: URL] { [:] }
    static var defaultEnvironment: URL { URL(string: "http://127.0.0.1:1")! }
    func baseURL(for environment: URL) -> URL? { environment }
}

private struct User: Decodable, Sendable {
    let id: Int
    let name: String
}

private struct ApiError: Decodable, Sendable {
    let code: Int
    let message: String
}

private struct UsersEndpoint: Endpoint {
    typealias Server = MapServer
    typealias Response = [User]
    typealias ErrorResponse = ApiError
    struct ParameterComponents { let page: Int }

    static let definition: Definition<UsersEndpoint> = Definition(
        method: .get,
        path: "users",
        parameters: [.query("page", path: \.page)]
    )
    let parameterComponents: ParameterComponents
}

/// Static factories let call sites use leading-dot syntax, as protocol-oriented clients do.
private struct AgeEndpoint: Endpoint {
    typealias Server = MapServer
    struct Response: Decodable { let name: String; let age: Int }
    struct ParameterComponents { let name: String }
    static let definition: Definition<AgeEndpoint> = Definition(path: "age", parameters: [.query("name", path: \.name)])
    let parameterComponents: ParameterComponents
}

extension Endpoint where Self == AgeEndpoint {
    fileprivate static func estimatedAge(forName name: String) -> Self {
        AgeEndpoint(parameterComponents: .init(name: name))
    }
}

private struct TransformFailed: Error {}

@Suite struct MappedEndpointTests {
    let server: TestServer

    init() throws {
        server = try TestServer()
        server.route("/users") { request in
            guard request.queryValue("page") == "1" else {
                return .json(raw: #"{"code":7,"message":"no such page"}"#, status: 404)
            }
            return .json(raw: #"[{"id":1,"name":"Ada"},{"id":2,"name":"Grace"}]"#)
        }
        server.route("/age") { request in
            .json(raw: #"{"name":"\#(request.queryValue("name") ?? "")","age":34}"#)
        }
    }

    @Test func mapTransformsTheDecodedResponse() async throws {
        let names = try await URLSession.shared.response(
            with: UsersEndpoint(parameterComponents: .init(page: 1)).map { $0.map(\.name) },
            environment: server.baseURL
        )
        #expect(names == ["Ada", "Grace"])
        #expect(server.requests.last?.rawQuery == "page=1")
        server.stop()
    }

    @Test func mappedEndpointsKeepTheTypedErrorResponse() async throws {
        do {
            _ = try await URLSession.shared.response(
                with: UsersEndpoint(parameterComponents: .init(page: 2)).map(\.count),
                environment: server.baseURL
            )
            Issue.record("a 404 must fail")
        } catch {
            guard case .errorResponse(let http, let body) = error else {
                Issue.record("expected .errorResponse, got \(error)")
                return
            }
            #expect(http.statusCode == 404)
            #expect(body.message == "no such page")
        }
        server.stop()
    }

    @Test func aThrowingTransformIsAResponseParseErrorWithTheBody() async throws {
        do {
            _ = try await URLSession.shared.response(
                with: UsersEndpoint(parameterComponents: .init(page: 1)).map { _ -> Int in throw TransformFailed() },
                environment: server.baseURL
            )
            Issue.record("the transform threw; the request must fail")
        } catch {
            guard case .responseParseError(_, let data, _) = error else {
                Issue.record("expected .responseParseError, got \(error)")
                return
            }
            #expect(String(decoding: data, as: UTF8.self).contains("Grace"))
        }
        server.stop()
    }

    @Test func mapsCompose() async throws {
        let first = try await URLSession.shared.response(
            with: UsersEndpoint(parameterComponents: .init(page: 1)).map(\.first).map { $0?.name.uppercased() },
            environment: server.baseURL
        )
        #expect(first == "ADA")
        server.stop()
    }

    @Test func mappedRequestIsTheBaseRequest() throws {
        let base = UsersEndpoint(parameterComponents: .init(page: 3))
        let mapped = base.map(\.count)
        #expect(try mapped.urlRequest(environment: server.baseURL) == base.urlRequest(environment: server.baseURL))
        server.stop()
    }

    @Test func leadingDotFactoriesWorkAtTheCallSite() async throws {
        let person = try await URLSession.shared.response(
            with: .estimatedAge(forName: "Zaid"), environment: server.baseURL)
        #expect(person.name == "Zaid")
        #expect(person.age == 34)
        server.stop()
    }
}

/// An endpoint whose every associated type differs from the default, so that a mapped endpoint that
/// did not take `Base`'s would be caught.
private struct EveryTypeEndpoint: Endpoint {
    struct Server: ServerDefinition {
        enum Environments: Hashable, Sendable { case only }
        var baseUrls: [Environments: URL] { [.only: URL(string: "https://api.example.com")!] }
        static var defaultEnvironment: Environments { .only }
        static let auth = HeaderKeyAuth(key: "k")
    }
    typealias Response = Data
    typealias ErrorResponse = ApiError
    struct Body: Encodable, Sendable { let text: String }
    struct PathComponents: Sendable { let id: Int }
    struct ParameterComponents: Sendable { let page: Int }
    struct HeaderComponents: Sendable { let trace: String }
    struct BodyEncoder: EncoderType {
        func encode<T: Encodable>(_ value: T) throws -> Data { Data() }
    }
    struct ResponseDecoder: DecoderType {
        func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T { throw TransformFailed() }
    }
    struct ErrorDecoder: DecoderType {
        func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T { throw TransformFailed() }
    }

    static let definition: Definition<EveryTypeEndpoint> = Definition(method: .post, path: "items/\(path: \.id)")
    static var bodyEncoder: BodyEncoder { BodyEncoder() }
    static var responseDecoder: ResponseDecoder { ResponseDecoder() }
    static var errorDecoder: ErrorDecoder { ErrorDecoder() }
    static let auth = BasicAuth(username: "u", password: "p")

    let body: Body
    let pathComponents: PathComponents
    let parameterComponents: ParameterComponents
    let headerComponents: HeaderComponents
}

extension MappedEndpointTests {
    /// `MappedEndpoint` names only `Server` and `ErrorResponse`; the compiler infers the others from
    /// its witnesses. Each must still be `Base`'s, not the protocol's default.
    @Test func associatedTypesAreTheBaseEndpoints() {
        typealias Mapped = MappedEndpoint<EveryTypeEndpoint, Int>
        typealias Base = EveryTypeEndpoint
        let pairs: [(Any.Type, Any.Type)] = [
            (Mapped.Server.self, Base.Server.self),
            (Mapped.ErrorResponse.self, Base.ErrorResponse.self),
            (Mapped.Body.self, Base.Body.self),
            (Mapped.PathComponents.self, Base.PathComponents.self),
            (Mapped.ParameterComponents.self, Base.ParameterComponents.self),
            (Mapped.HeaderComponents.self, Base.HeaderComponents.self),
            (Mapped.BodyEncoder.self, Base.BodyEncoder.self),
            (Mapped.ErrorDecoder.self, Base.ErrorDecoder.self),
            (Mapped.Auth.self, Base.Auth.self),
            (Mapped.TaskError.self, Base.TaskError.self),
        ]
        for (mapped, base) in pairs {
            #expect(ObjectIdentifier(mapped) == ObjectIdentifier(base), "\(mapped) is not \(base)")
        }
        #expect(Mapped.Response.self == Int.self)
        // The mapped endpoint's ResponseDecoder is the default: its decodeResponse calls Base's,
        // which decodes with Base's decoder, so it never uses a decoder of its own.
        #expect(Mapped.ResponseDecoder.self == JSONDecoder.self)
    }
}

/// Decodes every body as `{"n":7}`, whatever it is.
private struct FixedDecoder: DecoderType {
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(#"{"n":7}"#.utf8))
    }
}

private struct CustomDecoderEndpoint: Endpoint {
    typealias Server = MapServer
    struct Response: Decodable { let n: Int }
    static let definition: Definition<CustomDecoderEndpoint> = Definition(path: "n")
    static var responseDecoder: FixedDecoder { FixedDecoder() }
}

extension MappedEndpointTests {
    /// A mapped endpoint has no decoder of its own: it decodes with its base's.
    @Test func aMappedEndpointDecodesWithItsBasesDecoder() throws {
        let response = try #require(
            HTTPURLResponse(
                url: URL(string: "https://api.example.com/n")!, statusCode: 200, httpVersion: nil, headerFields: nil))
        let value = try CustomDecoderEndpoint().map { $0.n * 2 }.decodeResponse(
            Data("ignored".utf8), response: response)
        #expect(value == 14)
    }
}
