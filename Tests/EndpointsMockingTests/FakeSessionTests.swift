import Endpoints
import EndpointsMocking
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct FakeSessionTests {
    @Test func aSessionFromTheFakeAnswersPlainDataTasks() async throws {
        let fake = FakeHTTPTransport()
        fake.register(.post, "/echo") { request in
            .text(
                "got \(String(decoding: request.body, as: UTF8.self))", status: 201, headers: ["X-Seen": request.method]
            )
        }
        let session = fake.makeSession()
        var request = URLRequest(url: URL(string: "https://api.example.com/echo")!)
        request.httpMethod = "POST"
        request.httpBody = Data("hello".utf8)
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        #expect(String(decoding: data, as: UTF8.self) == "got hello")
        #expect(http.statusCode == 201)
        #expect(http.value(forHTTPHeaderField: "X-Seen") == "POST")
        #expect(fake.requests.first?.body == Data("hello".utf8))
        #expect(fake.requests.first?.context == nil)
    }

    @Test func aStreamedBodyReachesTheHandler() async throws {
        let fake = FakeHTTPTransport()
        fake.register(.put, "/upload") { request in .text("\(request.body.count)") }
        var request = URLRequest(url: URL(string: "https://api.example.com/upload")!)
        request.httpMethod = "PUT"
        let payload = Data(repeating: 7, count: 40_000)
        request.httpBodyStream = InputStream(data: payload)
        let (data, _) = try await fake.makeSession().data(for: request)
        #expect(String(decoding: data, as: UTF8.self) == "40000")
        #expect(fake.requests.first?.body == payload)
    }

    @Test func theEndpointPipelineRunsOverTheFakesSession() async throws {
        let fake = FakeHTTPTransport()
        fake.register(.get, "/users/5", .json(UserEndpoint.Response(id: 5, name: "over a session")))
        fake.register(.get, "/users/6", .json(APIError(code: 418, message: "teapot"), status: 418))
        let session = fake.makeSession()
        let user = try await session.response(with: UserEndpoint(id: 5))
        #expect(user.name == "over a session")
        await #expect {
            _ = try await session.response(with: UserEndpoint(id: 6))
        } throws: { error in
            guard case .errorResponse(let http, let body) = error as? UserEndpoint.TaskError else { return false }
            return http.statusCode == 418 && body.message == "teapot"
        }
    }

    @Test func anUnmatchedRequestFailsInsteadOfReachingTheNetwork() async throws {
        let fake = FakeHTTPTransport()
        let session = fake.makeSession()
        await #expect(throws: UserEndpoint.TaskError.self) {
            _ = try await session.response(with: UserEndpoint(id: 1))
        }
        #expect(fake.requests.map(\.path) == ["/users/1"])
    }

    @Test func sessionsOfDifferentFakesNeverCross() async throws {
        let fakes = (0..<8).map { index in
            let fake = FakeHTTPTransport()
            fake.register(.get, "/value", .json(["value": "fake \(index)"]))
            return fake
        }
        let sessions = fakes.map { $0.makeSession() }
        let values = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (index, session) in sessions.enumerated() {
                group.addTask { (index, try await session.response(with: ValueEndpoint("q")).value) }
            }
            var values: [Int: String] = [:]
            for try await (index, value) in group { values[index] = value }
            return values
        }
        #expect(values == Dictionary(uniqueKeysWithValues: (0..<8).map { ($0, "fake \($0)") }))
        #expect(fakes.map(\.requests.count) == Array(repeating: 1, count: 8))
    }

    @Test func completionHandlerTasksOverTheFakesSession() async throws {
        let fake = FakeHTTPTransport()
        fake.register(.get, "/path/to/resource", .json(raw: #"{"resourceId": "s", "resourceName": "session"}"#))
        let session = fake.makeSession()
        let result = await withCheckedContinuation { continuation in
            try! session.endpointTask(with: MyEndpoint()) { continuation.resume(returning: $0) }.resume()
        }
        #expect(try result.get().resourceName == "session")
    }
}
