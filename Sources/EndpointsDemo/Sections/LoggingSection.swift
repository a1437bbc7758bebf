import Endpoints

/// A redacted log line and its cURL: the password in the body and the tokens in the response
/// never reach the log, and the cURL command is redacted the same way.
enum LoggingSection {
    static func run(_ tour: Tour) async throws {
        let say = tour.transcript
        say.section("A redacted log line and its cURL")
        let login = Login(body: .init(username: "ada", password: DemoService.password))
        let logging = LoggingMiddleware(level: .bodies, sink: { say.note($0) })
        _ = try await URLSession.shared.response(with: login, environment: tour.production, middleware: [logging])
        let request = try login.urlRequest(environment: tour.production)
        say.line("the same request as cURL (request.cURLDescription()):")
        for line in request.cURLDescription().split(separator: "\n") {
            say.note(String(line))
        }
    }
}
