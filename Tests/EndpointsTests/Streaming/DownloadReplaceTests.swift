import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints  // TransferProgress values to compare with (made by the library only)

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `download(_:to:)` onto a file that already exists (issue 23): the file is replaced only by a
/// whole accepted body, and is otherwise left as it was, same bytes and same inode; a destination
/// that cannot be written fails before anything is sent; progress describes the accepted body only.
@Suite struct DownloadReplaceTests {
    /// A directory of its own under `parent`, with `destination` in it holding `"old contents"`.
    private struct Scratch {
        let directory: URL
        let destination: URL
        static let old = Data("old contents".utf8)

        init(under parent: URL = FileManager.default.temporaryDirectory) throws {
            directory = parent.appendingPathComponent("endpoints-replace-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
            destination = directory.appendingPathComponent("firmware.bin")
            try Scratch.old.write(to: destination)
        }

        func inode() throws -> UInt64? {
            let attributes = try FileManager.default.attributesOfItem(atPath: destination.path)
            return (attributes[.systemFileNumber] as? NSNumber)?.uint64Value
        }

        /// The names in the directory: the destination alone, no temporary file left behind.
        func contents() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        }

        /// Checks that the destination still holds the old bytes in the same inode, and nothing else
        /// is in its directory.
        func expectUntouched(inode before: UInt64?, sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(try Data(contentsOf: destination) == Scratch.old, sourceLocation: sourceLocation)
            #expect(try inode() == before, sourceLocation: sourceLocation)
            #expect(try contents() == [destination.lastPathComponent], sourceLocation: sourceLocation)
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    private static func progress(
        _ wanted: Bool, into reports: LockedBox<[TransferProgress]>
    ) -> (@Sendable (TransferProgress) -> Void)? {
        wanted ? { @Sendable progress in reports.mutate { $0.append(progress) } } : nil
    }

    private static func expectGenerated(_ data: Data, count: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(data.count == count, sourceLocation: sourceLocation)
        #expect(
            data.enumerated().allSatisfy { $0.element == UInt8(truncatingIfNeeded: $0.offset) },
            sourceLocation: sourceLocation)
    }

    @Test(arguments: [false, true], TestTransport.all)
    func anExistingFileIsReplacedByTheNewBody(withProgress: Bool, via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let count = 1 << 20
        server.route("/file") { _ in .generated(count: count) }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let reports = LockedBox<[TransferProgress]>([])
        let response = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await transport.client().download(
                FileEndpoint("file"), to: scratch.destination, progress: Self.progress(withProgress, into: reports))
        }
        #expect(response.statusCode == 200)
        Self.expectGenerated(try Data(contentsOf: scratch.destination), count: count)
        #expect(try scratch.contents() == [scratch.destination.lastPathComponent])
        if withProgress {
            #expect(reports.value.last == TransferProgress(completedBytes: Int64(count), totalBytes: Int64(count)))
        }
    }

    /// A destination on another file system than the system's temporary directory, where Linux's
    /// download task spools the body: the body is copied beside the destination, then renamed.
    @Test(
        .enabled(if: FileManager.default.fileExists(atPath: "/dev/shm")), arguments: [false, true], TestTransport.all)
    func anExistingFileOnAnotherFileSystemIsReplaced(withProgress: Bool, via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let count = 256 << 10
        server.route("/file") { _ in .generated(count: count) }
        let scratch = try Scratch(under: URL(fileURLWithPath: "/dev/shm"))
        defer { scratch.remove() }
        let reports = LockedBox<[TransferProgress]>([])
        try await Loopback.$baseURL.withValue(server.baseURL) {
            try await transport.client().download(
                FileEndpoint("file"), to: scratch.destination, progress: Self.progress(withProgress, into: reports))
        }
        Self.expectGenerated(try Data(contentsOf: scratch.destination), count: count)
        #expect(try scratch.contents() == [scratch.destination.lastPathComponent])
    }

    /// The replacement keeps the permissions of the file it replaces.
    @Test(arguments: TestTransport.all)
    func theReplacedFileKeepsItsPermissions(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/file") { _ in .generated(count: 1024) }
        let scratch = try Scratch()
        defer { scratch.remove() }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: scratch.destination.path)
        try await Loopback.$baseURL.withValue(server.baseURL) {
            try await transport.client().download(FileEndpoint("file"), to: scratch.destination)
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: scratch.destination.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try Data(contentsOf: scratch.destination).count == 1024)
    }

    /// A 404's error body is decoded and thrown; it is neither written nor reported as progress.
    @Test(arguments: [false, true], TestTransport.all)
    func aNotFoundLeavesTheFileAndReportsNoProgress(withProgress: Bool, via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let inode = try scratch.inode()
        let reports = LockedBox<[TransferProgress]>([])
        let error = await #expect(throws: FileEndpoint.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await transport.client().download(
                    FileEndpoint("missing"), to: scratch.destination,
                    progress: Self.progress(withProgress, into: reports))
            }
        }
        guard case .errorResponse(let response, let body) = error else {
            Issue.record("expected .errorResponse, got \(String(describing: error))")
            return
        }
        #expect(response.statusCode == 404)
        #expect(body.code == 404)
        #expect(reports.value.isEmpty)
        try scratch.expectUntouched(inode: inode)
    }

    /// A body cut off mid-way: a `Content-Length` the server does not reach, and a chunked body
    /// whose connection closes before its last chunk.
    @Test(arguments: [false, true], TestTransport.all)
    func aDroppedConnectionLeavesTheFile(withProgress: Bool, via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/drops") { _ in .streamed([Data(repeating: 7, count: 64 << 10)], then: .drop) }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let inode = try scratch.inode()
        for route in ["close-mid-body", "drops"] {
            let reports = LockedBox<[TransferProgress]>([])
            let error = await #expect(throws: FileEndpoint.TaskError.self, "\(route)") {
                try await Loopback.$baseURL.withValue(server.baseURL) {
                    try await transport.client().download(
                        FileEndpoint(route), to: scratch.destination,
                        progress: Self.progress(withProgress, into: reports))
                }
            }
            #expect(error?.urlErrorCode != nil, "\(route): \(String(describing: error))")
            try scratch.expectUntouched(inode: inode)
        }
    }

    /// A body that stalls: the idle timeout ends it (corelibs' own without progress on Linux, the
    /// transport's watchdog with it).
    @Test(arguments: [false, true], TestTransport.all)
    func aTimeoutLeavesTheFile(withProgress: Bool, via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/stalls") { _ in .streamed([Data(repeating: 7, count: 1024)], then: .stall) }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let inode = try scratch.inode()
        let reports = LockedBox<[TransferProgress]>([])
        let error = await #expect(throws: FileEndpoint.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await transport.client().download(
                    FileEndpoint("stalls"), to: scratch.destination, middleware: [TimeoutMiddleware(seconds: 1)],
                    progress: Self.progress(withProgress, into: reports))
            }
        }
        #expect(error?.urlErrorCode == .timedOut)
        try scratch.expectUntouched(inode: inode)
    }

    /// Cancelled while the server holds the rest of the body.
    @Test(arguments: [false, true], TestTransport.all)
    func aCancelLeavesTheFile(withProgress: Bool, via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let received = AsyncStream<Void>.makeStream()
        server.route("/stalls") { _ in
            received.continuation.yield()
            return .streamed([Data(repeating: 7, count: 64 << 10)], then: .stall)
        }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let inode = try scratch.inode()
        let reports = LockedBox<[TransferProgress]>([])
        let progress = Self.progress(withProgress, into: reports)
        let download = Task {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await transport.client().download(
                    FileEndpoint("stalls"), to: scratch.destination, progress: progress)
            }
        }
        var events = received.stream.makeAsyncIterator()
        _ = await events.next()
        download.cancel()
        let error = await #expect(throws: FileEndpoint.TaskError.self) { try await download.value }
        guard case .cancelled = error else {
            Issue.record("expected .cancelled, got \(String(describing: error))")
            return
        }
        try scratch.expectUntouched(inode: inode)
    }

    // MARK: Destinations that fail before the transport is called: one transport is enough.

    /// A destination that is a directory fails before anything is sent, naming the path.
    @Test(arguments: [false, true])
    func aDirectoryDestinationFailsBeforeSending(withProgress: Bool) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let target = scratch.directory.appendingPathComponent("folder")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        let reports = LockedBox<[TransferProgress]>([])
        let error = await #expect(throws: FileEndpoint.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await URLSession.shared.download(
                    FileEndpoint("missing"), to: target, progress: Self.progress(withProgress, into: reports))
            }
        }
        Self.expectFileError(error, code: .cannotCreateFile, path: target.path)
        #expect(server.requestCount == 0)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: target.path, isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
        #expect(try scratch.contents() == ["firmware.bin", "folder"])
    }

    /// A destination whose directory does not exist fails before anything is sent, naming the path.
    @Test(arguments: [false, true])
    func aMissingDirectoryFailsBeforeSending(withProgress: Bool) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let target = scratch.directory.appendingPathComponent("absent").appendingPathComponent("file.bin")
        let reports = LockedBox<[TransferProgress]>([])
        let error = await #expect(throws: FileEndpoint.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await URLSession.shared.download(
                    FileEndpoint("missing"), to: target, progress: Self.progress(withProgress, into: reports))
            }
        }
        Self.expectFileError(error, code: .cannotCreateFile, path: target.path)
        #expect(server.requestCount == 0)
        #expect(try scratch.contents() == ["firmware.bin"])
    }

    /// A directory that cannot be written, even by root: `/sys` refuses new files on Linux.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/sys/kernel")), arguments: [false, true])
    func anUnwritableDirectoryFailsBeforeSending(withProgress: Bool) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let target = URL(fileURLWithPath: "/sys/endpoints-download-\(UUID().uuidString)")
        let reports = LockedBox<[TransferProgress]>([])
        let error = await #expect(throws: FileEndpoint.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await URLSession.shared.download(
                    FileEndpoint("missing"), to: target, progress: Self.progress(withProgress, into: reports))
            }
        }
        Self.expectFileError(error, code: .cannotCreateFile, path: target.path)
        #expect(server.requestCount == 0)
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    private static func expectFileError(
        _ error: FileEndpoint.TaskError?, code: URLError.Code, path: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .urlLoadError(let urlError) = error else {
            Issue.record("expected .urlLoadError, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(urlError.code == code, sourceLocation: sourceLocation)
        #expect(urlError.userInfo[NSFilePathErrorKey] as? String == path, sourceLocation: sourceLocation)
        let description = urlError.userInfo[NSLocalizedDescriptionKey] as? String ?? ""
        #expect(description.contains(path), "\(description)", sourceLocation: sourceLocation)
        #expect(String(describing: error).contains(path), sourceLocation: sourceLocation)
    }
}
