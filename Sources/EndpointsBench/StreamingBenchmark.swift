import Endpoints
import EndpointsTestServer
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Streaming: a large download to a file (peak RSS above the idle RSS), and server-sent events per
// second and CPU per event, this library's `bytes(for:).events` against a hand-written
// URLSessionDataDelegate reader that only counts blank lines, in the same process, alternating.

struct BenchDownload: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Data
    static let definition: Definition<BenchDownload> = Definition(path: "download")
}

struct BenchEvents: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Data
    static let definition: Definition<BenchEvents> = Definition(path: "events")
}

enum StreamingBenchmark {
    /// Runs every part, or only the one `only` names: `download`, `events` or `parsers`.
    static func run(quick: Bool, only: String?) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let environment = server.baseURL
        if only == nil || only == "download" {
            try await download(server: server, environment: environment, bytes: quick ? 256 << 20 : 1 << 30)
        }
        if only == nil || only == "events" {
            try await events(server: server, environment: environment, count: quick ? 50_000 : 200_000)
        }
        if only == nil || only == "parsers" {
            parsers(count: quick ? 50_000 : 200_000)
        }
    }

    /// Each way is warmed with a 4 MB download first, so the idle RSS includes the libraries and
    /// heap a first transfer loads (the warm-up's own line shows that cost).
    /// ENDPOINTS_BENCH_ONLY=raw|rawtask|rawhandler|ours|ours-progress measures one way alone: a
    /// process's heap does not shrink, so a later measurement in the same process looks better.
    static func download(server: TestServer, environment: URL, bytes: Int) async throws {
        let size = Mutex(bytes)
        server.route("/download") { _ in .generated(count: size.withLock { $0 }) }
        let url = environment.appendingPathComponent("download")
        let ways: [(String, String, (URL) async throws -> Void)] = [
            // A URLSessionDataDelegate that writes each chunk to the file as it arrives.
            ("raw", "raw data delegate", { file in try await RawDownload.run(url, to: file, asDownloadTask: false) }),
            // A URLSessionDownloadDelegate that moves the finished file into place.
            (
                "rawtask", "raw download task",
                { file in try await RawDownload.run(url, to: file, asDownloadTask: true) }
            ),
            // A download task with a completion handler that moves the finished file.
            ("rawhandler", "raw download handler", { file in try await RawDownload.withHandler(url, to: file) }),
            (
                "ours", "download",
                { file in try await URLSession.shared.download(BenchDownload(), to: file, environment: environment) }
            ),
            (
                "ours-progress", "download with progress",
                { file in
                    // How many reports, and how many came while the body was still arriving.
                    let reports = Mutex((all: 0, beforeTheEnd: 0))
                    let size = Int64(size.withLock { $0 })
                    try await URLSession.shared.download(BenchDownload(), to: file, environment: environment) {
                        progress in
                        reports.withLock {
                            $0.all += 1
                            if progress.completedBytes < size { $0.beforeTheEnd += 1 }
                        }
                    }
                    let (all, beforeTheEnd) = reports.withLock { $0 }
                    print("  \(all) progress reports, \(beforeTheEnd) of them before the body was complete")
                }
            ),
        ]
        let only = ProcessInfo.processInfo.environment["ENDPOINTS_BENCH_ONLY"]
        for (key, name, body) in ways where only == nil || only == key {
            size.withLock { $0 = 4 << 20 }
            try await measureDownload(name + " (warm-up)", bytes: 4 << 20, body)
            size.withLock { $0 = bytes }
            try await measureDownload(name, bytes: bytes, body)
        }
    }

    /// One download's wall time and how far its peak RSS rose above the RSS before it.
    struct DownloadSample {
        let seconds: Double
        let peakAboveIdle: Int
    }

    @discardableResult
    static func measureDownload(
        _ name: String, bytes: Int, _ body: (URL) async throws -> Void
    ) async throws -> DownloadSample {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("endpoints-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let idle = Memory.residentBytes()
        Memory.resetPeak()
        let start = DispatchTime.now().uptimeNanoseconds
        try await body(file)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let peak = Memory.peakResidentBytes()
        let size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue ?? 0
        print(
            String(
                format: "%@ %d MB to a file: %.2f s (%.0f MB/s), idle RSS %.1f MB, peak RSS %.1f MB (+%.1f MB)%@",
                name, bytes >> 20, seconds, Double(bytes) / 1_048_576 / seconds, Double(idle) / 1_048_576,
                Double(peak) / 1_048_576, Double(peak - idle) / 1_048_576,
                size == bytes ? "" : " — WRONG SIZE \(size)"))
        return DownloadSample(seconds: seconds, peakAboveIdle: peak - idle)
    }

    /// `text` in chunks of 16 KiB, as a server would send it.
    static func chunked(_ text: String) -> [Data] {
        let bytes = Array(text.utf8)
        return stride(from: 0, to: bytes.count, by: 16 * 1024).map {
            Data(bytes[$0..<min($0 + 16 * 1024, bytes.count)])
        }
    }

    static func eventStream(count: Int) -> [Data] {
        var text = ""
        for index in 0..<count { text += "id: \(index)\ndata: {\"n\":\(index),\"text\":\"tick\"}\n\n" }
        return chunked(text)
    }

    static func events(server: TestServer, environment: URL, count: Int) async throws {
        let chunks = eventStream(count: count)
        server.route("/events") { _ in .streamed(chunks, contentType: "text/event-stream") }
        var library: [(Double, Double)] = []
        var handWritten: [(Double, Double)] = []
        for _ in 0..<3 {
            library.append(
                try await measure(count) {
                    var seen = 0
                    for try await _ in try await URLSession.shared.bytes(for: BenchEvents(), environment: environment)
                        .events
                    {
                        seen += 1
                    }
                    return seen
                })
            handWritten.append(try await measure(count) { try await DelegateReader.count(server.url("/events")) })
        }
        func report(_ name: String, _ samples: [(Double, Double)]) {
            let best = samples.min { $0.0 < $1.0 }!
            print(
                String(
                    format: "  %@ %.0f events/s, %.2f µs CPU per event", name, Double(count) / best.0,
                    best.1 / Double(count) * 1e6))
        }
        print("server-sent events, \(count) events of ~40 bytes, best of 3:")
        report("bytes(for:).events           ", library)
        report("hand-written delegate reader ", handWritten)
    }

    /// The parsers alone, in memory, on the same 16 KiB chunks: the event-stream parser against a
    /// loop that only counts blank lines, and the JSON-lines splitter against one that counts LFs.
    static func parsers(count: Int) {
        let events = eventStream(count: count)
        var lines = ""
        for index in 0..<count { lines += "{\"n\":\(index),\"text\":\"tick\"}\n" }
        let jsonLines = chunked(lines)
        func time(_ body: () -> Int) -> Double {
            var best = Double.infinity
            for _ in 0..<5 {
                let start = DispatchTime.now().uptimeNanoseconds
                let seen = body()
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                if seen != count { print("  (counted \(seen) of \(count))") }
            }
            return Double(count) / best
        }
        let parser = time {
            var parser = EventStreamParser()
            return events.reduce(0) { $0 + parser.parse($1).count } + parser.finish().count
        }
        let counter = time { countLines(events, blankOnly: true) }
        let splitter = time {
            var splitter = NDJSONSplitter()
            return jsonLines.reduce(0) { $0 + splitter.parse($1).count } + splitter.finish().count
        }
        let lineCounter = time { countLines(jsonLines, blankOnly: false) }
        print("parsers in memory, \(count) values in 16 KiB chunks, best of 5:")
        print(String(format: "  EventStreamParser             %.0f events/s", parser))
        print(String(format: "  hand-written blank-line count %.0f events/s", counter))
        print(String(format: "  NDJSONSplitter                %.0f lines/s", splitter))
        print(String(format: "  hand-written LF count         %.0f lines/s", lineCounter))
    }

    /// The hand-written baseline: LFs (or LFs after an LF) counted byte by byte, as the delegate
    /// reader does.
    static func countLines(_ chunks: [Data], blankOnly: Bool) -> Int {
        var count = 0
        var previousWasNewline = false
        for chunk in chunks {
            for byte in chunk {
                if byte == 0x0A {
                    if previousWasNewline || !blankOnly { count += 1 }
                    previousWasNewline = true
                } else {
                    previousWasNewline = false
                }
            }
        }
        return count
    }

    static func measure(_ expected: Int, _ body: () async throws -> Int) async throws -> (Double, Double) {
        let cpu = EndToEndBenchmark.cpuTime()
        let start = DispatchTime.now().uptimeNanoseconds
        let seen = try await body()
        if seen != expected { print("  (counted \(seen) of \(expected) events)") }
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, EndToEndBenchmark.cpuTime() - cpu)
    }
}

/// The baseline: a session delegate that counts events by their blank lines, and nothing else.
final class DelegateReader: NSObject, URLSessionDataDelegate, Sendable {
    private let state = Mutex(State())
    private struct State {
        var count = 0
        var previousWasNewline = false
        var continuation: CheckedContinuation<Int, any Error>?
    }

    static func count(_ url: URL) async throws -> Int {
        let reader = DelegateReader()
        let session = URLSession(configuration: .default, delegate: reader, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        return try await withCheckedThrowingContinuation { continuation in
            reader.state.withLock { $0.continuation = continuation }
            session.dataTask(with: url).resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { state in
            for byte in data {
                if byte == 0x0A {
                    if state.previousWasNewline { state.count += 1 }
                    state.previousWasNewline = true
                } else {
                    state.previousWasNewline = false
                }
            }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, count) = state.withLock { state in
            defer { state.continuation = nil }
            return (state.continuation, state.count)
        }
        if let error { continuation?.resume(throwing: error) } else { continuation?.resume(returning: count) }
    }
}

/// The baselines for a download: a data task whose delegate writes each chunk to the file, a
/// download task whose delegate moves the finished file, or one with a completion handler.
final class RawDownload: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate, Sendable {
    let destination: URL
    let state = Mutex<(file: FileHandle?, failure: (any Error)?, continuation: CheckedContinuation<Void, any Error>?)>(
        (nil, nil, nil))

    init(destination: URL) { self.destination = destination }

    static func run(_ url: URL, to destination: URL, asDownloadTask: Bool) async throws {
        let delegate = RawDownload(destination: destination)
        let session = URLSession(configuration: .default, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        if !asDownloadTask {
            _ = FileManager.default.createFile(atPath: destination.path, contents: nil)
            delegate.state.withLock { $0.file = FileHandle(forWritingAtPath: destination.path) }
        }
        try await withCheckedThrowingContinuation { continuation in
            delegate.state.withLock { $0.continuation = continuation }
            if asDownloadTask { session.downloadTask(with: url).resume() } else { session.dataTask(with: url).resume() }
        }
    }

    static func withHandler(_ url: URL, to destination: URL) async throws {
        let session = URLSession(configuration: .default)
        defer { session.finishTasksAndInvalidate() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            session.downloadTask(with: url) { location, _, error in
                guard let location else {
                    continuation.resume(throwing: error ?? URLError(.cannotCreateFile))
                    return
                }
                continuation.resume(with: Result { try FileManager.default.moveItem(at: location, to: destination) })
            }.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { $0.file?.write(data) }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        do {
            try FileManager.default.moveItem(at: location, to: destination)
        } catch {
            state.withLock { $0.failure = error }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (failure, continuation) = state.withLock { state in
            defer { state.continuation = nil }
            try? state.file?.close()
            return (state.failure, state.continuation)
        }
        if let error = error ?? failure { continuation?.resume(throwing: error) } else { continuation?.resume() }
    }
}

/// A lock for the benchmark's own state (the library's `Locked` is internal).
final class Mutex<Value>: @unchecked Sendable {
    // @unchecked Sendable: every access to `value` goes through `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// Resident memory from /proc on Linux (the peak resettable through clear_refs), rusage elsewhere.
enum Memory {
    static func residentBytes() -> Int { status("VmRSS:") ?? 0 }

    static func peakResidentBytes() -> Int {
        if let peak = status("VmHWM:") { return peak }
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        return Int(usage.ru_maxrss)  // bytes on Darwin
    }

    /// Makes the peak start again from the current RSS (Linux 4.0 and later).
    static func resetPeak() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    private static func status(_ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field) {
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
            return kilobytes.map { $0 * 1024 }
        }
        return nil
    }
}
