import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Spellings that a smaller surface replaced, kept as deprecated forwarders in
// Compatibility/Streaming+Cuts.swift: each still compiles (with a warning) and reads as before.
@Suite struct StreamingCutsTests {
    @available(*, deprecated)
    @Test func theNamedDefaultReconnectionIsTheDefaultPolicy() {
        #expect(EventStreamReconnection.default == EventStreamReconnection())
    }

    @available(*, deprecated)
    @Test func aGiveUpReportStillReadsFieldByField() throws {
        let url = try #require(URL(string: "https://api.example.com/feed"))
        let response = try #require(
            HTTPURLResponse(url: url, statusCode: 503, httpVersion: "HTTP/1.1", headerFields: [:]))
        let answered = RetryExhausted(
            attempts: 3, reason: .budget, outcome: .success((Data("busy".utf8), response)))
        #expect(answered.response?.statusCode == 503)
        #expect(answered.data == Data("busy".utf8))
        #expect(answered.underlyingError == nil)
        let failed = RetryExhausted(attempts: 4, reason: .maximumAttempts, outcome: .failure(URLError(.timedOut)))
        #expect((failed.underlyingError as? URLError)?.code == .timedOut)
        #expect(failed.response == nil && failed.data == nil)
        #expect(
            failed.description
                == "Gave up after 4 attempts because the maximum number of attempts was reached; the last was URLError -1001."
        )
    }

    @available(*, deprecated)
    @Test func aTooLargeBodysErrorStillNamesItsLimit() async throws {
        let error = await #expect(throws: ResponseBodyTooLarge.self) {
            _ = try await ResponseBody(Data(count: 10)).collect(upTo: 4)
        }
        #expect(error?.limit == 4)
        #expect(error.map { "\($0)" } == "ResponseBodyTooLarge(maximumBytes: 4)")
    }
}
