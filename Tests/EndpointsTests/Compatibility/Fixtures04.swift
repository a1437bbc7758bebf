import Endpoints
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Endpoints 0.4's test endpoints (velos/Endpoints, main: Tests/EndpointsTests/Endpoints/*.swift),
// after only the documented migration. They already declare `typealias Server`, so each one is
// as 0.4 wrote it; they sit in `V04` so their names do not clash with this target's own.
//
// Left out: `InvalidEndpoint`, whose query parameter reads a value that is not
// `ParameterRepresentable`. 0.4 threw `EndpointError` when building it; here it does not compile
// (see MigratingFrom04.md, "Parameters that cannot be represented").
enum V04 {
    struct TestServer: ServerDefinition {
        var baseUrls: [Environments: URL] {
            return [
                .local: URL(string: "https://local-api.velosmobile.com")!,
                .staging: URL(string: "https://staging-api.velosmobile.com")!,
                .production: URL(string: "https://api.velosmobile.com")!,
            ]
        }

        static var defaultEnvironment: Environments { .production }
    }

    struct SimpleEndpoint: Endpoint {
        typealias Server = TestServer

        static let definition: Definition<SimpleEndpoint> = Definition(
            method: .get,
            path: "user/\(path: \.name)/\(path: \.id)/profile"
        )

        struct Response: Codable {
            let response1: String
        }

        struct ErrorResponse: Codable, Equatable {
            let errorDescription: String
        }

        struct PathComponents {
            let name: String
            let id: String
        }

        let pathComponents: PathComponents
    }

    struct JSONProviderEndpoint: Endpoint {
        typealias Server = TestServer

        static let definition: Definition<JSONProviderEndpoint> = Definition(
            method: .get,
            path: "user/\(path: \.name)/\(path: \.id)/profile"
        )

        struct Response: Decodable {
            let responseOne: String
        }

        struct Body: Encodable {
            let bodyValueOne: String
        }

        struct PathComponents {
            let name: String
            let id: String
        }

        let body: Body
        let pathComponents: PathComponents

        static let responseDecoder: JSONDecoder = {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return decoder
        }()

        static let bodyEncoder: JSONEncoder = {
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            return encoder
        }()
    }

    struct PostEndpoint1: Endpoint {
        typealias Server = TestServer

        static let definition: Definition<PostEndpoint1> = Definition(
            method: .post,
            path: "path"
        )

        typealias Response = Void

        struct Body: Encodable {
            let property1: Date
            let property2: Int?
        }

        static let bodyEncoder: JSONEncoder = {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            return encoder
        }()

        let body: Body
    }

    struct PostEndpoint2: Endpoint {
        typealias Server = TestServer

        static let definition: Definition<PostEndpoint2> = Definition(
            method: .post,
            path: "path"
        )

        typealias Response = Void

        struct Body: Encodable {
            let property1: String
            let property2: Int?
        }

        let body: Body
    }

    struct MultipartUploadEndpoint: Endpoint {
        typealias Server = TestServer

        static let definition: Definition<MultipartUploadEndpoint> = Definition(
            method: .post,
            path: "upload"
        )

        typealias Response = Void

        struct Body: Encodable {
            let description: String
            let file: MultipartFormFile
            let tags: [String]
            let metadata: MultipartFormJSON<Metadata>

            struct Metadata: Encodable {
                let owner: String
                let priority: Int
            }
        }

        static var bodyEncoder: MultipartFormEncoder {
            MultipartFormEncoder()
        }

        let body: Body
    }

    struct CustomEncodingEndpoint: Endpoint {
        typealias Server = TestServer

        static let definition: Definition<CustomEncodingEndpoint> = Definition(
            method: .get,
            path: "/",
            parameters: [
                .query("key", path: \.needsCustomEncoding)
            ]
        )

        struct ParameterComponents {
            let needsCustomEncoding: String
        }

        typealias Response = Void

        let parameterComponents: ParameterComponents

        static var queryEncodingStrategy: QueryEncodingStrategy {
            .custom {
                var characterSet = CharacterSet.urlQueryAllowed
                characterSet.remove(charactersIn: "+")
                return ($0.name, $0.value?.addingPercentEncoding(withAllowedCharacters: characterSet))
            }
        }
    }

    struct UserEndpoint: Endpoint {
        typealias Server = TestServer

        static let definition: Definition<UserEndpoint> = Definition(
            method: .get,
            path: "hey" + \.userId,
            parameters: [
                .form("string", path: \.string),
                .form("date", path: \.date),
                .form("double", path: \.double),
                .form("int", path: \.int),
                .form("bool_true", path: \.boolTrue),
                .form("bool_false", path: \.boolFalse),
                .form("time_zone", path: \.timeZone),
                .form("optional_string", path: \.optionalString),
                .form("optional_date", path: \.optionalDate),
                .formValue("hard_coded_form", value: "true"),
                .query("string", path: \.string),
                .query("optional_string", path: \.optionalString),
                .query("optional_date", path: \.optionalDate),
                .queryValue("hard_coded_query", value: "true"),
            ],
            headers: [
                "HEADER_TYPE": .field(path: \.headerValue),
                "HARD_CODED_HEADER": .fieldValue(value: "test2"),
                .keepAlive: .fieldValue(value: "timeout=5, max=1000"),
            ]
        )

        static var queryEncodingStrategy: QueryEncodingStrategy {
            .custom {
                var characterSet = CharacterSet.urlQueryAllowed
                characterSet.remove(charactersIn: "+")
                return ($0.name, $0.value?.addingPercentEncoding(withAllowedCharacters: characterSet))
            }
        }

        typealias Response = Void

        struct PathComponents {
            let userId: String
        }

        struct ParameterComponents {
            let string: String
            let date: Date
            let double: Double
            let int: Int
            let boolTrue: Bool
            let boolFalse: Bool
            let timeZone: TimeZone

            let optionalString: String?
            let optionalDate: String?
        }

        struct HeaderComponents {
            let headerValue: String
        }

        let pathComponents: PathComponents
        let parameterComponents: ParameterComponents
        let headerComponents: HeaderComponents
    }
}
