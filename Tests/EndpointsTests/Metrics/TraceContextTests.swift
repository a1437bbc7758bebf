import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `TraceContextMiddleware` over loopback: what the server receives.
@Suite struct TraceContextTests {
    /// The trace id, span id and flags of a well-formed version-00 `traceparent`.
    private static func parse(_ header: String) -> (trace: String, span: String, flags: String)? {
        let parts = header.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        let hex = Set("0123456789abcdef")
        guard parts.count == 4, parts[0] == "00", parts[1].count == 32, parts[2].count == 16,
            parts[3] == "00" || parts[3] == "01", (parts[1] + parts[2]).allSatisfy(hex.contains)
        else { return nil }
        return (parts[1], parts[2], parts[3])
    }

    private func traceparents(
        _ middleware: TraceContextMiddleware, retried: Bool = false, requests: Int = 1
    ) async throws -> [(String, String?)] {
        let server = try TestServer()
        defer { server.stop() }
        let calls = TestLocked(0)
        server.route("/traced") { _ in
            let call = calls.withLock {
                $0 += 1
                return $0
            }
            return retried && call == 1
                ? .json(raw: #"{"code":503,"message":"busy"}"#, status: 503) : echoJSON("/traced")
        }
        let retry = RetryMiddleware(initialDelay: 0, maximumDelay: 0, clock: TestClock())
        let client = EndpointClient(session: makeMiddlewareTestSession(), middleware: [retry, middleware])
        for _ in 0..<requests {
            _ = try await Loopback.$baseURL.withValue(server.baseURL) {
                try await client.response(with: EchoEndpoint("traced"))
            }
        }
        return server.requests.map { ($0.header("traceparent") ?? "", $0.header("tracestate")) }
    }

    @Test func aNewTraceForEachRequestAndANewSpanForEachAttempt() async throws {
        let sent = try await traceparents(TraceContextMiddleware(), retried: true, requests: 2)
        #expect(sent.count == 3)
        let parsed = try sent.map { header, _ in try #require(Self.parse(header)) }
        #expect(parsed.allSatisfy { $0.flags == "01" })
        #expect(parsed[0].trace == parsed[1].trace, "a retry stays in its request's trace")
        #expect(parsed[0].span != parsed[1].span, "each attempt is a span of its own")
        #expect(parsed[2].trace != parsed[0].trace, "another request starts another trace")
        #expect(sent.allSatisfy { $0.1 == nil })
    }

    @Test func aValidParentAndStateAreJoined() async throws {
        let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let sent = try await traceparents(
            TraceContextMiddleware(sampled: false, parent: parent, tracestate: "vendor=abc,other=1"))
        let match = try #require(sent.first.flatMap { Self.parse($0.0) })
        #expect(match.trace == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(match.span != "00f067aa0ba902b7")
        #expect(match.flags == "00")
        #expect(sent.first?.1 == "vendor=abc,other=1")
    }

    @Test(arguments: [
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\nX-Evil: 1",
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        "garbage",
    ])
    func anInvalidParentStartsANewTrace(parent: String) async throws {
        let sent = try await traceparents(TraceContextMiddleware(parent: parent, tracestate: "a=1\r\nX-Evil: 2"))
        let match = try #require(sent.first.flatMap { Self.parse($0.0) })
        #expect(match.trace != "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(match.trace != "00000000000000000000000000000000")
        #expect(sent.first?.1 == nil, "an invalid tracestate is not sent")
    }
}
