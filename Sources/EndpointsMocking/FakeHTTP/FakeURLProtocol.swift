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
        let client = ProtocolClient(protocol: self, client: client, thread: ClientThread.current())
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

/// Carries a protocol and its client into the task that answers the request, and calls the
/// client where the URL loading system expects it.
///
/// Apple's rule for `URLProtocol` subclasses: call the client on the thread that called
/// `startLoading()`, in the run loop mode that thread was running then (the "client thread" of
/// Apple's CustomHTTPProtocol sample; URLSession's loader thread expects its callbacks there).
/// On Apple platforms every call therefore hops back to that thread through its run loop. Linux's
/// FoundationNetworking calls `startLoading()` from a dispatch queue with no run loop and its
/// client dispatches each call onto the task's own queue, so there the calls are made directly.
private struct ProtocolClient: @unchecked Sendable {
    // @unchecked Sendable: no lock is needed because nothing here is mutated — the task only calls
    // the client, once per request, on the client thread (Apple) or from the task (Linux, whose
    // client accepts calls from any thread).
    let `protocol`: URLProtocol
    let client: (any URLProtocolClient)?
    let thread: ClientThread

    func finish(response: HTTPURLResponse, data: Data) {
        thread.perform { [self] in
            client?.urlProtocol(`protocol`, didReceive: response, cacheStoragePolicy: .notAllowed)
            if !data.isEmpty { client?.urlProtocol(`protocol`, didLoad: data) }
            client?.urlProtocolDidFinishLoading(`protocol`)
        }
    }

    func fail(_ error: URLError) {
        thread.perform { [self] in client?.urlProtocol(`protocol`, didFailWithError: error) }
    }
}

#if canImport(Darwin)
    /// The thread that called `startLoading()` and the run loop mode it was running.
    private struct ClientThread {
        let thread: Thread
        let modes: [String]

        static func current() -> ClientThread {
            ClientThread(thread: .current, modes: [(RunLoop.current.currentMode ?? .default).rawValue])
        }

        /// Runs `body` on the client thread, in its mode, without waiting for it.
        func perform(_ body: @escaping () -> Void) {
            let call = ClientCall(body)
            call.perform(#selector(ClientCall.run), on: thread, with: nil, waitUntilDone: false, modes: modes)
        }
    }

    /// An Objective-C selector target for `perform(_:on:with:waitUntilDone:modes:)`.
    private final class ClientCall: NSObject {
        private let body: () -> Void

        init(_ body: @escaping () -> Void) {
            self.body = body
        }

        @objc func run() { body() }
    }
#else
    /// On Linux the client is called directly (see ``ProtocolClient``).
    private struct ClientThread {
        static func current() -> ClientThread { ClientThread() }

        func perform(_ body: () -> Void) { body() }
    }
#endif
