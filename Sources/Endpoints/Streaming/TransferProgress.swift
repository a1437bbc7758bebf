import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How far a download or an upload has come.
///
/// ```swift
/// try await URLSession.shared.download(Firmware(), to: file) { progress in
///     print(progress.fractionCompleted.map { "\(Int($0 * 100)) %" } ?? "\(progress.completedBytes) bytes")
/// }
/// ```
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// The bytes transferred so far.
    public let completedBytes: Int64
    /// The bytes expected in all, from `Content-Length` (or the file's size for an upload);
    /// `nil` when unknown.
    public let totalBytes: Int64?

    /// Creates a progress value.
    init(completedBytes: Int64, totalBytes: Int64?) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// `completedBytes / totalBytes`, between 0 and 1, when the total is known.
    public var fractionCompleted: Double? {
        guard let totalBytes, totalBytes > 0 else { return totalBytes == 0 ? 1 : nil }
        return min(1, Double(completedBytes) / Double(totalBytes))
    }

    /// For example `512 of 2048 bytes`.
    public var description: String {
        totalBytes.map { "\(completedBytes) of \($0) bytes" } ?? "\(completedBytes) bytes"
    }
}

/// What a request carries to the transport besides its head, in its ``RequestContext``: the file
/// an upload sends, or the download a body is for. Every send of the call (a retry, a resend after
/// a refresh) carries the same.
struct Transfer: Sendable {
    var upload: UploadSource?
    var download: DownloadSink?

    static let none = Transfer()
}

/// The file an upload sends and where to report how much of it was sent.
///
/// ``URLSessionTransport`` sends the file with `uploadTask(with:fromFile:)`, which declares its
/// length on both platforms (corelibs sends a request body stream chunked, even with a
/// `Content-Length`, which servers reject); other transports read ``RequestContext/uploadFile`` or
/// the request's `httpBodyStream`, which reads the same file.
struct UploadSource: Sendable {
    let file: URL
    /// The file's size in bytes when the upload began: what each send of it sends.
    let size: Int64
    let progress: (@Sendable (TransferProgress) -> Void)?
}

/// A download call in progress, which the transport receives in the request's context.
///
/// On Linux the transport then receives the body with a download task, which corelibs writes to
/// a file on its own thread as it arrives. That is the only way there to keep a fast transfer
/// from piling up in memory: a running data task cannot be paused, and its chunks queue up for
/// the delegate faster than a file takes them (a 1 GB loopback download peaked 50-150 MB above
/// idle that way, 15-30 MB as a download task). The transport reports progress with
/// ``report(_:response:)`` (for an accepted status only) and hands the file of an accepted
/// response over with ``spool(_:)``; any other body arrives as chunks, as usual, so the pipeline
/// can decode it as the error response. Other transports, and Apple platforms (where a data task
/// is suspended while its reader is behind), stream the body as for any request.
final class DownloadSink: Sendable {
    /// The transport's progress reports, the latest one only, so a slow reader never makes them
    /// pile up: the download call relays them to its caller's closure from its own task.
    let reports: AsyncStream<TransferProgress>
    private let reporter: AsyncStream<TransferProgress>.Continuation
    /// Whether the caller wants progress. Without it, and without a fractional timeout to watch,
    /// the Linux transport uses corelibs' leanest download: a completion-handler download task,
    /// which writes the file with one open handle and tells no delegate about each write (a 1 GB
    /// loopback download peaked 4-12 MB above idle that way, at twice the speed).
    let wantsProgress: Bool
    /// The statuses whose body is the download (the endpoint's `acceptableStatusCodes`); any
    /// other body is an error response, neither reported as progress nor written.
    let accepted: StatusCodes
    private let spooled = Locked<URL?>(nil)
    /// The latest report of the current send made before its status was known.
    private let held = Locked<TransferProgress?>(nil)

    /// The file the download replaces once the body is complete (the caller writes it).
    let destination: URL

    init(destination: URL, wantsProgress: Bool, accepting accepted: StatusCodes = .successful) {
        self.destination = destination
        self.wantsProgress = wantsProgress
        self.accepted = accepted
        (reports, reporter) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// A send begins (the first, a retry, a redirect sent again): a report held for an earlier one
    /// is dropped.
    func beginSend() {
        held.withLock { $0 = nil }
    }

    /// How far the transport has come with the body of `response`, the task's response if known.
    /// corelibs sets a download task's response only when the body is complete (it tells no
    /// delegate of a download task's head), so a report is usually made before the status is
    /// known: the latest one is held, and made when the status turns out accepted (see
    /// ``accepts(_:)``). A report for a status the endpoint does not accept is dropped.
    func report(_ progress: TransferProgress, response: URLResponse?) {
        guard let status = (response as? HTTPURLResponse)?.statusCode else {
            held.withLock { $0 = progress }
            return
        }
        held.withLock { $0 = nil }
        if accepted.contains(status) { reporter.yield(progress) }
    }

    /// Whether the body of `response` (complete) is the download: its status is accepted. A
    /// report held until now is made if so, dropped if not.
    func accepts(_ response: URLResponse?) -> Bool {
        let isAccepted = (response as? HTTPURLResponse).map { accepted.contains($0.statusCode) } ?? false
        let report = held.withLock { held in
            defer { held = nil }
            return held
        }
        if isAccepted, let report { reporter.yield(report) }
        return isAccepted
    }

    /// No more reports: ``reports`` ends after the last one.
    func finishReports() {
        reporter.finish()
    }

    /// Hands over the file a transport wrote the whole body to; it replaces (and removes) one an
    /// earlier send of the same call handed over.
    func spool(_ file: URL) {
        let earlier = spooled.withLock { spooled in
            defer { spooled = file }
            return spooled
        }
        if let earlier, earlier != file { try? FileManager.default.removeItem(at: earlier) }
    }

    /// The file a transport wrote the body to, if it did; the caller owns it from then on.
    func takeSpooled() -> URL? {
        spooled.withLock { spooled in
            defer { spooled = nil }
            return spooled
        }
    }

    deinit {
        reporter.finish()
        if let file = takeSpooled() { try? FileManager.default.removeItem(at: file) }
    }
}
