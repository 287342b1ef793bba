import SunfireHost

/// The sending end of a legacy SCP copy (`scp -f PATH…` on the host): what `scp -O host:file .` downloads.
///
/// Follows OpenSSH's `source()`: after the client's first zero byte, each file is announced with
/// `C<mode> <size> <name>`; once acknowledged its bytes follow with a zero byte, and the client answers again. A path
/// that is missing or not a regular file is reported with `\x01scp: …` (no answer expected) and skipped.
struct SCPSource {
    struct Announcement {
        /// Warnings for skipped paths, then the header of the next file (if any).
        var bytes: [UInt8]
        /// The file announced, to stream once the client acknowledges; nil when no file is left.
        var file: (path: String, size: Int64)?
    }

    private let fileSystem: any HomeFileSystem
    private var pending: ArraySlice<String>
    private(set) var errors = 0

    init(fileSystem: any HomeFileSystem, paths: [String]) {
        self.fileSystem = fileSystem
        self.pending = paths[...]
    }

    /// Counts a file the client refused or failed to take.
    mutating func recordClientError() { errors += 1 }

    /// Warnings for unusable paths up to the next sendable file, and that file's header.
    mutating func next() -> Announcement {
        var bytes: [UInt8] = []
        while let name = pending.popFirst() {
            do {
                let path = try fileSystem.resolve(name)
                let attributes = try fileSystem.attributes(of: path)
                guard attributes.kind == .file else {
                    errors += 1
                    bytes += SCPSink.warning("\(name): not a regular file")
                    continue
                }
                let base = path.split(separator: "/").last.map(String.init) ?? name
                let mode = String(attributes.permissions & 0o7777, radix: 8)
                let padded = String(repeating: "0", count: max(0, 4 - mode.count)) + mode
                bytes += Array("C\(padded) \(attributes.size) \(base)\n".utf8)
                return Announcement(bytes: bytes, file: (path, attributes.size))
            } catch {
                errors += 1
                bytes += SCPSink.warning("\(name): \(error)")
            }
        }
        return Announcement(bytes: bytes, file: nil)
    }
}
