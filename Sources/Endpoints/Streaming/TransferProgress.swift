import Foundation

/// How far a download or an upload has come.
///
/// ```swift
/// try await URLSession.shared.download(Firmware(), to: file) { progress in
///     print(progress.fractionCompleted.map { "\(Int($0 * 100)) %" } ?? "\(progress.completedBytes) bytes")
/// }
/// ```
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// The bytes transferred so far.
    public var completedBytes: Int64
    /// The bytes expected in all, from `Content-Length` (or the file's size for an upload);
    /// `nil` when unknown.
    public var totalBytes: Int64?

    /// Creates a progress value.
    public init(completedBytes: Int64, totalBytes: Int64?) {
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

/// The file an upload sends and where to report how much of it was sent: a task-local, so the
/// URLSession transport deep in the pipeline serves the upload call that started it and no other.
///
/// The transport sends the file with `uploadTask(with:fromFile:)`, which declares its length on
/// both platforms (corelibs sends a request body stream chunked, even with a `Content-Length`,
/// which servers reject); other transports read the request's `httpBodyStream`.
struct UploadSource: Sendable {
    let file: URL
    let progress: (@Sendable (TransferProgress) -> Void)?

    @TaskLocal static var current: UploadSource?
}
