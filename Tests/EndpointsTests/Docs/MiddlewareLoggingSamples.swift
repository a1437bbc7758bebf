import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(os)
    import os
#endif

// The logging and cURL samples of Endpoints.docc/MiddlewareGuide.md, as written there.

enum MiddlewareLoggerSample {
    #if canImport(os)
        typealias Logger = os.Logger
    #else
        /// A stand-in for `os.Logger` where there is none: the same call shape, and it keeps the
        /// messages so the test can read them.
        final class Logger: Sendable {
            enum Privacy: Sendable { case `public`, `private` }

            struct Message: ExpressibleByStringInterpolation {
                struct StringInterpolation: StringInterpolationProtocol {
                    var text = ""
                    init(literalCapacity: Int, interpolationCount: Int) {}
                    mutating func appendLiteral(_ literal: String) { text += literal }
                    mutating func appendInterpolation(_ value: String, privacy: Privacy) { text += value }
                }

                let text: String
                init(stringLiteral value: String) { text = value }
                init(stringInterpolation: StringInterpolation) { text = stringInterpolation.text }
            }

            let subsystem: String
            let category: String
            private let lines = TestLocked([String]())

            init(subsystem: String, category: String) {
                self.subsystem = subsystem
                self.category = category
            }

            var messages: [String] { lines.withLock { $0 } }

            func debug(_ message: Message) { lines.withLock { $0.append(message.text) } }
        }
    #endif

    struct ApiServer: ServerDefinition {
        var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com")!] }
    }

    struct ProfileEndpoint: Endpoint {
        typealias Server = ApiServer
        static let definition: Definition<ProfileEndpoint> = Definition(
            method: .get,
            path: "profile",
            headers: [Header.authorization.value("Bearer sample-token-123")]
        )
        struct Response: Decodable { let name: String }
    }

    /// Sends the profile through the sample's logging middleware and returns the logger.
    static func logProfile() async throws -> Logger {
        let logger = Logger(subsystem: "com.example.app", category: "network")
        let middleware = LoggingMiddleware(level: .headers) { logger.debug("\($0, privacy: .public)") }
        _ = try await URLSession.shared.response(with: ProfileEndpoint(), middleware: [middleware])
        return logger
    }

    /// The cURL sample; `print` is whatever the caller passes, so the test can read the lines.
    static func curl(print: (String) -> Void) throws {
        let request = try ProfileEndpoint().urlRequest()
        print(request.cURLDescription())  // safe to paste in a ticket
        print(request.cURLDescription(redaction: .disabled))  // sends the real credentials
    }
}

@Suite struct MiddlewareLoggingSampleTests {
    typealias Sample = MiddlewareLoggerSample

    @Test func loggingGoesToTheLogger() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/profile") { _ in .json(["name": "Ada"]) }
        let logger = try await withLoopback(to: server) { try await Sample.logProfile() }
        #expect(server.requestCount == 1)
        #if !canImport(os)
            let text = logger.messages.joined(separator: "\n")
            #expect(text.contains("GET https://api.example.com/profile"))
            #expect(text.contains("200"))
            #expect(text.contains("<redacted>"))
            #expect(!text.contains("sample-token-123"))
        #else
            _ = logger
        #endif
    }

    @Test func cURLIsRedactedUnlessDisabled() throws {
        var lines: [String] = []
        try Sample.curl { lines.append($0) }
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.hasPrefix("curl ") && $0.contains("https://api.example.com/profile") })
        #expect(lines.first?.contains("sample-token-123") == false)
        #expect(lines.first?.contains("<redacted>") == true)
        #expect(lines.last?.contains("Bearer sample-token-123") == true)
    }
}
