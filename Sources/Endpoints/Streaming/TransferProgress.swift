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
    /// `nil` when unknown, and for a body decoded from its `Content-Encoding` (`gzip`, `br`…),
    /// whose `Content-Length` counts the encoded bytes.
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
    /// A WebSocket's handshake: the transport that can upgrade the connection hands it over here.
    var upgrade: UpgradeSink?

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

/// A download call in progress, which the transport receives in the request's context, and where
/// its progress goes, whoever measures it.
///
/// Progress reaches the caller's closure through ``report(_:response:)``, at the pace of
/// ``ProgressCadence`` (each 1 % and 100 ms, whichever comes later, and the complete body at the
/// end), from one child task of the download call. The download call reports each chunk of the
/// body it writes; a transport that receives the body itself (into a file it hands over with
/// ``spool(_:)``, streaming nothing back) reports each write instead, with the response head when
/// it has it: a report made before the status is known is held until ``accepts(_:)`` says whether
/// the body is the download, and a body of another status is never reported.
///
/// On Linux, when the caller wants no progress, ``URLSessionTransport`` receives the body with a
/// download task, which corelibs writes to a file on its own thread as it arrives, with one open
/// handle and no delegate to tell (a 1 GB loopback download: 330-370 MB/s, 5-7 MB above idle). It
/// hands the file of an accepted response over with ``spool(_:)``; any other body arrives as
/// chunks, as usual, so the pipeline can decode it as the error response. corelibs gives a
/// download task its response only once the body is complete, so while the body arrives nobody can
/// tell an accepted body's progress from an error page's: a download with progress streams the body
/// like any request, and the call writes it and reports it. Other transports, and Apple platforms
/// (where a data task is suspended while its reader is behind), stream the body too.
final class DownloadSink: Sendable {
    /// The reports for the caller, the latest only, so a slow reader never makes them pile up: the
    /// download call relays them to its caller's closure from its own task.
    let reports: AsyncStream<TransferProgress>
    private let reporter: AsyncStream<TransferProgress>.Continuation
    /// Whether the caller wants progress. Without it, and without a fractional timeout to watch,
    /// the Linux transport uses corelibs' leanest download: a completion-handler download task.
    let wantsProgress: Bool
    /// The statuses whose body is the download (the endpoint's `acceptableStatusCodes`); any
    /// other body is an error response, neither reported as progress nor written.
    let accepted: StatusCodes
    private let spooled = Locked<URL?>(nil)

    private struct Progress {
        var cadence: ProgressCadence
        /// The latest report of the current send made before its status was known.
        var held: TransferProgress?
    }

    private let progress: Locked<Progress>

    /// The file the download replaces once the body is complete (the caller writes it).
    let destination: URL

    init(destination: URL, wantsProgress: Bool, accepting accepted: StatusCodes = .successful) {
        self.destination = destination
        self.wantsProgress = wantsProgress
        self.accepted = accepted
        (reports, reporter) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        progress = Locked(Progress(cadence: ProgressCadence(now: DispatchTime.now().uptimeNanoseconds)))
    }

    /// A send begins (the first, a retry, a redirect sent again): a report held for an earlier one
    /// is dropped.
    func beginSend() {
        progress.withLock { $0.held = nil }
    }

    /// How far the body of `response` has come: call it for every write, the pace is kept here.
    /// `response` is the head, if known; a report made before it is held (the latest only) and
    /// made once the status turns out accepted (see ``accepts(_:)``), and one for a status the
    /// endpoint does not accept is dropped.
    ///
    /// - Returns: Whether a report went to the caller.
    @discardableResult
    func report(_ progress: TransferProgress, response: URLResponse?) -> Bool {
        guard wantsProgress else { return false }
        guard let status = (response as? HTTPURLResponse)?.statusCode else {
            self.progress.withLock { $0.held = progress }
            return false
        }
        guard accepted.contains(status) else {
            self.progress.withLock { $0.held = nil }
            return false
        }
        let progress = Self.droppingEncodedLength(progress, of: response)
        return pace { state in
            state.held = nil
            return progress
        }
    }

    /// `progress` with no total when the body of `response` was decoded (its `Content-Encoding`
    /// names a coding, `gzip` say): its `Content-Length` counts the encoded bytes, not the ones
    /// written, which would pass it long before the end (OkHttp drops that length too).
    private static func droppingEncodedLength(_ progress: TransferProgress, of response: URLResponse?)
        -> TransferProgress
    {
        guard progress.totalBytes != nil,
            ResponseFraming.namesACoding((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding"))
        else { return progress }
        return TransferProgress(completedBytes: progress.completedBytes, totalBytes: nil)
    }

    /// Whether the body of `response` (complete) is the download: its status is accepted. A
    /// report held until now is made if so, dropped if not.
    func accepts(_ response: URLResponse?) -> Bool {
        let isAccepted = (response as? HTTPURLResponse).map { accepted.contains($0.statusCode) } ?? false
        pace { state in
            defer { state.held = nil }
            return isAccepted ? state.held.map { Self.droppingEncodedLength($0, of: response) } : nil
        }
        return isAccepted
    }

    /// The download is over, complete or not: on success the complete body's progress is made if
    /// it was not yet; then ``reports`` ends.
    func finishReports(complete: Bool) {
        progress.withLock { state in
            if let last = state.cadence.finish(complete: complete) { reporter.yield(last) }
            reporter.finish()
        }
    }

    /// Gives the cadence the progress `next` picks (if any) and reports what is due, under the
    /// lock, so that reports reach the stream in the order they were made.
    @discardableResult
    private func pace(_ next: (inout Progress) -> TransferProgress?) -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        let (reported, wake) = progress.withLock { state -> (Bool, UInt64?) in
            guard let next = next(&state) else { return (false, nil) }
            return act(state.cadence.advance(to: next, now: now))
        }
        if let wake { scheduleWake(after: wake) }
        return reported
    }

    /// Carries out what the cadence decided, under the lock: whether it reported, and when to look
    /// again.
    private func act(_ action: ProgressCadence.Action) -> (reported: Bool, wake: UInt64?) {
        switch action {
        case .none: return (false, nil)
        case .report(let report):
            reporter.yield(report)
            return (true, nil)
        case .wake(let after): return (false, after)
        }
    }

    private func scheduleWake(after nanoseconds: UInt64) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [weak self] in
            self?.wake()
        }
    }

    /// A report waited for its time, which has come.
    private func wake() {
        let now = DispatchTime.now().uptimeNanoseconds
        let (_, again) = progress.withLock { act($0.cadence.wake(now: now)) }
        if let again { scheduleWake(after: again) }
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
