import Endpoints
import Foundation

// A 1 GB download from the nginx that scripts/bench-nginx.sh starts, two ways, each against curl
// doing the same (issue 38: ≥ 0.8× curl's throughput, ≤ +16 MB above the RSS before it):
//   to a file   EndpointClient().download(_:to:) against `curl -o FILE`, both writing a file in the
//               temporary directory ($TMPDIR): on a disk, the file system's write speed bounds both;
//   streamed    EndpointClient().bytes(for:), each chunk read and dropped, against `curl -o /dev/null`:
//               the transport and the body's hand-over alone.

enum NginxDownload {
    /// `pairs` rounds of the four, rotating which goes first; each ratio is the median of the
    /// rounds' ratios.
    static func run(base: URL, pairs: Int) async throws {
        let client = EndpointClient()
        let bytes = 1 << 30
        let directory = FileManager.default.temporaryDirectory.path
        print(
            "1 GB download from nginx, \(pairs) rounds: EndpointClient().download(to:) against curl -o FILE (both in \(directory)),"
        )
        print("  and EndpointClient().bytes(for:) read and dropped against curl -o /dev/null")
        // nginx serves 4 MiB at /warm/download: a first transfer loads what any transfer needs, so
        // the idle RSS of the measured downloads includes it.
        try await StreamingBenchmark.measureDownload("  Endpoints (warm-up)", bytes: 4 << 20) { file in
            _ = try await client.download(BenchDownload(), to: file, environment: base.appendingPathComponent("warm"))
        }
        _ = try await measureStream("  Endpoints streamed (warm-up)", bytes: 4 << 20) {
            try await stream(client, base.appendingPathComponent("warm"))
        }
        let url = base.appendingPathComponent("download")
        // ENDPOINTS_BENCH_DOWNLOAD=file or streamed measures only that way (and its curl), e.g.
        // for a profile of one.
        let only = ProcessInfo.processInfo.environment["ENDPOINTS_BENCH_DOWNLOAD"]
        var file = Ratios()
        var streamed = Ratios()
        var peaks: [Int] = []
        for round in 0..<pairs {
            var rates = [Double](repeating: 0, count: 4)
            let sides: [() async throws -> Void] = [
                {
                    let sample = try await StreamingBenchmark.measureDownload("  Endpoints", bytes: bytes) { file in
                        _ = try await client.download(BenchDownload(), to: file, environment: base)
                    }
                    rates[0] = Double(bytes) / sample.seconds
                    peaks.append(sample.peakAboveIdle)
                },
                {
                    let target = FileManager.default.temporaryDirectory.appendingPathComponent(
                        "endpoints-bench-curl-\(UUID().uuidString)")
                    defer { try? FileManager.default.removeItem(at: target) }
                    rates[1] = try curlRate(url, to: target.path, bytes: bytes)
                    print(String(format: "  curl -o FILE: %.0f MB/s", rates[1] / 1_048_576))
                },
                {
                    let sample = try await measureStream("  Endpoints streamed", bytes: bytes) {
                        try await stream(client, base)
                    }
                    rates[2] = Double(bytes) / sample.seconds
                    peaks.append(sample.peakAboveIdle)
                },
                {
                    rates[3] = try curlRate(url, to: "/dev/null", bytes: bytes)
                    print(String(format: "  curl -o /dev/null: %.0f MB/s", rates[3] / 1_048_576))
                },
            ]
            for offset in 0..<sides.count {
                let side = (round + offset) % sides.count
                if let only, only != (side < 2 ? "file" : "streamed") { continue }
                try await sides[side]()
            }
            if only != "streamed" { file.add(ours: rates[0], curl: rates[1]) }
            if only != "file" { streamed.add(ours: rates[2], curl: rates[3]) }
        }
        let peak = peaks.max() ?? 0
        if only != "streamed" { print(file.line("to a file", against: "curl -o FILE")) }
        if only != "file" { print(streamed.line("streamed", against: "curl -o /dev/null")) }
        print(String(format: "  peak RSS above idle: +%.1f MB at most", Double(peak) / 1_048_576))
        let met =
            (only == "file" || streamed.median >= 0.8) && (only == "streamed" || file.median >= 0.8) && peak <= 16 << 20
        print(
            "  goals (issue 38), download: ≥ 0.8× curl's throughput (to a file and streamed) and ≤ +16 MB RSS: \(met ? "met" : "MISSED")"
        )
    }

    /// Reads the whole body of the 1 GiB download, dropping each chunk; the byte count.
    private static func stream(_ client: EndpointClient, _ environment: URL) async throws -> Int {
        var received = 0
        for try await chunk in try await client.bytes(for: BenchDownload(), environment: environment) {
            received += chunk.count
        }
        return received
    }

    /// One streamed download's wall time and how far its peak RSS rose above the RSS before it.
    private static func measureStream(
        _ name: String, bytes: Int, _ body: () async throws -> Int
    ) async throws -> StreamingBenchmark.DownloadSample {
        let idle = Memory.residentBytes()
        Memory.resetPeak()
        let start = DispatchTime.now().uptimeNanoseconds
        let received = try await body()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let peak = Memory.peakResidentBytes()
        print(
            String(
                format: "%@ %d MB read: %.2f s (%.0f MB/s), idle RSS %.1f MB, peak RSS %.1f MB (+%.1f MB)%@",
                name, bytes >> 20, seconds, Double(bytes) / 1_048_576 / seconds, Double(idle) / 1_048_576,
                Double(peak) / 1_048_576, Double(peak - idle) / 1_048_576,
                received == bytes ? "" : " — WRONG SIZE \(received)"))
        return StreamingBenchmark.DownloadSample(seconds: seconds, peakAboveIdle: peak - idle)
    }

    /// Throughputs of one way against curl's, round by round.
    private struct Ratios {
        var ours: [Double] = []
        var curl: [Double] = []
        var ratios: [Double] = []

        mutating func add(ours: Double, curl: Double) {
            self.ours.append(ours)
            self.curl.append(curl)
            ratios.append(ours / curl)
        }

        var median: Double { EndToEndBenchmark.median(ratios) }

        func line(_ name: String, against other: String) -> String {
            String(
                format: "  %@: Endpoints %.0f MB/s, %@ %.0f MB/s (medians); %.3f× (median of rounds, %.3f–%.3f)",
                name, EndToEndBenchmark.median(ours) / 1_048_576, other, EndToEndBenchmark.median(curl) / 1_048_576,
                median, ratios.min() ?? .nan, ratios.max() ?? .nan)
        }
    }

    /// curl's own figure for one download to `path`, in bytes per second (`speed_download`,
    /// which leaves out curl's start-up: if anything, in curl's favour).
    static func curlRate(_ url: URL, to path: String, bytes: Int) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "curl", "-s", "-o", path, "-w", "%{speed_download} %{size_download}", url.absoluteString,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let fields = String(decoding: output, as: UTF8.self).split(separator: " ")
        guard process.terminationStatus == 0, fields.count == 2, let rate = Double(fields[0]),
            Int(fields[1]) == bytes
        else {
            throw CurlFailed(output: String(decoding: output, as: UTF8.self), status: process.terminationStatus)
        }
        return rate
    }

    struct CurlFailed: Error, CustomStringConvertible {
        let output: String
        let status: Int32
        var description: String { "curl exited with \(status) and printed \(output)" }
    }
}
