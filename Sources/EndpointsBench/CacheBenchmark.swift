import Endpoints
import EndpointsTestServer
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// HTTPCache: a fresh hit against a loopback round trip without the cache (the same client and
// request), the transport calls the hits made, and 100 identical concurrent GETs with coalescing.

enum CacheBenchmark {
    /// Counts the requests that reach the real transport.
    struct CountingTransport: HTTPTransport {
        let inner: URLSessionTransport
        let calls = Counter()

        func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
            calls.add()
            return try await inner.send(request, context: context)
        }
    }

    /// A call counter (one helper: the benchmark's ``Mutex``).
    final class Counter: Sendable {
        private let value = Mutex(0)
        func add() { value.withLock { $0 += 1 } }
        var count: Int { value.withLock { $0 } }
    }

    static func run(hits: Int = 20_000, trips: Int = 2_000) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let body = Data(EndToEndBenchmark.payload.utf8)
        server.route("/item") { _ in
            TestServer.Response(status: 200, headers: [(name: "Cache-Control", value: "max-age=3600")], body: body)
        }
        server.route("/slow") { _ in
            try? await Task.sleep(nanoseconds: 50_000_000)
            return TestServer.Response(status: 200, headers: [(name: "Cache-Control", value: "no-store")], body: body)
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration)
        let transport = CountingTransport(inner: URLSessionTransport(session: session))
        let request = Request<Data>.get(RequestTarget(server.url("/item").absoluteString))
        let plain = EndpointClient(transport: transport)
        let cached = EndpointClient(transport: transport, middleware: [HTTPCache()])
        _ = try await cached.response(for: request)  // stored
        for _ in 0..<200 { _ = try await plain.response(for: request) }  // connections warm

        var tripTimes: [Double] = []
        var hitTimes: [Double] = []
        var hitCalls = 0
        for _ in 0..<3 {
            var start = ProcessInfo.processInfo.systemUptime
            for _ in 0..<trips { _ = try await plain.response(for: request) }
            tripTimes.append((ProcessInfo.processInfo.systemUptime - start) / Double(trips))
            let before = transport.calls.count
            start = ProcessInfo.processInfo.systemUptime
            for _ in 0..<hits { _ = try await cached.response(for: request) }
            hitTimes.append((ProcessInfo.processInfo.systemUptime - start) / Double(hits))
            hitCalls += transport.calls.count - before
        }
        let trip = tripTimes.sorted()[1]
        let hit = hitTimes.sorted()[1]
        print("== cache")
        print(String(format: "loopback round trip     %8.1f µs/request (median of 3 × %d)", trip * 1e6, trips))
        print(String(format: "fresh hit               %8.1f µs/request (median of 3 × %d)", hit * 1e6, hits))
        print(String(format: "hit / round trip        %8.3f (must be ≤ 0.050)", hit / trip))
        print("transport calls by hits \(hitCalls)")

        let coalescing = EndpointClient(transport: transport, middleware: [HTTPCache(coalescing: true)])
        let slow = Request<Data>.get(RequestTarget(server.url("/slow").absoluteString))
        let before = transport.calls.count
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<100 { group.addTask { _ = try await coalescing.response(for: slow) } }
            try await group.waitForAll()
        }
        print("100 concurrent GETs, coalescing: \(transport.calls.count - before) transport call(s)")
    }
}
