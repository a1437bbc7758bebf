import Endpoints
import EndpointsMocking
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `GET /ticks`: each streamed value decodes as a tick.
struct TicksEndpoint: Endpoint {
    typealias Server = ApiServer
    typealias ErrorResponse = APIError
    struct Response: Codable, Equatable, Sendable { let n: Int }

    static let definition: Definition<TicksEndpoint> = Definition(path: "ticks")
}

/// `GET /raw-ticks`, the body as `Data`, for mocking a raw stream.
struct RawTicksEndpoint: Endpoint {
    typealias Server = ApiServer
    typealias Response = Data

    static let definition: Definition<RawTicksEndpoint> = Definition(path: "raw-ticks")
}

@Suite struct StreamingFakeTests {
    @Test func theFakeTransportStreamsEventsWithPauses() async throws {
        let fake = FakeHTTPTransport()
        let events = (1...3).map { ServerSentEvent(type: "tick", data: #"{"n":\#($0)}"#, id: "\($0)") }
        fake.register(.get, "/ticks", .events(events, pause: 0.01))
        let received = try await withFakeTransport(fake) {
            var received: [ServerSentEvent] = []
            for try await event in try await URLSession.shared.bytes(for: TicksEndpoint()).events {
                received.append(event)
            }
            return received
        }
        #expect(received == events)
    }

    @Test func theFakeTransportStreamsJSONLinesThenFails() async throws {
        let fake = FakeHTTPTransport()
        fake.register(
            .get, "/ticks",
            .lines([TicksEndpoint.Response(n: 1), .init(n: 2)], failure: URLError(.networkConnectionLost)))
        await withFakeTransport(fake) {
            var values: [Int] = []
            let error = await #expect(throws: TicksEndpoint.TaskError.self) {
                for try await value in try await URLSession.shared.bytes(for: TicksEndpoint()).lines {
                    values.append(value.n)
                }
            }
            #expect(values == [1, 2])
            guard case .urlLoadError(let urlError) = error else {
                Issue.record("expected .urlLoadError, got \(String(describing: error))")
                return
            }
            #expect(urlError.code == .networkConnectionLost)
        }
    }

    @Test func everySplitOfTheStreamGivesTheSameValues() async throws {
        let text = "data: {\"n\":1}\r\n\r\n: keep-alive\n\ndata: {\"n\":\r\ndata: 2}\n\n"
        let bytes = Array(text.utf8)
        for split in 0...bytes.count {
            let fake = FakeHTTPTransport()
            fake.register(.get, "/ticks", .streamed([Data(bytes[..<split]), Data(bytes[split...])]))
            let values = try await withFakeTransport(fake) {
                var values: [Int] = []
                for try await value in try await URLSession.shared.bytes(for: TicksEndpoint()).events.values {
                    values.append(value.n)
                }
                return values
            }
            #expect(values == [1, 2], "split at \(split)")
        }
    }

    @Test func aBufferedCallGetsAStreamedResponseWhole() async throws {
        let fake = FakeHTTPTransport()
        fake.register(.get, "/raw-ticks", .streamed([Data("a".utf8), Data("b".utf8)], pause: 0.01))
        let data = try await withFakeTransport(fake) { try await URLSession.shared.response(with: RawTicksEndpoint()) }
        #expect(data == Data("ab".utf8))
    }

    @Test func aTypedMockAnswersAStreamOfOneValue() async throws {
        let values = try await withMock(TicksEndpoint.self, action: .return(.init(n: 9))) {
            var values: [Int] = []
            for try await value in try await URLSession.shared.bytes(for: TicksEndpoint()).lines {
                values.append(value.n)
            }
            return values
        }
        #expect(values == [9])
    }

    @Test func aDataMockIsParsedAsAnEventStream() async throws {
        let body = Data("data: one\n\ndata: two\n\n".utf8)
        let events = try await withMock(RawTicksEndpoint.self, action: .return(body)) {
            var events: [String] = []
            for try await event in try await URLSession.shared.bytes(for: RawTicksEndpoint()).events {
                events.append(event.data)
            }
            return events
        }
        #expect(events == ["one", "two"])
    }

    @Test func aMockedReconnectingStreamIsDeliveredOnce() async throws {
        let body = Data("id: 1\ndata: one\n\ndata: two\n\n".utf8)
        let events = try await withMock(RawTicksEndpoint.self, action: .return(body)) {
            var events: [String] = []
            for try await event in try await URLSession.shared.bytes(for: RawTicksEndpoint()).events.reconnecting() {
                events.append(event.data)
            }
            return events
        }
        #expect(events == ["one", "two"])
    }
}

/// A typed mock answers a resumable download too: its `Data` is written whole, whatever was kept
/// (a mock has no validator, so nothing is kept for it).
@Suite struct MockedResumableDownloadTests {
    @Test func aMockedResumableDownloadIsWrittenWhole() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mock-resume-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("ticks.bin")
        // Kept bytes and a record of another URL, as an earlier attempt would leave them.
        try Data(repeating: 1, count: 10).write(to: directory.appendingPathComponent(".ticks.bin.partial"))
        try Data(#"{"url":"0","validator":"\"v1\""}"#.utf8).write(
            to: directory.appendingPathComponent(".ticks.bin.partial.json"))
        let body = Data("mocked body".utf8)
        try await withMock(RawTicksEndpoint.self, action: .return(body)) {
            try await URLSession.shared.download(RawTicksEndpoint(), to: destination, resumable: true)
        }
        #expect(try Data(contentsOf: destination) == body)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["ticks.bin"])
    }
}
