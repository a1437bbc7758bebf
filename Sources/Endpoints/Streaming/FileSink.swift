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
struct FileSink {
    let destination: URL
    let temporary: URL
    private let handle: FileHandle
    /// The permissions the file gets: the replaced file's, or a new file's (the umask applied).
    private let mode: mode_t

    /// Creates the temporary file beside `destination`.
    ///
    /// - Throws: `URLError.cannotCreateFile`, naming the path, when `destination` is a directory
    ///   or its directory does not exist or cannot be written.
    init(destination: URL) throws(URLError) {
        self.destination = destination
        let path = destination.path
        var existing = stat()
        let exists = lstat(path, &existing) == 0
        if exists, existing.st_mode & S_IFMT == S_IFDIR {
            throw Self.error(.cannotCreateFile, path: path, "it is a directory")
        }
        temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).download")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
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
        if exists, existing.st_mode & S_IFMT == S_IFREG {
            mode = existing.st_mode & 0o7777
            _ = fchmod(descriptor, mode)
        } else {
            var created = stat()
            mode = fstat(descriptor, &created) == 0 ? created.st_mode & 0o7777 : 0o644
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
            do {
                try handle.close()
            } catch {
                throw Self.error(
                    .cannotWriteToFile, path: destination.path, "the file could not be written", underlying: error)
            }
            if let spooled { try adopt(spooled) }
            guard rename(temporary.path, destination.path) == 0 else {
                let code = errno
                throw Self.error(
                    .cannotMoveFile, path: destination.path,
                    "the download could not replace it (\(String(cString: strerror(code))))", errno: code)
            }
        } catch {
            discard()
            if let spooled { try? FileManager.default.removeItem(at: spooled) }
            throw error
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

    /// Removes the temporary file; the destination is left as it was.
    func discard() {
        try? handle.close()
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
