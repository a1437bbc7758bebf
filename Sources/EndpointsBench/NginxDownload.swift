import Endpoints
import Foundation

// A 1 GB download to a file through EndpointClient() (libcurl on Linux), against curl itself
// writing the same body to /dev/null, from the nginx that scripts/bench-nginx.sh starts: throughput
// and how far the peak RSS rises above the RSS before the download (issue 38: ≤ +16 MB, ≥ 0.8×).

enum NginxDownload {
    /// `pairs` downloads each way, alternating which goes first; the ratio is the median of the
    /// pairs' ratios.
    static func run(base: URL, pairs: Int) async throws {
        let client = EndpointClient()
        let bytes = 1 << 30
        print("1 GB download from nginx: EndpointClient().download(to:) against curl -o /dev/null, \(pairs) pairs")
        // nginx serves 4 MiB at /warm/download: a first transfer loads what any transfer needs, so
        // the idle RSS of the measured downloads includes it.
        try await StreamingBenchmark.measureDownload("  Endpoints (warm-up)", bytes: 4 << 20) { file in
            _ = try await client.download(BenchDownload(), to: file, environment: base.appendingPathComponent("warm"))
        }
        var ratios: [Double] = []
        var peaks: [Int] = []
        var ourRates: [Double] = []
        var curlRates: [Double] = []
        for pair in 0..<pairs {
            var ours = 0.0
            var curl = 0.0
            for first in [true, false] {
                if first == pair.isMultiple(of: 2) {
                    let sample = try await StreamingBenchmark.measureDownload("  Endpoints", bytes: bytes) { file in
                        _ = try await client.download(BenchDownload(), to: file, environment: base)
                    }
                    ours = Double(bytes) / sample.seconds
                    peaks.append(sample.peakAboveIdle)
                } else {
                    curl = try curlRate(base.appendingPathComponent("download"), bytes: bytes)
                    print(String(format: "  curl -o /dev/null: %.0f MB/s", curl / 1_048_576))
                }
            }
            ratios.append(ours / curl)
            ourRates.append(ours)
            curlRates.append(curl)
        }
        let peak = peaks.max() ?? 0
        print(
            String(
                format:
                    "  download: Endpoints %.0f MB/s, curl %.0f MB/s (medians); throughput %.3f× curl (median of pairs, %.3f–%.3f); peak RSS +%.1f MB at most",
                EndToEndBenchmark.median(ourRates) / 1_048_576, EndToEndBenchmark.median(curlRates) / 1_048_576,
                EndToEndBenchmark.median(ratios), ratios.min() ?? .nan, ratios.max() ?? .nan,
                Double(peak) / 1_048_576))
        let met = EndToEndBenchmark.median(ratios) >= 0.8 && peak <= 16 << 20
        print("  goals (issue 38), download: ≥ 0.8× curl's throughput and ≤ +16 MB RSS: \(met ? "met" : "MISSED")")
    }

    /// curl's own figure for one download to /dev/null, in bytes per second (`speed_download`,
    /// which leaves out curl's start-up: if anything, in curl's favour).
    static func curlRate(_ url: URL, bytes: Int) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "curl", "-s", "-o", "/dev/null", "-w", "%{speed_download} %{size_download}", url.absoluteString,
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
