import SFTP
import SunfireHost

/// Sunfire's SFTP subsystem: answers each request of one SFTP session over the user's home file system — the
/// request handler of an sftp-server, written in the project, on the pure `SFTP` codec.
///
/// Every failure gets a STATUS whose message says what went wrong ("Disk quota exceeded", "Permission denied"), not
/// only its code. Requests are handled in arrival order, so pipelined WRITEs land in sequence. Used by one thread at
/// a time: its ``SFTPChannel`` hands it to one blocking step after another.
final class SFTPServerSession {
    /// OpenSSH's sftp-server refuses reads larger than this; clients ask for 32 KiB (or what limits@ says).
    static let maximumReadLength: UInt32 = 261_120
    /// Open files and directories per session; a client that leaks handles gets a clear failure, not our memory.
    static let maximumOpenHandles = 256
    /// Directory entries per READDIR answer (OpenSSH sends 100).
    static let namesPerReaddir = 100

    /// Something worth a trace event.
    struct Event {
        let name: String
        let fields: [(String, String)]
    }

    private enum OpenHandle {
        case file(path: String, flags: SFTPOpenFlags, written: UInt64)
        case directory(path: String, entries: [SFTPNameEntry], next: Int)

        var path: String {
            switch self {
            case .file(let path, _, _), .directory(let path, _, _): path
            }
        }
    }

    private let fileSystem: any HomeFileSystem
    private let user: String
    private let now: () -> Int64
    private var handles: [UInt32: OpenHandle] = [:]
    private var nextHandle: UInt32 = 0
    private(set) var initialized = false

    init(fileSystem: any HomeFileSystem, user: String, now: @escaping () -> Int64) {
        self.fileSystem = fileSystem
        self.user = user
        self.now = now
    }

    /// The answer to one request (nil for none), and events for the trace.
    typealias Answer = (reply: SFTPMessage?, events: [Event])

    /// Whether answering `request` touches the file system; the others are answered from the session's own state
    /// (handles, listed directories), so the channel answers them at once instead of on the blocking threads.
    static func touchesFiles(_ request: SFTPMessage) -> Bool {
        switch request {
        case .open, .read, .write, .stat, .lstat, .fstat, .setstat, .fsetstat, .opendir, .remove, .mkdir, .rmdir, .realpath, .rename:
            true
        default:
            false
        }
    }

    func handle(_ request: SFTPMessage) -> Answer {
        var events: [Event] = []
        let reply = answer(request, &events)
        return (reply, events)
    }

    /// Closes what the client left open (the connection ended); uploads still open are reported as they stand.
    func closeAll() -> [Event] {
        var events: [Event] = []
        for key in handles.keys.sorted() {
            if case .file(let path, let flags, let written)? = handles[key], flags.contains(.write) {
                events.append(
                    Event(
                        name: "upload",
                        fields: [
                            ("user", user), ("path", path), ("bytes", String(written)),
                            ("via", "sftp"), ("complete", "false"),
                        ]))
            }
        }
        handles = [:]
        return events
    }

    private func answer(_ request: SFTPMessage, _ events: inout [Event]) -> SFTPMessage? {
        switch request {
        case .initialize(let version, _):
            initialized = true
            // Version 3 is what OpenSSH speaks; a client asking for more gets 3 and adapts (draft-02 §4).
            return .version(version: min(version, 3), extensions: [])
        case .open(let id, let path, let flags, let attributes):
            return guarded(id) {
                let resolved = try fileSystem.resolve(path)
                if flags.contains(.write) || flags.contains(.create) {
                    if flags.contains(.create) {
                        try fileSystem.createFile(
                            resolved, permissions: (attributes.permissions ?? 0o644) & 0o777,
                            truncate: flags.contains(.truncate), exclusive: flags.contains(.exclusive))
                    } else if flags.contains(.truncate) {
                        try fileSystem.truncate(resolved, to: 0)
                    }
                }
                let kind = try fileSystem.attributes(of: resolved).kind
                guard kind == .file else { throw SFTPFailure(.failure, "\(path): Is a directory") }
                return .handle(id: id, handle: try open(.file(path: resolved, flags: flags, written: 0)))
            }
        case .close(let id, let handle):
            guard let key = Self.key(handle), let open = handles.removeValue(forKey: key) else { return invalidHandle(id) }
            if case .file(let path, let flags, let written) = open, flags.contains(.write) {
                events.append(Event(name: "upload", fields: [("user", user), ("path", path), ("bytes", String(written)), ("via", "sftp")]))
            }
            return ok(id)
        case .read(let id, let handle, let offset, let length):
            guard let key = Self.key(handle), case .file(let path, let flags, _)? = handles[key] else { return invalidHandle(id) }
            return guarded(id) {
                guard flags.contains(.read) else { throw SFTPFailure(.permissionDenied, "the file was not opened for reading") }
                guard let start = Int64(exactly: offset) else { return .status(id: id, code: .eof, message: "End of file", languageTag: "") }
                let bytes = try fileSystem.read(path, at: start, count: Int(min(length, Self.maximumReadLength)))
                return bytes.isEmpty ? .status(id: id, code: .eof, message: "End of file", languageTag: "") : .data(id: id, data: bytes)
            }
        case .write(let id, let handle, let offset, let data):
            guard let key = Self.key(handle), case .file(let path, let flags, let written)? = handles[key] else { return invalidHandle(id) }
            return guarded(id) {
                guard flags.contains(.write) else { throw SFTPFailure(.permissionDenied, "the file was not opened for writing") }
                guard let start = Int64(exactly: offset) else { throw SFTPFailure(.failure, "offset \(offset) is beyond any file size") }
                let at = flags.contains(.append) ? try fileSystem.attributes(of: path).size : start
                try fileSystem.write(path, at: at, data[...])
                handles[key] = .file(path: path, flags: flags, written: written + UInt64(data.count))
                return ok(id)
            }
        case .stat(let id, let path), .lstat(let id, let path):
            return guarded(id) { .attrs(id: id, attributes: try attributes(try fileSystem.resolve(path))) }
        case .fstat(let id, let handle):
            guard let key = Self.key(handle), let open = handles[key] else { return invalidHandle(id) }
            return guarded(id) { .attrs(id: id, attributes: try attributes(open.path)) }
        case .setstat(let id, let path, let attributes):
            return guarded(id) {
                try apply(attributes, to: try fileSystem.resolve(path))
                return ok(id)
            }
        case .fsetstat(let id, let handle, let attributes):
            guard let key = Self.key(handle), let open = handles[key] else { return invalidHandle(id) }
            return guarded(id) {
                try apply(attributes, to: open.path)
                return ok(id)
            }
        case .opendir(let id, let path):
            return guarded(id) {
                let resolved = try fileSystem.resolve(path)
                guard try fileSystem.attributes(of: resolved).kind == .directory else { throw SFTPFailure(.failure, "\(path): Not a directory") }
                var entries = [SFTPNameEntry]()
                for name in [".", ".."] + (try fileSystem.contentsOfDirectory(resolved)) {
                    let child = name == "." ? resolved : name == ".." ? parent(of: resolved) : (resolved.isEmpty ? name : "\(resolved)/\(name)")
                    guard let attributes = try? attributes(child) else { continue }
                    entries.append(
                        SFTPNameEntry(
                            filename: name,
                            longname: SFTPNameEntry.longname(
                                filename: name, attributes: attributes, owner: user, group: user, now: UInt32(clamping: now())),
                            attributes: attributes))
                }
                return .handle(id: id, handle: try open(.directory(path: resolved, entries: entries, next: 0)))
            }
        case .readdir(let id, let handle):
            guard let key = Self.key(handle), case .directory(let path, let entries, let next)? = handles[key] else { return invalidHandle(id) }
            guard next < entries.count else { return .status(id: id, code: .eof, message: "End of file", languageTag: "") }
            let end = min(entries.count, next + Self.namesPerReaddir)
            handles[key] = .directory(path: path, entries: entries, next: end)
            return .name(id: id, entries: Array(entries[next..<end]))
        case .remove(let id, let path):
            return guarded(id) {
                let resolved = try fileSystem.resolve(path)
                try fileSystem.removeFile(resolved)
                events.append(Event(name: "file-removed", fields: [("user", user), ("path", resolved), ("via", "sftp")]))
                return ok(id)
            }
        case .mkdir(let id, let path, let attributes):
            return guarded(id) {
                try fileSystem.createDirectory(try fileSystem.resolve(path), permissions: (attributes.permissions ?? 0o755) & 0o777)
                return ok(id)
            }
        case .rmdir(let id, let path):
            return guarded(id) {
                try fileSystem.removeDirectory(try fileSystem.resolve(path))
                return ok(id)
            }
        case .realpath(let id, let path):
            return guarded(id) {
                let resolved = try fileSystem.resolve(path.isEmpty ? "." : path)
                let absolute = resolved.isEmpty ? fileSystem.homePath : "\(fileSystem.homePath)/\(resolved)"
                let attributes = SFTPFileAttributes()
                return .name(id: id, entries: [SFTPNameEntry(filename: absolute, longname: absolute, attributes: attributes)])
            }
        case .rename(let id, let oldPath, let newPath):
            return guarded(id) {
                let from = try fileSystem.resolve(oldPath)
                let to = try fileSystem.resolve(newPath)
                // SFTP v3 rename does not replace (draft-02 §6.5); OpenSSH's sftp-server refuses an existing target too.
                if (try? fileSystem.attributes(of: to)) != nil { throw SFTPFailure(.failure, "\(newPath): File exists") }
                try fileSystem.rename(from, to: to)
                return ok(id)
            }
        case .readlink(let id, _), .symlink(let id, _, _):
            return .status(id: id, code: .opUnsupported, message: "symbolic links are not available on this host", languageTag: "")
        case .extended(let id, let request, _):
            return .status(id: id, code: .opUnsupported, message: "extension \(request) is not supported", languageTag: "")
        default:
            guard let id = request.id else { return nil }
            return .status(id: id, code: .opUnsupported, message: "\(request.typeName) is not a request this server answers", languageTag: "")
        }
    }

    // MARK: Parts

    private func open(_ handle: OpenHandle) throws(SFTPFailure) -> [UInt8] {
        guard handles.count < Self.maximumOpenHandles else {
            throw SFTPFailure(.failure, "too many open handles (limit \(Self.maximumOpenHandles)); close some first")
        }
        nextHandle &+= 1
        handles[nextHandle] = handle
        return withUnsafeBytes(of: nextHandle.bigEndian) { Array($0) }
    }

    private static func key(_ handle: [UInt8]) -> UInt32? {
        guard handle.count == 4 else { return nil }
        return handle.reduce(0) { $0 << 8 | UInt32($1) }
    }

    private func attributes(_ path: String) throws -> SFTPFileAttributes {
        let attributes = try fileSystem.attributes(of: path)
        let type: UInt32 = attributes.kind == .directory ? 0o040000 : 0o100000
        let time = UInt32(clamping: attributes.modified)
        return SFTPFileAttributes(
            size: UInt64(clamping: attributes.size), uid: 1000, gid: 1000,
            permissions: type | (attributes.permissions & 0o7777), accessTime: time, modificationTime: time)
    }

    private func apply(_ attributes: SFTPFileAttributes, to path: String) throws {
        if let size = attributes.size {
            guard let length = Int64(exactly: size) else { throw SFTPFailure(.failure, "size \(size) is too large") }
            try fileSystem.truncate(path, to: length)
        }
        if let permissions = attributes.permissions { try fileSystem.setPermissions(path, permissions & 0o7777) }
        // Times and owners are the host's to keep: accepted and ignored, as sftp-server does for what it cannot set.
    }

    /// The status code OpenSSH's sftp-server gives each errno; the message keeps the precise reason.
    static func statusCode(_ error: FileSystemError) -> SFTPStatusCode {
        switch error.code {
        case .noSuchFile: .noSuchFile
        case .permissionDenied, .symbolicLink: .permissionDenied
        default: .failure
        }
    }

    private func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    private func ok(_ id: UInt32) -> SFTPMessage { .status(id: id, code: .ok, message: "Success", languageTag: "") }

    private func invalidHandle(_ id: UInt32) -> SFTPMessage {
        .status(id: id, code: .failure, message: "invalid handle", languageTag: "")
    }

    private func guarded(_ id: UInt32, _ body: () throws -> SFTPMessage) -> SFTPMessage {
        do {
            return try body()
        } catch let failure as SFTPFailure {
            return .status(id: id, code: failure.code, message: failure.message, languageTag: "")
        } catch let error as FileSystemError {
            return .status(id: id, code: Self.statusCode(error), message: error.description, languageTag: "")
        } catch {
            return .status(id: id, code: .failure, message: "\(error)", languageTag: "")
        }
    }
}

/// A refusal worked out here rather than by the file system.
struct SFTPFailure: Error {
    let code: SFTPStatusCode
    let message: String
    init(_ code: SFTPStatusCode, _ message: String) {
        self.code = code
        self.message = message
    }
}
