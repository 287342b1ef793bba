/// One user's home directory as the host's shell, SCP and SFTP see it.
///
/// Paths handed to the operations are canonical and relative to the home (`""` is the home itself, components
/// joined by `/`): get them from ``resolve(_:)``, which is where every escape (`..`, absolute paths elsewhere,
/// symbolic links on disk) is refused. Implementations serve one caller at a time; ``LockedHomeFileSystem`` shares
/// one between the threads the host's connections use.
public protocol HomeFileSystem: AnyObject, Sendable {
    /// How the home looks from inside, e.g. `/home/demo`.
    var homePath: String { get }
    /// Bytes used by the user's files, and the most they may use (Disk quota exceeded beyond).
    var usedBytes: Int64 { get }
    var quotaBytes: Int64 { get }

    /// The canonical relative path of `path` (relative to the home, or absolute under ``homePath``).
    func resolve(_ path: String) throws(FileSystemError) -> String
    func attributes(of path: String) throws(FileSystemError) -> FileAttributes
    /// Names in a directory, sorted.
    func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String]
    func createDirectory(_ path: String, permissions: UInt32) throws(FileSystemError)
    func removeFile(_ path: String) throws(FileSystemError)
    func removeDirectory(_ path: String) throws(FileSystemError)
    func rename(_ path: String, to newPath: String) throws(FileSystemError)
    /// Creates a regular file, or opens an existing one (emptying it when `truncate`; failing when `exclusive`).
    func createFile(_ path: String, permissions: UInt32, truncate: Bool, exclusive: Bool) throws(FileSystemError)
    /// Writes at `offset`, extending the file (a gap reads as zeros). Nothing is written when the quota would be exceeded.
    func write(_ path: String, at offset: Int64, _ bytes: ArraySlice<UInt8>) throws(FileSystemError)
    /// Up to `count` bytes from `offset`; empty at or past the end.
    func read(_ path: String, at offset: Int64, count: Int) throws(FileSystemError) -> [UInt8]
    func truncate(_ path: String, to size: Int64) throws(FileSystemError)
    func setPermissions(_ path: String, _ permissions: UInt32) throws(FileSystemError)
}

extension HomeFileSystem {
    /// The whole file, refusing one larger than `limit` (converters read whole documents; limits keep that bounded).
    public func readAll(_ path: String, limit: Int) throws(FileSystemError) -> [UInt8] {
        let size = try attributes(of: path).size
        guard size <= Int64(limit) else { throw FileSystemError(.fileTooLarge, path) }
        var out: [UInt8] = []
        out.reserveCapacity(Int(size))
        while out.count < Int(size) {
            let chunk = try read(path, at: Int64(out.count), count: min(1 << 20, Int(size) - out.count))
            if chunk.isEmpty { break }
            out += chunk
        }
        return out
    }

    /// Replaces (or creates) a file with `bytes`.
    public func writeAll(_ path: String, _ bytes: [UInt8], permissions: UInt32 = 0o644) throws(FileSystemError) {
        try createFile(path, permissions: permissions, truncate: true, exclusive: false)
        try write(path, at: 0, bytes[...])
    }

    /// Whether something exists at the (canonical) path.
    public func exists(_ path: String) -> Bool { (try? attributes(of: path)) != nil }
}

/// What `stat` says about a file.
public struct FileAttributes: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case file, directory }
    public var kind: Kind
    public var size: Int64
    /// Permission bits (0o644…), without the file type.
    public var permissions: UInt32
    /// Modification time, Unix seconds.
    public var modified: Int64

    public init(kind: Kind, size: Int64, permissions: UInt32, modified: Int64) {
        self.kind = kind
        self.size = size
        self.permissions = permissions
        self.modified = modified
    }
}

/// A failed file operation, described in the words of the Unix error it stands for.
public struct FileSystemError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        case noSuchFile, fileExists, notADirectory, isADirectory, directoryNotEmpty, permissionDenied
        case diskQuotaExceeded, noSpace, nameTooLong, invalidArgument, symbolicLink, fileTooLarge, ioError
    }

    public let code: Code
    /// The path as the operation was given it (relative to the home).
    public let path: String

    public init(_ code: Code, _ path: String) {
        self.code = code
        self.path = path
    }

    /// strerror's text, e.g. "No such file or directory".
    public var description: String {
        switch code {
        case .noSuchFile: "No such file or directory"
        case .fileExists: "File exists"
        case .notADirectory: "Not a directory"
        case .isADirectory: "Is a directory"
        case .directoryNotEmpty: "Directory not empty"
        case .permissionDenied: "Permission denied"
        case .diskQuotaExceeded: "Disk quota exceeded"
        case .noSpace: "No space left on device"
        case .nameTooLong: "File name too long"
        case .invalidArgument: "Invalid argument"
        case .symbolicLink: "Too many levels of symbolic links"
        case .fileTooLarge: "File too large"
        case .ioError: "Input/output error"
        }
    }
}

/// Turns user-supplied paths into canonical home-relative ones, refusing anything that would leave the home.
public struct HomePathResolver: Sendable {
    public static let maximumComponentBytes = 255
    public static let maximumPathBytes = 4096

    public let homePath: String

    public init(homePath: String) { self.homePath = homePath }

    public func resolve(_ path: String) throws(FileSystemError) -> String {
        guard !path.utf8.contains(0) else { throw FileSystemError(.invalidArgument, path) }
        guard path.utf8.count <= Self.maximumPathBytes else { throw FileSystemError(.nameTooLong, path) }
        // Split by scalar, not by Character: "/" followed by a combining mark is one Character, and a split by
        // Character would keep it inside a name — which the operating system would still read as a separator.
        let parts = path.unicodeScalars.split(separator: "/", omittingEmptySubsequences: true).map { String(String.UnicodeScalarView($0)) }
        var components: [String] = []
        if path.unicodeScalars.first == "/" {
            // An absolute path is resolved from the root, then must lie inside the home, as it would on the host.
            for component in parts {
                switch component {
                case ".": continue
                case "..": _ = components.popLast()
                default: components.append(component)
                }
            }
            let home = homePath.split(separator: "/").map(String.init)
            guard components.starts(with: home) else { throw FileSystemError(.permissionDenied, path) }
            components.removeFirst(home.count)
        } else {
            for component in parts {
                switch component {
                case ".": continue
                case "..":
                    // `..` above the home would leave it: refused, never clamped, so nothing lands somewhere unexpected.
                    guard components.popLast() != nil else { throw FileSystemError(.permissionDenied, path) }
                default: components.append(component)
                }
            }
        }
        guard components.allSatisfy({ $0.utf8.count <= Self.maximumComponentBytes }) else { throw FileSystemError(.nameTooLong, path) }
        let canonical = components.joined(separator: "/")
        // Names that would fuse with a neighbouring "/" into one Character are refused, so every "/" of a canonical
        // path stands alone and Character-based code downstream sees the same components.
        guard canonical.split(separator: "/", omittingEmptySubsequences: false).map(String.init) == (canonical.isEmpty ? [""] : components) else {
            throw FileSystemError(.invalidArgument, path)
        }
        return canonical
    }
}
