import Synchronization

/// A home shared by every connection of its user: each operation runs whole under the home's lock, so the quota check
/// and the write it allows are one step, and two uploads of the same user never interleave inside an operation.
///
/// Live, the host's connections run on every event loop and their file work on the node's blocking threads, several
/// at once; the homes themselves (``DiskHomeFileSystem``, ``InMemoryHomeFileSystem``) are written for one caller at a
/// time. The lock is taken only on those threads (never on an event loop live); under simulation everything runs on
/// the one loop and it is never contended.
public final class LockedHomeFileSystem: HomeFileSystem {
    private let home: Mutex<any HomeFileSystem>
    public let homePath: String
    public let quotaBytes: Int64

    public init(_ home: any HomeFileSystem) {
        self.homePath = home.homePath
        self.quotaBytes = home.quotaBytes
        self.home = Mutex(home)
    }

    private func locked<T>(_ body: (any HomeFileSystem) throws(FileSystemError) -> T) throws(FileSystemError) -> T {
        try home.withLock { (home) throws(FileSystemError) -> T in try body(home) }
    }

    public var usedBytes: Int64 { home.withLock { $0.usedBytes } }
    public func resolve(_ path: String) throws(FileSystemError) -> String { try locked { (home) throws(FileSystemError) in try home.resolve(path) } }
    public func attributes(of path: String) throws(FileSystemError) -> FileAttributes {
        try locked { (home) throws(FileSystemError) in try home.attributes(of: path) }
    }
    public func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] {
        try locked { (home) throws(FileSystemError) in try home.contentsOfDirectory(path) }
    }
    public func createDirectory(_ path: String, permissions: UInt32) throws(FileSystemError) {
        try locked { (home) throws(FileSystemError) in try home.createDirectory(path, permissions: permissions) }
    }
    public func removeFile(_ path: String) throws(FileSystemError) { try locked { (home) throws(FileSystemError) in try home.removeFile(path) } }
    public func removeDirectory(_ path: String) throws(FileSystemError) {
        try locked { (home) throws(FileSystemError) in try home.removeDirectory(path) }
    }
    public func rename(_ path: String, to newPath: String) throws(FileSystemError) {
        try locked { (home) throws(FileSystemError) in try home.rename(path, to: newPath) }
    }
    public func createFile(_ path: String, permissions: UInt32, truncate: Bool, exclusive: Bool) throws(FileSystemError) {
        try locked { (home) throws(FileSystemError) in try home.createFile(path, permissions: permissions, truncate: truncate, exclusive: exclusive) }
    }
    public func write(_ path: String, at offset: Int64, _ bytes: ArraySlice<UInt8>) throws(FileSystemError) {
        try locked { (home) throws(FileSystemError) in try home.write(path, at: offset, bytes) }
    }
    public func read(_ path: String, at offset: Int64, count: Int) throws(FileSystemError) -> [UInt8] {
        try locked { (home) throws(FileSystemError) in try home.read(path, at: offset, count: count) }
    }
    public func truncate(_ path: String, to size: Int64) throws(FileSystemError) {
        try locked { (home) throws(FileSystemError) in try home.truncate(path, to: size) }
    }
    public func setPermissions(_ path: String, _ permissions: UInt32) throws(FileSystemError) {
        try locked { (home) throws(FileSystemError) in try home.setPermissions(path, permissions) }
    }
}
