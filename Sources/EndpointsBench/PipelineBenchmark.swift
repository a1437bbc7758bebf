import Endpoints
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The pipeline's own CPU per request, without a network: `EndpointClient.response(with:)` over a
// transport that answers at once, against the raw side's work for the same answer (make the
// `URLRequest`, decode the body with a shared `JSONDecoder`), alternating rounds in one process.

enum PipelineBenchmark {
    /// Answers every request at once with the e2e payload.
    struct InstantTransport: HTTPTransport {
        let body = Data(EndToEndBenchmark.payload.utf8)

        func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
            let response = HTTPURLResponse(
                url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "application/json", "Content-Length": "\(body.count)"])!
            return (body, response)
        }
    }

    /// Runs every case, or only the one labelled `only`.
    static func run(count: Int, only: String? = nil) async throws {
        if only == nil || only == "recorder" { recorderAlone(count: count * 5) }
        try await run(count: count, only: only, label: "NoAuth", timesMeasuring: true) { client, base in
            _ = try await client.response(with: ItemEndpoint(), environment: base)
        }
        try await run(
            count: count, only: only, label: "NoAuth, with an event listener", eventListener: DiscardingListener()
        ) {
            client, base in
            _ = try await client.response(with: ItemEndpoint(), environment: base)
        }
        try await run(count: count, only: only, label: "HeaderKeyAuth X-Api-Key") { client, base in
            _ = try await client.response(with: KeyedItemEndpoint(), environment: base)
        }
        try await run(count: count, only: only, label: "HeaderKeyAuth Bearer") { client, base in
            _ = try await client.response(with: BearerItemEndpoint(), environment: base)
        }
    }

    /// What measuring a request costs when nobody listens, timed alone: the recorder the pipeline
    /// makes for each request and its reports for one buffered exchange.
    static func recorderAlone(count: Int) {
        let request = URLRequest(url: URL(string: "http://127.0.0.1:8080/item")!)
        let context = RequestContext(endpointName: "ItemEndpoint")
        var rounds: [Double] = []
        var attempts = 0
        for _ in 0..<10 {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<count / 10 {
                let recorder = RequestRecorder(endpointName: "ItemEndpoint")
                recorder.attemptSent(request, context: context)
                recorder.headReceived(status: 200, bufferedBytes: 64)
                recorder.finishDecoded()
                withExtendedLifetime(recorder) { attempts &+= 1 }
            }
            rounds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(count / 10))
        }
        precondition(attempts == count / 10 * 10)
        print(
            String(
                format:
                    "[recorder] Measuring one request with no listener, alone: %.0f ns per request (median of 10 rounds)",
                EndToEndBenchmark.median(rounds)))
    }

    /// Receives every event and keeps none: the cost of making and handing them over.
    struct DiscardingListener: RequestEventListener {
        func receive(_ event: RequestEvent) {}
    }

    struct KeyedItemEndpoint: Endpoint {
        typealias Server = LoopbackServer
        typealias Response = Item
        static let definition: Definition<KeyedItemEndpoint> = Definition(method: .get, path: "item")
        static let auth = HeaderKeyAuth(key: "secret-key", header: "X-Api-Key", prefix: nil)
    }

    struct BearerItemEndpoint: Endpoint {
        typealias Server = LoopbackServer
        typealias Response = Item
        static let definition: Definition<BearerItemEndpoint> = Definition(method: .get, path: "item")
        static let auth = HeaderKeyAuth(key: "secret-key")
    }

    /// Times `send` against the raw side in alternating rounds. `timesMeasuring`: also sends
    /// with measuring off (the library's bench-only switch, ``EndpointClient/measuresRequests``)
    /// in the same rounds, and prints what measuring costs as the median of the rounds' paired
    /// differences, so that the machine's drift from one second to the next cancels out.
    static func run(
        count: Int, only: String?, label: String, eventListener: (any RequestEventListener)? = nil,
        timesMeasuring: Bool = false, send: @escaping (EndpointClient, URL) async throws -> Void
    ) async throws {
        if let only, only != label { return }
        let base = URL(string: "http://127.0.0.1:8080")!
        let url = base.appendingPathComponent("item")
        let client = EndpointClient(transport: InstantTransport(), eventListener: eventListener)
        var unmeasured = client
        unmeasured.measuresRequests = false
        let transport = InstantTransport()
        let context = RequestContext(endpointName: "ItemEndpoint")
        let decoder = EndToEndBenchmark.decoder
        // Short rounds, many of them, when the measuring's cost is paired round by round.
        let rounds = timesMeasuring ? 400 : 10
        let perRound = count / rounds
        func timed(_ body: () async throws -> Void) async rethrows -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<perRound { try await body() }
            return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(perRound) / 1_000
        }
        var raw: [Double] = []
        var ours: [Double] = []
        var quiet: [Double] = []
        for round in 0..<rounds {
            var sides: [() async throws -> Void] = [
                {
                    raw.append(
                        try await timed {
                            let (data, _) = try await transport.send(URLRequest(url: url), context: context)
                            _ = try decoder.decode(Item.self, from: data)
                        })
                },
                { ours.append(try await timed { try await send(client, base) }) },
            ]
            if timesMeasuring {
                sides.append({ quiet.append(try await timed { try await send(unmeasured, base) }) })
            }
            // Each side goes first in turn.
            for index in sides.indices { try await sides[(index + round) % sides.count]() }
        }
        let rawMedian = EndToEndBenchmark.median(raw)
        let ourMedian = EndToEndBenchmark.median(ours)
        print(
            "[\(label)] Pipeline alone: GET + decode over a transport that answers at once, "
                + "\(count) requests per side")
        print(
            String(
                format: "  raw %.2f µs per request | Endpoints %.2f µs per request | the pipeline's own work %.2f µs",
                rawMedian, ourMedian, ourMedian - rawMedian))
        if timesMeasuring {
            let costs = zip(ours, quiet).map { $0 - $1 }.sorted()
            print(
                String(
                    format:
                        "  measuring (no listener): %.2f µs per request, the median of %d paired rounds "
                        + "(middle half %.2f to %.2f µs; unmeasured %.2f µs per request)",
                    EndToEndBenchmark.median(costs), costs.count, costs[costs.count / 4], costs[costs.count * 3 / 4],
                    EndToEndBenchmark.median(quiet)))
        }
    }
}
