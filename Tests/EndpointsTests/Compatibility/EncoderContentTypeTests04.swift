import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Endpoints 0.4 declared an encoder's content type as `static var contentType`. A custom encoder
// written that way sends it as the Content-Type.
@Suite struct EncoderContentTypeTests04 {
    struct PlistEncoder: EncoderType {
        static var contentType: String? { "application/x-plist" }
        func encode<T: Encodable>(_ value: T) throws -> Data { try PropertyListEncoder().encode(value) }
    }

    struct PlistEndpoint: Endpoint {
        typealias Server = V04.TestServer
        typealias Response = Void
        struct Body: Encodable { let name: String }
        static let definition: Definition<PlistEndpoint> = Definition(method: .post, path: "settings")
        static var bodyEncoder: PlistEncoder { PlistEncoder() }
        let body: Body
    }

    @Test
    func staticContentTypeIsSent() throws {
        let request = try PlistEndpoint(body: .init(name: "zac")).urlRequest()
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-plist")
        #expect(PlistEncoder().contentType == "application/x-plist")
    }

    @Test
    func jsonEncoderKeepsBothSpellings() {
        #expect(JSONEncoder.contentType == "application/json")
        #expect(JSONEncoder().contentType == "application/json")
    }
}
