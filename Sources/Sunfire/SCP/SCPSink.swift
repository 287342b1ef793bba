import SunfireHost

/// The receiving end of a legacy SCP copy (`scp -t TARGET` on the host): files the client sends land in the
/// user's home, through the same file system SFTP and the shell use, so quotas and confinement hold alike.
///
/// Follows OpenSSH's `sink()`: a file the host cannot create is answered `\x01scp: PATH: REASON` and skipped by the
/// sender; a write that fails midway keeps reading (to stay in step) and reports the error after the file; a
/// dropped connection leaves the partial file, as on a real host. Confined to the channel's event loop.
final class SCPSink {
    struct Options {
        var target: String
        var recursive = false
        var targetMustBeDirectory = false
        var preserveTimes = false
    }

    /// What the channel should do after feeding bytes.
    struct Reply {
        var bytes: [UInt8] = []
        /// Set when the copy is over: the exit status to report before closing.
        var exitStatus: Int?
        /// Files completed by this feed, with their sizes (for the trace).
        var completed: [(path: String, bytes: UInt64)] = []
    }

    private let fileSystem: any HomeFileSystem
    private let options: Options
    private var parser = SCPSinkParser()
    private var directories: [String] = []
    private var current: (path: String, written: UInt64, error: FileSystemError?)?
    private var errors = 0
    private var targetIsDirectory = false

    init(fileSystem: any HomeFileSystem, options: Options) {
        self.fileSystem = fileSystem
        self.options = options
    }

    /// The sink speaks first: one zero byte says it is ready (or an error when the target is unusable).
    func start() -> Reply {
        do {
            let target = try fileSystem.resolve(options.target)
            targetIsDirectory = (try? fileSystem.attributes(of: target))?.kind == .directory
            if options.targetMustBeDirectory && !targetIsDirectory {
                return fatal("\(options.target): Not a directory")
            }
            directories = [target]
            return Reply(bytes: [0])
        } catch {
            return fatal("\(options.target): \(error)")
        }
    }

    /// Feeds bytes from the client.
    func receive(_ bytes: some Collection<UInt8>) -> Reply {
        parser.append(bytes)
        var reply = Reply()
        do {
            while let event = try parser.next() {
                handle(event, &reply)
                if reply.exitStatus != nil { return reply }
            }
        } catch {
            errors += 1
            var fatalReply = self.fatal("protocol error: \(error.description)")
            fatalReply.bytes = reply.bytes + fatalReply.bytes
            fatalReply.completed = reply.completed
            return fatalReply
        }
        return reply
    }

    /// The client closed its side: the copy is over.
    func end() -> Reply {
        var reply = Reply()
        if let current {
            // The sender went away inside a file: the bytes so far stay, like a real interrupted scp.
            reply.completed.append((current.path, current.written))
            errors += 1
        }
        reply.exitStatus = errors == 0 ? 0 : 1
        return reply
    }

    private func handle(_ event: SCPSinkEvent, _ reply: inout Reply) {
        switch event {
        case .times:
            reply.bytes.append(0)
        case .senderError(let fatal, _):
            errors += 1
            if fatal { reply.exitStatus = 1 }
        case .directory(let mode, let name):
            guard options.recursive else {
                reply.bytes += Self.warning("received directory without -r")
                errors += 1
                reply.exitStatus = 1
                return
            }
            let path = join(directories.last ?? "", name, isTarget: directories.count == 1)
            do {
                if (try? fileSystem.attributes(of: path))?.kind != .directory {
                    try fileSystem.createDirectory(path, permissions: mode & 0o777)
                }
                directories.append(path)
                reply.bytes.append(0)
            } catch {
                errors += 1
                reply.bytes += Self.warning("\(display(path)): \(error)")
                reply.exitStatus = 1
            }
        case .endDirectory:
            if directories.count > 1 { directories.removeLast() }
            reply.bytes.append(0)
        case .file(let mode, _, let name):
            let path = join(directories.last ?? "", name, isTarget: directories.count == 1)
            do {
                try fileSystem.createFile(path, permissions: mode & 0o777, truncate: true, exclusive: false)
                current = (path, 0, nil)
                parser.acceptFile()
                reply.bytes.append(0)
            } catch {
                errors += 1
                parser.refuseFile()
                reply.bytes += Self.warning("\(display(path)): \(error)")
            }
        case .fileData(let bytes):
            guard var file = current else { return }
            if file.error == nil {
                do {
                    try fileSystem.write(file.path, at: Int64(file.written), bytes)
                    file.written += UInt64(bytes.count)
                } catch {
                    file.error = error
                }
            }
            current = file
        case .fileEnd(let senderOK):
            guard let file = current else { return }
            current = nil
            reply.completed.append((file.path, file.written))
            if let error = file.error {
                errors += 1
                reply.bytes += Self.warning("\(display(file.path)): \(error)")
            } else if !senderOK {
                errors += 1
            } else {
                reply.bytes.append(0)
            }
        }
    }

    /// Where a received name goes: inside the target directory, or the target itself when it names a file.
    private func join(_ directory: String, _ name: String, isTarget: Bool) -> String {
        if isTarget && !targetIsDirectory { return directory }
        return directory.isEmpty ? name : "\(directory)/\(name)"
    }

    private func display(_ path: String) -> String { path.isEmpty ? "." : path }

    private func fatal(_ message: String) -> Reply {
        errors += 1
        return Reply(bytes: [2] + Array("scp: \(message)\n".utf8), exitStatus: 1)
    }

    static func warning(_ message: String) -> [UInt8] { [1] + Array("scp: \(message)\n".utf8) }
}
