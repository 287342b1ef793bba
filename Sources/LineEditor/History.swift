#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The console's command history: an in-memory list capped at `limit`, optionally backed by a file.
///
/// The file holds one entry per line; backslashes, newlines and carriage returns inside an entry
/// are escaped (`\\`, `\n`, `\r`). Each accepted line is appended to the file immediately, so a
/// crash loses nothing; the file is rewritten to the last `limit` entries once it has grown to
/// twice that. Several consoles sharing one file interleave their appends; a rewrite keeps only
/// the rewriting console's view.
public final class History {
    /// The most entries kept in memory and written by `save()`.
    public let limit: Int
    /// Entries, oldest first.
    public private(set) var entries: [String] = []
    /// The backing file, set by `load(from:)`; nil keeps history in memory only.
    public private(set) var path: String?
    /// Lines the file holds, so appends know when to compact it.
    private var linesInFile = 0

    /// Creates an empty history that keeps at most `limit` entries (at least one).
    public init(limit: Int = 1000) {
        self.limit = max(limit, 1)
    }

    /// Number of entries.
    public var count: Int { entries.count }

    /// Replaces the entries with the last `limit` ones stored at `path`, and makes `path` the file
    /// that `add(_:)` appends to and `save()` writes. A missing file is an empty history, not an error.
    public func load(from path: String) throws(HistoryError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            entries = []
            linesInFile = 0
            if code == ENOENT { return }
            throw HistoryError(operation: "open", path: path, code: code)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                bytes.append(contentsOf: chunk[0..<n])
            } else if n == 0 {
                break
            } else if errno != EINTR {
                throw HistoryError(operation: "read", path: path, code: errno)
            }
        }
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
        linesInFile = lines.count
        entries = lines.suffix(limit).map { Self.unescape(String(decoding: $0, as: UTF8.self)) }
    }

    /// Adds an accepted line unless it is blank or repeats the newest entry, appending it to the
    /// file when there is one. Returns whether it was added. File errors are ignored: losing a
    /// history line must not break the console.
    @discardableResult
    public func add(_ line: String) -> Bool {
        guard !line.allSatisfy(\.isWhitespace), line != entries.last else { return false }
        entries.append(line)
        if entries.count > limit { entries.removeFirst(entries.count - limit) }
        guard let path else { return true }
        if linesInFile + 1 > 2 * limit {
            try? save()
        } else if (try? Self.writeFile(Self.escape(line) + "\n", to: path, flags: O_APPEND)) != nil {
            linesInFile += 1
        }
        return true
    }

    /// Rewrites the file with the current entries, atomically (temporary file and rename), creating
    /// its directory if needed. Does nothing without a path.
    public func save() throws(HistoryError) {
        guard let path else { return }
        let contents = entries.map { Self.escape($0) + "\n" }.joined()
        let temporary = path + ".tmp-\(getpid())"
        try Self.writeFile(contents, to: temporary, flags: O_TRUNC)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw HistoryError(operation: "rename", path: path, code: code)
        }
        linesInFile = entries.count
    }

    /// `$XDG_STATE_HOME/workbench/history` when `XDG_STATE_HOME` is set to an absolute path,
    /// otherwise `~/.workbench_history`.
    public static func defaultPath() -> String {
        var environment: [String: String] = [:]
        for name in ["XDG_STATE_HOME", "HOME"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return defaultPath(environment: environment)
    }

    /// `defaultPath()` computed from the given environment instead of the process's.
    public static func defaultPath(environment: [String: String]) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return state + (state.hasSuffix("/") ? "" : "/") + "workbench/history"
        }
        var home = environment["HOME"] ?? ""
        if home.isEmpty, let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir {
            home = String(cString: directory)
        }
        if home.isEmpty { return ".workbench_history" }
        return home + (home.hasSuffix("/") ? "" : "/") + ".workbench_history"
    }

    /// Escapes one entry so it fits on one line of the file.
    static func escape(_ entry: String) -> String {
        var result = ""
        result.reserveCapacity(entry.utf8.count)
        for scalar in entry.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Reverses `escape(_:)`; an unknown escape is kept as written.
    static func unescape(_ line: String) -> String {
        var result = ""
        var escaping = false
        for scalar in line.unicodeScalars {
            if escaping {
                switch scalar {
                case "n": result += "\n"
                case "r": result += "\r"
                case "\\": result += "\\"
                default:
                    result += "\\"
                    result.unicodeScalars.append(scalar)
                }
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        if escaping { result += "\\" }
        return result
    }

    private static func writeFile(_ contents: String, to path: String, flags: Int32) throws(HistoryError) {
        createParentDirectory(of: path)
        // 0600: history can contain whatever was typed, including secrets.
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0o600)
        guard fd >= 0 else { throw HistoryError(operation: "open", path: path, code: errno) }
        defer { close(fd) }
        // One write call per append keeps concurrent appenders' lines whole (O_APPEND).
        var bytes = Array(contents.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw HistoryError(operation: "write", path: path, code: errno)
            }
            bytes = bytes.dropFirst(n)
        }
    }

    private static func createParentDirectory(of path: String) {
        var prefix = ""
        let components = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        for (index, component) in components.enumerated() {
            prefix += (index == 0 ? "" : "/") + component
            if !prefix.isEmpty { mkdir(prefix, 0o700) }  // EEXIST is the common, harmless outcome
        }
    }
}

/// A history file could not be read or written.
public struct HistoryError: Error, CustomStringConvertible, Sendable {
    /// The system call that failed.
    public var operation: String
    /// The file involved.
    public var path: String
    /// The `errno` value.
    public var code: Int32

    /// The failure in the style of `perror`.
    public var description: String {
        "history: \(operation) \(path): \(String(cString: strerror(code)))"
    }
}
