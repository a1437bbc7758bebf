import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// How the libcurl transport keeps its connections.
    @Suite struct CurlConnectionTests {
        /// A burst that drains keeps its connections for the next one. libcurl's own default keeps
        /// four per transfer running at the moment, so as the last transfers of a burst ended it
        /// closed the connections the others had handed back, and the next burst connected again.
        @Test func aBurstThatDrainedKeepsItsConnectionsForTheNext() async throws {
            let server = try TestServer()
            defer { server.stop() }
            let burst = 16
            // libcurl closes a connection handed back while it holds more than four per transfer
            // still running: the burst ends staggered, all but `last` first, then those.
            let last = 3
            // Every request of a burst waits for the others, so each burst needs `burst`
            // connections whatever the machine's speed.
            let barrier = Barrier(size: burst)
            // A gate of its own for each burst (`Gate` opens once).
            let lastGo = Shared(Gate())
            server.route("/together") { _ in
                await barrier.arrive()
                return .json(raw: "{}")
            }
            server.route("/last") { _ in
                await barrier.arrive()
                await lastGo.value.wait()
                return .json(raw: "{}")
            }
            let client = EndpointClient(transport: try CurlTransport(maximumRequestsPerHost: burst))
            func sendBurst() async throws {
                let gate = Gate()
                lastGo.value = gate
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<last {
                        group.addTask { _ = try await client.response(with: Last()) }
                    }
                    try await withThrowingTaskGroup(of: Void.self) { first in
                        for _ in 0..<(burst - last) {
                            first.addTask { _ = try await client.response(with: Together()) }
                        }
                        try await first.waitForAll()
                    }
                    await gate.open()
                    try await group.waitForAll()
                }
            }
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await sendBurst()
                let opened = server.connectionCount
                #expect(opened == burst)
                // Without the fix each burst that drains closes `last` connections: 28 after five.
                for _ in 0..<4 {
                    try await sendBurst()
                }
                #expect(server.connectionCount == opened, "a later burst connected again")
            }
        }

        /// The loop's thread is named for what it is, in `top -H`, `perf` and a debugger. Its name
        /// was set before `start()`, which corelibs drops, so it carried its creator's name (a
        /// dispatch worker's, "com.apple.root.default-qos" cut to 15 bytes).
        @Test func theLoopThreadIsNamed() async throws {
            let server = try TestServer()
            defer { server.stop() }
            server.route("/together") { _ in .json(raw: "{}") }
            let transport = try CurlTransport()
            let client = EndpointClient(transport: transport)
            try await Loopback.$baseURL.withValue(server.baseURL) {
                _ = try await client.response(with: Together())
            }
            // The thread runs while its transport exists.
            let names = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").compactMap {
                try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8)
            }
            #expect(names.contains("Endpoints curl\n"))
            withExtendedLifetime(transport) {}
        }
    }

    /// Holds each arrival until `size` have arrived, then lets that group go.
    private actor Barrier {
        let size: Int
        private var waiting: [CheckedContinuation<Void, Never>] = []

        init(size: Int) { self.size = size }

        func arrive() async {
            await withCheckedContinuation { continuation in
                waiting.append(continuation)
                guard waiting.count == size else { return }
                let group = waiting
                waiting = []
                for waiter in group { waiter.resume() }
            }
        }
    }

    /// `GET /last`, returned raw.
    private struct Last: Endpoint {
        typealias Server = LoopbackServer
        typealias Response = Data
        static let definition: Definition<Last> = Definition(path: "last")
    }

    /// `GET /together`, returned raw.
    private struct Together: Endpoint {
        typealias Server = LoopbackServer
        typealias Response = Data
        static let definition: Definition<Together> = Definition(path: "together")
    }
#endif
