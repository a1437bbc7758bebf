import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Combine)
    import Combine
#endif

// Seed 003 (SwiftyNetworking's Agify.io example) in our API: the endpoint as a `Request` value with
// a result-built query, called with static-member dot syntax, async, with a completion handler and
// with Combine. The samples name api.agify.io; `withLoopback` sends them to a local TestServer.

struct Person: Decodable, Sendable {
    let name: String
    let age: Int
    let count: Int
}

extension Request where Response == Person {
    static func estimatedAge(forName personName: String) -> Self {
        .get("https://api.agify.io/") {
            URLQueryItem(name: "name", value: "\(personName)")
            Header.accept.value("application/json")
        }
    }
}

/// A server that answers `/` as Agify.io does.
func agifyServer() throws -> TestServer {
    let server = try TestServer()
    server.route("/") { request in
        struct Answer: Encodable, Sendable {
            let name: String
            let age: Int
            let count: Int
        }
        guard let name = request.queryValue("name") else {
            return .json(["error": "Missing 'name' parameter"], status: 422)
        }
        return .json(Answer(name: name, age: 34, count: 40138))
    }
    return server
}

@Suite struct Seed003Samples {
    @Test func asyncAwait() async throws {
        let server = try agifyServer()
        defer { server.stop() }
        try await withLoopback(to: server) {
            let person = try await URLSession.shared.response(for: .estimatedAge(forName: "Zaid"))
            #expect("\(person.name) is probably \(person.age) years old." == "Zaid is probably 34 years old.")
        }
        let sent = try #require(server.requests.last)
        #expect(sent.method == "GET")
        #expect(sent.rawPath == "/")
        #expect(sent.rawQuery == "name=Zaid")
        #expect(sent.header("Accept") == "application/json")
    }

    @Test func completionHandler() async throws {
        let server = try agifyServer()
        defer { server.stop() }
        let sentence = try await withLoopback(to: server) {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
                do {
                    let task = try URLSession.shared.endpointTask(for: .estimatedAge(forName: "Zaid")) { result in
                        do {
                            let person = try result.get()
                            continuation.resume(returning: "\(person.name) is probably \(person.age) years old.")
                        } catch {
                            // Handle errors
                            continuation.resume(throwing: error)
                        }
                    }
                    task.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        #expect(sentence == "Zaid is probably 34 years old.")
    }

    #if canImport(Combine)
        @Test func combine() async throws {
            let server = try agifyServer()
            defer { server.stop() }
            let received = TestLocked<[String]>([])
            let finished = TestLocked<Bool>(false)
            // Kept until the publisher finishes: releasing an AnyCancellable cancels its request.
            let kept = TestLocked<AnyCancellable?>(nil)
            try await withLoopback(to: server) {
                try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
                    let subscription: AnyCancellable = URLSession.shared.endpointPublisher(
                        for: .estimatedAge(forName: "Zaid")
                    )
                    .sink { completion in
                        // Handle errors
                        finished.withLock { $0 = true }
                        if case .failure(let error) = completion { done.resume(throwing: error) } else { done.resume() }
                    } receiveValue: { person in
                        received.withLock { $0.append("\(person.name) is probably \(person.age) years old.") }
                    }
                    kept.withLock { $0 = subscription }
                }
            }
            kept.withLock { $0 = nil }
            #expect(received.withLock { $0 } == ["Zaid is probably 34 years old."])
            #expect(finished.withLock { $0 })
        }
    #endif

    @Test func theRequestValueIsInspectable() throws {
        let request = try Request.estimatedAge(forName: "Zaid Ø").urlRequest()
        #expect(request.url?.absoluteString == "https://api.agify.io/?name=Zaid%20%C3%98")
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json")
    }
}
