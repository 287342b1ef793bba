/// A home directory kept in memory: the simulated wire's file system, fast and deterministic.
///
/// Used by one caller at a time: under simulation all of the host's work runs on its one loop; live the host wraps it
/// in a ``LockedHomeFileSystem``.
public final class InMemoryHomeFileSystem: HomeFileSystem, @unchecked Sendable {
    // @unchecked Sendable: used by one caller at a time (see above).

    private enum Node {
        case file(bytes: [UInt8], permissions: UInt32, modified: Int64)
        case directory(permissions: UInt32, modified: Int64)
    }

    /// Files and directories per home; a runaway client cannot fill memory with empty files either.
    public static let maximumEntries = 100_000

    public let homePath: String
    public let quotaBytes: Int64
    public private(set) var usedBytes: Int64 = 0
    private let resolver: HomePathResolver
    private let now: @Sendable () -> Int64
    private let diskFull: @Sendable () -> Bool
    private var nodes: [String: Node]

    /// - parameters:
    ///   - now: Unix seconds for modification times (the host's clock).
    ///   - diskFull: checked on every write; true fails it with "No space left on device" (a fault point).
    public init(
        homePath: String, quotaBytes: Int64, now: @escaping @Sendable () -> Int64,
        diskFull: @escaping @Sendable () -> Bool = { false }
    ) {
        self.homePath = homePath
        self.quotaBytes = quotaBytes
        self.resolver = HomePathResolver(homePath: homePath)
        self.now = now
        self.diskFull = diskFull
        self.nodes = ["": .directory(permissions: 0o755, modified: now())]
    }

    public func resolve(_ path: String) throws(FileSystemError) -> String { try resolver.resolve(path) }

    public func attributes(of path: String) throws(FileSystemError) -> FileAttributes {
        switch nodes[path] {
        case .file(let bytes, let permissions, let modified)?:
            return FileAttributes(kind: .file, size: Int64(bytes.count), permissions: permissions, modified: modified)
        case .directory(let permissions, let modified)?:
            return FileAttributes(kind: .directory, size: 4096, permissions: permissions, modified: modified)
        case nil:
            try checkParent(of: path)
            throw FileSystemError(.noSuchFile, path)
        }
    }

    public func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] {
        guard case .directory? = nodes[path] else {
            throw FileSystemError(nodes[path] == nil ? .noSuchFile : .notADirectory, path)
        }
        let prefix = path.isEmpty ? "" : path + "/"
        return nodes.keys.filter { $0.hasPrefix(prefix) && !$0.isEmpty && $0 != path && !$0.dropFirst(prefix.count).contains("/") }
            .map { String($0.dropFirst(prefix.count)) }.sorted()
    }

    public func createDirectory(_ path: String, permissions: UInt32) throws(FileSystemError) {
        guard nodes[path] == nil else { throw FileSystemError(.fileExists, path) }
        try checkParent(of: path)
        try checkRoom(path)
        nodes[path] = .directory(permissions: permissions & 0o7777, modified: now())
    }

    public func removeFile(_ path: String) throws(FileSystemError) {
        switch nodes[path] {
        case .file(let bytes, _, _)?:
            usedBytes -= Int64(bytes.count)
            nodes[path] = nil
        case .directory?:
            throw FileSystemError(.isADirectory, path)
        case nil:
            try checkParent(of: path)
            throw FileSystemError(.noSuchFile, path)
        }
    }

    public func removeDirectory(_ path: String) throws(FileSystemError) {
        guard !path.isEmpty else { throw FileSystemError(.permissionDenied, path) }
        switch nodes[path] {
        case .directory?:
            guard try contentsOfDirectory(path).isEmpty else { throw FileSystemError(.directoryNotEmpty, path) }
            nodes[path] = nil
        case .file?:
            throw FileSystemError(.notADirectory, path)
        case nil:
            throw FileSystemError(.noSuchFile, path)
        }
    }

    public func rename(_ path: String, to newPath: String) throws(FileSystemError) {
        guard let node = nodes[path], !path.isEmpty else { throw FileSystemError(.noSuchFile, path) }
        guard newPath != path else { return }
        guard !newPath.hasPrefix(path + "/"), !newPath.isEmpty else { throw FileSystemError(.invalidArgument, newPath) }
        try checkParent(of: newPath)
        if let existing = nodes[newPath] {
            switch (node, existing) {
            case (.file, .file):
                try removeFile(newPath)
            case (.directory, .directory):
                try removeDirectory(newPath)
            case (.file, .directory):
                throw FileSystemError(.isADirectory, newPath)
            case (.directory, .file):
                throw FileSystemError(.notADirectory, newPath)
            }
        }
        let moved = nodes.keys.filter { $0 == path || $0.hasPrefix(path + "/") }.sorted()
        for old in moved {
            let renamed = newPath + old.dropFirst(path.count)
            nodes[renamed] = nodes[old]
            nodes[old] = nil
        }
    }

    public func createFile(_ path: String, permissions: UInt32, truncate: Bool, exclusive: Bool) throws(FileSystemError) {
        switch nodes[path] {
        case .file(let bytes, let mode, _)?:
            guard !exclusive else { throw FileSystemError(.fileExists, path) }
            if truncate {
                usedBytes -= Int64(bytes.count)
                nodes[path] = .file(bytes: [], permissions: mode, modified: now())
            }
        case .directory?:
            throw FileSystemError(.isADirectory, path)
        case nil:
            guard !path.isEmpty else { throw FileSystemError(.isADirectory, path) }
            try checkParent(of: path)
            try checkRoom(path)
            nodes[path] = .file(bytes: [], permissions: permissions & 0o7777, modified: now())
        }
    }

    public func write(_ path: String, at offset: Int64, _ bytes: ArraySlice<UInt8>) throws(FileSystemError) {
        guard case .file(var contents, let permissions, _)? = nodes[path] else {
            throw FileSystemError(nodes[path] == nil ? .noSuchFile : .isADirectory, path)
        }
        guard offset >= 0, offset <= Int64(Int32.max) * 16 else { throw FileSystemError(.invalidArgument, path) }
        guard !bytes.isEmpty else { return }
        let end = Int(offset) + bytes.count
        let growth = Int64(max(0, end - contents.count))
        if diskFull() { throw FileSystemError(.noSpace, path) }
        guard usedBytes + growth <= quotaBytes else { throw FileSystemError(.diskQuotaExceeded, path) }
        // Take the bytes out of the table while writing, so the array is uniquely referenced and appends stay O(1).
        nodes[path] = nil
        if Int(offset) == contents.count {
            contents.append(contentsOf: bytes)
        } else {
            if end > contents.count { contents.append(contentsOf: repeatElement(0, count: end - contents.count)) }
            contents.replaceSubrange(Int(offset)..<end, with: bytes)
        }
        usedBytes += growth
        nodes[path] = .file(bytes: contents, permissions: permissions, modified: now())
    }

    public func read(_ path: String, at offset: Int64, count: Int) throws(FileSystemError) -> [UInt8] {
        guard case .file(let contents, _, _)? = nodes[path] else {
            throw FileSystemError(nodes[path] == nil ? .noSuchFile : .isADirectory, path)
        }
        guard offset >= 0, count >= 0 else { throw FileSystemError(.invalidArgument, path) }
        guard offset < Int64(contents.count) else { return [] }
        let start = Int(offset)
        return Array(contents[start..<min(contents.count, start + count)])
    }

    public func truncate(_ path: String, to size: Int64) throws(FileSystemError) {
        guard case .file(var contents, let permissions, _)? = nodes[path] else {
            throw FileSystemError(nodes[path] == nil ? .noSuchFile : .isADirectory, path)
        }
        guard size >= 0, size <= Int64(Int32.max) * 16 else { throw FileSystemError(.invalidArgument, path) }
        let growth = size - Int64(contents.count)
        guard growth <= 0 || usedBytes + growth <= quotaBytes else { throw FileSystemError(.diskQuotaExceeded, path) }
        nodes[path] = nil
        if growth < 0 { contents.removeLast(Int(-growth)) } else { contents.append(contentsOf: repeatElement(0, count: Int(growth))) }
        usedBytes += growth
        nodes[path] = .file(bytes: contents, permissions: permissions, modified: now())
    }

    public func setPermissions(_ path: String, _ permissions: UInt32) throws(FileSystemError) {
        switch nodes[path] {
        case .file(let bytes, _, let modified)?: nodes[path] = .file(bytes: bytes, permissions: permissions & 0o7777, modified: modified)
        case .directory(_, let modified)?: nodes[path] = .directory(permissions: permissions & 0o7777, modified: modified)
        case nil: throw FileSystemError(.noSuchFile, path)
        }
    }

    private func checkParent(of path: String) throws(FileSystemError) {
        guard !path.isEmpty else { return }
        let parent = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
        switch nodes[parent] {
        case .directory?: return
        case .file?: throw FileSystemError(.notADirectory, path)
        case nil: throw FileSystemError(.noSuchFile, path)
        }
    }

    private func checkRoom(_ path: String) throws(FileSystemError) {
        guard nodes.count < Self.maximumEntries else { throw FileSystemError(.diskQuotaExceeded, path) }
    }
}
