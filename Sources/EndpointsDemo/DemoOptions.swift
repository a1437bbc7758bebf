import Endpoints

/// The command line: `endpoints-demo [--base-url URL] [--log-level off|basic|headers|bodies]`.
struct DemoOptions: Sendable {
    /// The server to tour instead of the embedded one; it must answer the routes of `DemoService`.
    var baseURL: URL?
    /// How much the `LoggingMiddleware` on every request writes into the transcript.
    var logLevel: LogLevel = .off
    /// How long the embedded service's access tokens live.
    var tokenLifetime: TimeInterval = 3

    static let usage = "usage: endpoints-demo [--base-url URL] [--log-level off|basic|headers|bodies]"

    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    init() {}

    /// Parses `arguments` (without the program name).
    init(arguments: [String]) throws(Invalid) {
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            switch flag {
            case "--base-url":
                guard let text = remaining.popFirst(), let url = URL(string: text), url.scheme != nil else {
                    throw Invalid(description: "--base-url needs an absolute URL\n\(Self.usage)")
                }
                baseURL = url
            case "--log-level":
                let names = LogLevel.allCases.map { "\($0)" }
                guard let text = remaining.popFirst(), let level = LogLevel.allCases.first(where: { "\($0)" == text })
                else {
                    throw Invalid(description: "--log-level is one of \(names.joined(separator: ", "))\n\(Self.usage)")
                }
                logLevel = level
            case "--help", "-h":
                throw Invalid(description: Self.usage)
            default:
                throw Invalid(description: "unknown argument \(flag)\n\(Self.usage)")
            }
        }
    }
}
