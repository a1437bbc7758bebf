/// When a download's progress reaches its caller: each time the body has grown by 1 % of its
/// length and 100 ms have passed since the previous report, whichever comes later (every 100 ms
/// when the length is unknown); when the body has paused for 100 ms, how far it came; and once more
/// with the complete body at the end.
///
/// A report due before its time is made when its time comes, whether or not more bytes arrived
/// meanwhile, so a body that stalls still shows how far it came. However fast the body arrives,
/// its caller gets at most ten reports a second, and for a body of known length that keeps coming
/// about a hundred in all (a 300 MB body arrives in some 19,000 writes of 16 KiB).
///
/// ``DownloadSink`` keeps one under its lock; its events return what to do once the lock is
/// released.
struct ProgressCadence {
    /// The least time between two reports, and the pause after which a report shows the bytes
    /// since the last one however few: 100 ms, in nanoseconds.
    static let interval: UInt64 = 100_000_000

    enum Action: Equatable {
        /// Nothing to report yet.
        case none
        /// Report this now.
        case report(TransferProgress)
        /// A report may become due after this many nanoseconds: call ``wake(now:)`` then.
        case wake(after: UInt64)
    }

    /// The bytes of the last report, and when it was made (or the download began).
    private var reported: (bytes: Int64, at: UInt64)
    /// The latest progress, not reported yet, and when it came.
    private var latest: (progress: TransferProgress, at: UInt64)?
    /// When the earliest wake-up asked for comes.
    private var wakeAt: UInt64?
    private var finished = false

    /// A download that begins `now` (uptime nanoseconds).
    init(now: UInt64) {
        reported = (0, now)
    }

    /// The body has come as far as `progress`.
    mutating func advance(to progress: TransferProgress, now: UInt64) -> Action {
        guard !finished else { return .none }
        latest = (progress, now)
        return decide(now: now)
    }

    /// A wake-up asked for by ``Action/wake(after:)`` came.
    mutating func wake(now: UInt64) -> Action {
        if let wakeAt, wakeAt <= now { self.wakeAt = nil }
        guard !finished else { return .none }
        return decide(now: now)
    }

    /// The download is over: when `complete`, the last progress if it was not reported yet (the
    /// whole body); after a failure, nothing. Nothing is reported after this.
    mutating func finish(complete: Bool) -> TransferProgress? {
        finished = true
        defer { latest = nil }
        return complete ? latest?.progress : nil
    }

    private mutating func decide(now: UInt64) -> Action {
        guard let (progress, cameAt) = latest else { return .none }
        // A body sent again (a retry) moves back: that is news too.
        let grown = (progress.completedBytes - reported.bytes).magnitude
        guard grown > 0 else {
            latest = nil
            return .none
        }
        // 1 % of the length; any growth when it is unknown.
        let step = UInt64(progress.totalBytes.map { max(1, $0 / 100) } ?? 1)
        let dueAt =
            grown >= step
            ? reported.at &+ Self.interval
            // Less than 1 %: due once the body paused for 100 ms (and 100 ms after the last report).
            : max(reported.at, cameAt) &+ Self.interval
        guard now < dueAt else {
            reported = (progress.completedBytes, now)
            latest = nil
            return .report(progress)
        }
        if let wakeAt, wakeAt <= dueAt { return .none }
        wakeAt = dueAt
        return .wake(after: dueAt - now)
    }
}
