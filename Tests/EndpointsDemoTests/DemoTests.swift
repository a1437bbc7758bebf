import Testing

@testable import EndpointsDemo

/// The README's first command, `swift run endpoints-demo`, runs this: it must report a typed
/// response, a typed error body and a per-request environment, each from a real loopback call.
@Suite struct DemoTests {
    @Test func theDemoReportsEachCall() async throws {
        var lines: [String] = []
        try await Demo.run { lines.append($0) }
        let report = lines.joined(separator: "\n")
        #expect(report.contains(#"1. GET users/42 → typed response: User(id: 42, name: "User 42 from production")"#))
        #expect(report.contains(#"2. POST users {"name":"Ada"} → typed response: User(id: 7, name: "Ada")"#))
        #expect(report.contains(#"typed error body, status 404: ApiError(code: 404, message: "no such user"#))
        #expect(report.contains(#"per-request environment (staging) → User(id: 42, name: "User 42 from staging")"#))
        #expect(report.contains("(unchanged)"))
        #expect(report.contains("/files/..%2Fetc%2Fpasswd"))
        #expect(report.contains("refused before sending"))
    }
}
