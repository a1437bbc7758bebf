import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `URLProtocol` behind ``FakeHTTPTransport/makeSession(configuration:)``: one class per fake,
/// found through ``FakeSessionRoutes``. It reads the body from `httpBodyStream` when that is how
/// it arrives (always, on Apple platforms).
final class FakeURLProtocol<Slot: FakeSlot>: URLProtocol {
    private let loading = Locked<Task<Void, Never>?>(nil)

    override class func canInit(with request: URLRequest) -> Bool { true }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        let client = ProtocolClient(protocol: self, client: client)
        let request = FakeHTTPRequest(request)
        guard let fake = FakeSessionRoutes.fake(for: Slot.number) else {
            client.fail(URLError(.cannotConnectToHost))
            return
        }
        let task = Task {
            do {
                let (data, response) = try await fake.respond(to: request)
                client.finish(response: response, data: data)
            } catch let error as URLError {
                client.fail(error)
            } catch {
                client.fail(
                    URLError(.resourceUnavailable, userInfo: [NSLocalizedDescriptionKey: String(describing: error)])
                )
            }
        }
        loading.withLock { $0 = task }
    }

    override func stopLoading() {
        loading.withLock { $0 }?.cancel()
    }
}

/// Carries a protocol and its client into the task that answers the request.
private struct ProtocolClient: @unchecked Sendable {
    // @unchecked Sendable: no lock is needed because nothing here is mutated — the task only calls
    // the client, once per request, and `URLProtocolClient` accepts calls from any thread.
    let `protocol`: URLProtocol
    let client: (any URLProtocolClient)?

    func finish(response: HTTPURLResponse, data: Data) {
        client?.urlProtocol(`protocol`, didReceive: response, cacheStoragePolicy: .notAllowed)
        if !data.isEmpty { client?.urlProtocol(`protocol`, didLoad: data) }
        client?.urlProtocolDidFinishLoading(`protocol`)
    }

    func fail(_ error: URLError) {
        client?.urlProtocol(`protocol`, didFailWithError: error)
    }
}
