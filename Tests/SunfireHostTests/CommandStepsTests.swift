import PrintDocuments
import SunfireHost
import Synchronization
import Testing

/// A command's two steps: the first does the file work (on the blocking threads live), the second asks the spooler
/// (on the host's loop). The commands said to touch no file must never reach the home, or the host would run file
/// work on its loop.
@Suite struct CommandStepsTests {
    static let quiet: @Sendable (String) -> Bool = { _ in false }

    @Test func commandsSaidToTouchNoFilesNeverReachTheHome() throws {
        let home = CountingHome(InMemoryHomeFileSystem(homePath: "/home/demo", quotaBytes: 1 << 20, now: { 0 }))
        let host = UnixHost(configuration: HostConfiguration()) { _ in home }
        for line in ["lpq -P psts", "lprm -P psts -", "echo hello", "pwd", "whoami", "true", "", "echo $(ls)"] {
            #expect(UnixHost.touchesNoFiles(line, home: "/home/demo"), "\(line)")
            _ = host.run(line, as: "demo", now: .zero, faults: Self.quiet)
            #expect(home.calls == 0, "\(line) reached the home \(home.calls) times")
        }
        for line in ["ls", "cat notes.txt", "mkdir socPrint", "md5 a.jar", "lpr -P psts a.ps", "rm a", "find ."] {
            #expect(!UnixHost.touchesNoFiles(line, home: "/home/demo"), "\(line)")
        }
        _ = host.run("ls", as: "demo", now: .zero, faults: Self.quiet)
        #expect(home.calls > 0, "the counting home counts")
    }

    @Test func lprReadsItsFilesFirstAndTheSpoolerTakesTheJobSecond() throws {
        let home = InMemoryHomeFileSystem(homePath: "/home/demo", quotaBytes: 1 << 20, now: { 0 })
        try home.writeAll("doc.ps", Array("%!PS-Adobe-3.0\n%%Pages: 1\n%%EOF\n".utf8))
        let host = UnixHost(configuration: HostConfiguration()) { _ in home }
        let prepared = host.prepare("lpr -P psts doc.ps", as: "demo", now: .zero, faults: Self.quiet)
        #expect(!host.spooler.lpq("psts").contains("doc.ps"), "the first step queued the job already")
        let outcome = host.finish(prepared, faults: Self.quiet)
        #expect(outcome.exitStatus == 0, "lpr: \(String(decoding: outcome.stderr, as: UTF8.self))")
        #expect(host.spooler.lpq("psts").contains("doc.ps"), "the second step did not queue the job")
    }
}

/// Counts the operations that reach a home (its path excepted: that is configuration, not a file).
final class CountingHome: HomeFileSystem {
    private let home: any HomeFileSystem
    private let count = Mutex(0)

    init(_ home: any HomeFileSystem) { self.home = home }

    var calls: Int { count.withLock { $0 } }
    private func counted() { count.withLock { $0 += 1 } }

    var homePath: String { home.homePath }
    var usedBytes: Int64 {
        counted()
        return home.usedBytes
    }
    var quotaBytes: Int64 { home.quotaBytes }
    func resolve(_ path: String) throws(FileSystemError) -> String {
        counted()
        return try home.resolve(path)
    }
    func attributes(of path: String) throws(FileSystemError) -> FileAttributes {
        counted()
        return try home.attributes(of: path)
    }
    func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] {
        counted()
        return try home.contentsOfDirectory(path)
    }
    func createDirectory(_ path: String, permissions: UInt32) throws(FileSystemError) {
        counted()
        try home.createDirectory(path, permissions: permissions)
    }
    func removeFile(_ path: String) throws(FileSystemError) {
        counted()
        try home.removeFile(path)
    }
    func removeDirectory(_ path: String) throws(FileSystemError) {
        counted()
        try home.removeDirectory(path)
    }
    func rename(_ path: String, to newPath: String) throws(FileSystemError) {
        counted()
        try home.rename(path, to: newPath)
    }
    func createFile(_ path: String, permissions: UInt32, truncate: Bool, exclusive: Bool) throws(FileSystemError) {
        counted()
        try home.createFile(path, permissions: permissions, truncate: truncate, exclusive: exclusive)
    }
    func write(_ path: String, at offset: Int64, _ bytes: ArraySlice<UInt8>) throws(FileSystemError) {
        counted()
        try home.write(path, at: offset, bytes)
    }
    func read(_ path: String, at offset: Int64, count: Int) throws(FileSystemError) -> [UInt8] {
        counted()
        return try home.read(path, at: offset, count: count)
    }
    func truncate(_ path: String, to size: Int64) throws(FileSystemError) {
        counted()
        try home.truncate(path, to: size)
    }
    func setPermissions(_ path: String, _ permissions: UInt32) throws(FileSystemError) {
        counted()
        try home.setPermissions(path, permissions)
    }
}
