import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A home directory of real files under a folder (the live wire: `workbench serve --state-dir`), so what users
/// upload is on disk and survives a restart.
///
/// Symbolic links are never followed: every component of a path is checked with `lstat`, and files are opened with
/// `O_NOFOLLOW`, so a link planted in the home cannot lead outside it. Usage is counted at start and kept up to date.
/// Every call is disk I/O: live the host makes them on the node's blocking threads, never on an event loop, one at a
/// time (behind a ``LockedHomeFileSystem``).
public final class DiskHomeFileSystem: HomeFileSystem, @unchecked Sendable {
    // @unchecked Sendable: used by one caller at a time (the host wraps it in a LockedHomeFileSystem).

    public let homePath: String
    public let quotaBytes: Int64
    public private(set) var usedBytes: Int64 = 0
    private let root: String
    private let resolver: HomePathResolver
    private let diskFull: @Sendable () -> Bool

    /// - parameters:
    ///   - root: the folder that holds this user's files (created when missing).
    ///   - diskFull: checked on every write; true fails it with "No space left on device" (a fault point).
    public init(root: String, homePath: String, quotaBytes: Int64, diskFull: @escaping @Sendable () -> Bool = { false }) throws {
        self.root = root
        self.homePath = homePath
        self.quotaBytes = quotaBytes
        self.resolver = HomePathResolver(homePath: homePath)
        self.diskFull = diskFull
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        usedBytes = Self.usage(of: root)
    }

    private static func usage(of folder: String) -> Int64 {
        var total: Int64 = 0
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return 0 }
        while let name = walker.nextObject() as? String {
            var info = stat()
            if lstat("\(folder)/\(name)", &info) == 0, info.st_mode & S_IFMT == S_IFREG { total += Int64(info.st_size) }
        }
        return total
    }

    public func resolve(_ path: String) throws(FileSystemError) -> String { try resolver.resolve(path) }

    /// The real path, after checking that no component on the way is a symbolic link.
    private func real(_ path: String, includingLast: Bool = true) throws(FileSystemError) -> String {
        var current = root
        let components = path.split(separator: "/")
        for (index, component) in components.enumerated() {
            current += "/" + component
            if index == components.count - 1 && !includingLast { break }
            var info = stat()
            if lstat(current, &info) == 0 {
                if info.st_mode & S_IFMT == S_IFLNK { throw FileSystemError(.symbolicLink, path) }
            } else if index < components.count - 1 {
                throw FileSystemError(errno == ENOTDIR ? .notADirectory : .noSuchFile, path)
            }
        }
        return current
    }

    public func attributes(of path: String) throws(FileSystemError) -> FileAttributes {
        var info = stat()
        guard lstat(try real(path), &info) == 0 else { throw Self.error(errno, path) }
        let kind: FileAttributes.Kind
        switch info.st_mode & S_IFMT {
        case S_IFDIR: kind = .directory
        case S_IFREG: kind = .file
        default: throw FileSystemError(.symbolicLink, path)
        }
        return FileAttributes(
            kind: kind, size: kind == .directory ? 4096 : Int64(info.st_size),
            permissions: UInt32(info.st_mode) & 0o7777, modified: Int64(info.st_mtim.tv_sec))
    }

    public func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] {
        guard try attributes(of: path).kind == .directory else { throw FileSystemError(.notADirectory, path) }
        do {
            return try FileManager.default.contentsOfDirectory(atPath: try real(path)).sorted()
        } catch {
            throw FileSystemError(.ioError, path)
        }
    }

    public func createDirectory(_ path: String, permissions: UInt32) throws(FileSystemError) {
        guard mkdir(try real(path), mode_t(permissions & 0o7777)) == 0 else { throw Self.error(errno, path) }
    }

    public func removeFile(_ path: String) throws(FileSystemError) {
        let size = try attributes(of: path)
        guard size.kind == .file else { throw FileSystemError(.isADirectory, path) }
        guard unlink(try real(path)) == 0 else { throw Self.error(errno, path) }
        usedBytes -= size.size
    }

    public func removeDirectory(_ path: String) throws(FileSystemError) {
        guard !path.isEmpty else { throw FileSystemError(.permissionDenied, path) }
        guard rmdir(try real(path)) == 0 else { throw Self.error(errno, path) }
    }

    public func rename(_ path: String, to newPath: String) throws(FileSystemError) {
        let replaced = (try? attributes(of: newPath)).flatMap { $0.kind == .file ? $0.size : nil } ?? 0
        guard Glibc.rename(try real(path), try real(newPath)) == 0 else { throw Self.error(errno, newPath) }
        usedBytes -= replaced
    }

    public func createFile(_ path: String, permissions: UInt32, truncate: Bool, exclusive: Bool) throws(FileSystemError) {
        guard !path.isEmpty else { throw FileSystemError(.isADirectory, path) }
        let before = (try? attributes(of: path))?.size ?? 0
        var flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC
        if truncate { flags |= O_TRUNC }
        if exclusive { flags |= O_EXCL }
        let descriptor = open(try real(path), flags, mode_t(permissions & 0o7777))
        guard descriptor >= 0 else { throw Self.error(errno, path) }
        close(descriptor)
        if truncate { usedBytes -= before }
    }

    public func write(_ path: String, at offset: Int64, _ bytes: ArraySlice<UInt8>) throws(FileSystemError) {
        guard offset >= 0 else { throw FileSystemError(.invalidArgument, path) }
        guard !bytes.isEmpty else { return }
        let size = try attributes(of: path)
        guard size.kind == .file else { throw FileSystemError(.isADirectory, path) }
        let growth = max(0, offset + Int64(bytes.count) - size.size)
        if diskFull() { throw FileSystemError(.noSpace, path) }
        guard usedBytes + growth <= quotaBytes else { throw FileSystemError(.diskQuotaExceeded, path) }
        let descriptor = open(try real(path), O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.error(errno, path) }
        defer { close(descriptor) }
        var written = 0
        var failure: Int32 = 0
        bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard let base = buffer.baseAddress else { return }
            while written < buffer.count {
                let count = pwrite(descriptor, base + written, buffer.count - written, off_t(offset) + off_t(written))
                guard count > 0 else {
                    failure = errno
                    return
                }
                written += count
            }
        }
        if failure != 0 { throw Self.error(failure, path) }
        usedBytes += growth
    }

    public func read(_ path: String, at offset: Int64, count: Int) throws(FileSystemError) -> [UInt8] {
        guard offset >= 0, count >= 0 else { throw FileSystemError(.invalidArgument, path) }
        let descriptor = open(try real(path), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.error(errno, path) }
        defer { close(descriptor) }
        var out = [UInt8](repeating: 0, count: count)
        let got = out.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
        guard got >= 0 else { throw Self.error(errno, path) }
        out.removeLast(count - got)
        return out
    }

    public func truncate(_ path: String, to size: Int64) throws(FileSystemError) {
        let before = try attributes(of: path)
        guard before.kind == .file else { throw FileSystemError(.isADirectory, path) }
        guard size >= 0 else { throw FileSystemError(.invalidArgument, path) }
        let growth = size - before.size
        guard growth <= 0 || usedBytes + growth <= quotaBytes else { throw FileSystemError(.diskQuotaExceeded, path) }
        let descriptor = open(try real(path), O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.error(errno, path) }
        defer { close(descriptor) }
        guard ftruncate(descriptor, off_t(size)) == 0 else { throw Self.error(errno, path) }
        usedBytes += growth
    }

    public func setPermissions(_ path: String, _ permissions: UInt32) throws(FileSystemError) {
        _ = try attributes(of: path)
        guard chmod(try real(path), mode_t(permissions & 0o7777)) == 0 else { throw Self.error(errno, path) }
    }

    private static func error(_ number: Int32, _ path: String) -> FileSystemError {
        switch number {
        case ENOENT: FileSystemError(.noSuchFile, path)
        case EEXIST: FileSystemError(.fileExists, path)
        case ENOTDIR: FileSystemError(.notADirectory, path)
        case EISDIR: FileSystemError(.isADirectory, path)
        case ENOTEMPTY: FileSystemError(.directoryNotEmpty, path)
        case EACCES, EPERM: FileSystemError(.permissionDenied, path)
        case EDQUOT: FileSystemError(.diskQuotaExceeded, path)
        case ENOSPC: FileSystemError(.noSpace, path)
        case ENAMETOOLONG: FileSystemError(.nameTooLong, path)
        case ELOOP: FileSystemError(.symbolicLink, path)
        case EINVAL: FileSystemError(.invalidArgument, path)
        default: FileSystemError(.ioError, path)
        }
    }
}
