import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The file a download writes: a temporary file beside the destination, which takes the
/// destination's place with one `rename(2)` once the whole body is there.
///
/// Being in the destination's directory, the temporary file is on its file system, so the rename
/// is atomic: a reader of the destination sees the old file or the new one, never a part, and a
/// download that fails leaves the old file as it was (same bytes, same inode). It is created
/// before anything is sent, so a destination that cannot be written fails the call up front. The
/// new file keeps the permissions of a regular file it replaces; a symbolic link at the
/// destination is replaced itself, its target left alone.
///
/// A resumable download writes to one file of a known name instead, `.NAME.partial`, held with
/// an exclusive `flock(2)` while it is written, beside `.NAME.partial.json`, the record of what
/// its bytes are a part of (``DownloadResumption/Record``). A failure keeps both when there is a
/// record, for the next resumable download to the same destination to continue. When another
/// download holds the lock, this one writes a temporary file of its own, as one that is not
/// resumable does.
struct FileSink {
    let destination: URL
    let temporary: URL
    private let handle: FileHandle
    /// The permissions the file gets: the replaced file's, or a new file's (the umask applied).
    private let mode: mode_t
    /// Where the record of a resumable download's kept bytes is written; `nil` when the download
    /// is not resumable.
    let recordFile: URL?

    /// Creates the temporary file beside `destination`, or opens the kept part of an earlier
    /// attempt when `resumable`.
    ///
    /// - Throws: `URLError.cannotCreateFile`, naming the path, when `destination` is a directory
    ///   or its directory does not exist or cannot be written.
    init(destination: URL, resumable: Bool = false) throws(URLError) {
        self.destination = destination
        let path = destination.path
        var existing = stat()
        let exists = lstat(path, &existing) == 0
        if exists, existing.st_mode & S_IFMT == S_IFDIR {
            throw Self.error(.cannotCreateFile, path: path, "it is a directory")
        }
        let directory = destination.deletingLastPathComponent()
        let partial = directory.appendingPathComponent(".\(destination.lastPathComponent).partial")
        var descriptor: Int32 = -1
        if resumable {
            descriptor = open(partial.path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o666)
            var opened = stat()
            // Another download of this destination holds it (or it is not a regular file): this
            // one is not resumable.
            if descriptor >= 0,
                flock(descriptor, LOCK_EX | LOCK_NB) != 0 || fstat(descriptor, &opened) != 0
                    || opened.st_mode & S_IFMT != S_IFREG
            {
                close(descriptor)
                descriptor = -1
            }
        }
        if descriptor >= 0 {
            temporary = partial
            recordFile = directory.appendingPathComponent(".\(destination.lastPathComponent).partial.json")
        } else {
            temporary = directory.appendingPathComponent(
                ".\(destination.lastPathComponent).\(UUID().uuidString).download")
            recordFile = nil
            descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        }
        guard descriptor >= 0 else {
            let code = errno
            let reason =
                switch code {
                case ENOENT, ENOTDIR: "its directory does not exist"
                case EACCES, EPERM, EROFS: "its directory is not writable"
                default: String(cString: strerror(code))
                }
            throw Self.error(.cannotCreateFile, path: path, reason, errno: code)
        }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        // Kept bytes are continued from their end.
        if recordFile != nil { _ = lseek(descriptor, 0, SEEK_END) }
        if exists, existing.st_mode & S_IFMT == S_IFREG {
            mode = existing.st_mode & 0o7777
            _ = fchmod(descriptor, mode)
        } else {
            var created = stat()
            mode = fstat(descriptor, &created) == 0 ? created.st_mode & 0o7777 : 0o644
        }
    }

    /// What the kept bytes of an earlier attempt are, for a resumable download: their record and
    /// how many there are. `nil` for a download that is not resumable.
    func resumption() -> DownloadResumption? {
        guard let recordFile else { return nil }
        var opened = stat()
        let kept = fstat(handle.fileDescriptor, &opened) == 0 ? Int64(opened.st_size) : 0
        let record = (try? Data(contentsOf: recordFile)).flatMap {
            try? JSONDecoder().decode(DownloadResumption.Record.self, from: $0)
        }
        // A record edited by hand must not put a line break into a request's `If-Range`.
        return DownloadResumption(
            record: record.flatMap { DownloadResumption.isSendable($0.validator) ? $0 : nil }, kept: kept)
    }

    /// Empties the file to write a body from its start, and writes `record` beside it (or removes
    /// the one there): the record of what the bytes will be, for a later attempt to continue.
    func restart(keeping record: DownloadResumption.Record?) throws(URLError) {
        do {
            try handle.truncate(atOffset: 0)
        } catch {
            throw Self.error(
                .cannotWriteToFile, path: destination.path, "the file could not be written", underlying: error)
        }
        guard let recordFile else { return }
        guard let record else {
            _ = unlink(recordFile.path)
            return
        }
        do {
            try JSONEncoder().encode(record).write(to: recordFile, options: .atomic)
        } catch {
            throw Self.error(
                .cannotWriteToFile, path: destination.path, "the download's record could not be written",
                underlying: error)
        }
    }

    func write(_ data: Data) throws(URLError) {
        do {
            try handle.write(contentsOf: data)
        } catch {
            throw Self.error(
                .cannotWriteToFile, path: destination.path, "the file could not be written", underlying: error)
        }
    }

    /// Puts the file in the destination's place; with `spooled`, that file (which the transport
    /// wrote the whole body to) is what takes it. On failure the destination is left as it was and
    /// both files are removed.
    func commit(replacingWith spooled: URL? = nil) throws(URLError) {
        do throws(URLError) {
            // A resumable download's file is renamed while its lock is held, so that no other
            // download takes it for kept bytes meanwhile.
            if recordFile == nil { try closeFile() }
            if let spooled { try adopt(spooled) }
            guard rename(temporary.path, destination.path) == 0 else {
                let code = errno
                throw Self.error(
                    .cannotMoveFile, path: destination.path,
                    "the download could not replace it (\(String(cString: strerror(code))))", errno: code)
            }
            if let recordFile {
                _ = unlink(recordFile.path)
                try closeFile()
            }
        } catch {
            discard()
            if let spooled { try? FileManager.default.removeItem(at: spooled) }
            throw error
        }
    }

    private func closeFile() throws(URLError) {
        do {
            try handle.close()
        } catch {
            throw Self.error(
                .cannotWriteToFile, path: destination.path, "the file could not be written", underlying: error)
        }
    }

    /// Makes `spooled` the temporary file: renamed over it on the same file system, copied into
    /// it from another one (corelibs spools to the system's temporary directory).
    private func adopt(_ spooled: URL) throws(URLError) {
        if rename(spooled.path, temporary.path) == 0 {
            _ = chmod(temporary.path, mode)
            return
        }
        do {
            let source = try FileHandle(forReadingFrom: spooled)
            defer { try? source.close() }
            let target = try FileHandle(forWritingTo: temporary)
            defer { try? target.close() }
            try target.truncate(atOffset: 0)
            while let chunk = try source.read(upToCount: 1 << 20), !chunk.isEmpty {
                try target.write(contentsOf: chunk)
            }
        } catch {
            throw Self.error(
                .cannotWriteToFile, path: destination.path, "the download could not be copied beside it",
                underlying: error)
        }
        try? FileManager.default.removeItem(at: spooled)
    }

    /// Removes the temporary file, unless it holds a resumable download's kept bytes (their record
    /// is beside it); the destination is left as it was.
    func discard() {
        try? handle.close()
        if let recordFile, access(recordFile.path, F_OK) == 0 { return }
        _ = unlink(temporary.path)
    }

    /// `code`, with `path` in `NSFilePathErrorKey` and a sentence naming it as its description.
    private static func error(
        _ code: URLError.Code, path: String, _ reason: String, errno: Int32? = nil, underlying: (any Error)? = nil
    ) -> URLError {
        var userInfo: [String: Any] = [
            NSFilePathErrorKey: path,
            NSLocalizedDescriptionKey: "Cannot download to \(path): \(reason).",
        ]
        if let underlying {
            userInfo[NSUnderlyingErrorKey] = underlying
        } else if let errno {
            userInfo[NSUnderlyingErrorKey] = NSError(domain: NSPOSIXErrorDomain, code: Int(errno))
        }
        return URLError(code, userInfo: userInfo)
    }
}
