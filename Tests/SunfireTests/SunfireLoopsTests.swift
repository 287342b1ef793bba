import Dispatch
import Foundation
import NIOPosix
import Sunfire
import SunfireHost
import Synchronization
import TestSupport
import Testing
import Wire

/// Live, Sunfire's connections run on every loop of the wire and its file work on the blocking threads: a slow disk
/// under one connection holds up no other.
@Suite(.serialized) struct SunfireLoopsTests {
    @Test func connectionsLandOnMoreThanOneLoop() async throws {
        let loops = LoopsOfConnections()
        let live = try await LiveSunfire.start(tracer: loops)
        for _ in 0..<4 {
            let run = try live.ssh("whoami")
            #expect(run.status == 0 && run.stdout == "demo\n", "ssh whoami: \(run.output)")
        }
        #expect(loops.count == 4, "every connection is traced once")
        #expect(loops.distinct == 2, "four connections used \(loops.distinct) of the wire's two loops")
        try await live.stop()
    }

    @Test func aWriteStuckOnDiskHoldsUpNoOtherConnection() async throws {
        let gate = StuckWrites(path: "slow.txt")
        let live = try await LiveSunfire.start { user, homePath, quota, diskFull in
            gate.wrapping(InMemoryHomeFileSystem(homePath: homePath, quotaBytes: quota, now: { 1_767_225_600 }, diskFull: diskFull))
        }
        let local = live.work.appendingPathComponent("upload.txt").path
        try Data(repeating: UInt8(ascii: "x"), count: 100_000).write(to: URL(fileURLWithPath: local))
        // One connection uploads over SFTP; its first WRITE blocks inside the file system until released.
        let upload = Mutex<ExternalProcess.Result?>(nil)
        let uploader = Thread {
            let result = try? live.sftp(batch: "put \(local) slow.txt\nls -l slow.txt\n")
            upload.withLock { $0 = result }
        }
        uploader.start()
        try await withDeadline(.seconds(60), "the upload's first write to reach the file system") {
            while !gate.entered { try await Task.sleep(for: .milliseconds(20)) }
        }
        // Meanwhile another connection logs in and runs a command (its home's lock is the stuck write's: whoami needs
        // no file).
        let other = try live.ssh("whoami")
        #expect(other.status == 0 && other.stdout == "demo\n", "ssh whoami while a write is stuck: \(other.output)")
        #expect(upload.withLock { $0 } == nil, "the stuck upload finished before it was released")
        gate.release()
        let finished = try await withDeadline(.seconds(60), "the released upload to finish") {
            while true {
                if let result = upload.withLock({ $0 }) { return result }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(finished.status == 0, "sftp put after the release: \(finished.output)")
        #expect(finished.stdout.contains("100000"), "the whole file landed: \(finished.stdout)")
        try await live.stop()
    }
}

/// Which loop each SSH connection was accepted on (`ssh-connected` is traced on the connection's own loop).
final class LoopsOfConnections: TraceSink {
    private let seen = Mutex<[ObjectIdentifier]>([])

    func record(actor: String, event: String, fields: [(String, String)]) {
        guard event == "ssh-connected", let loop = MultiThreadedEventLoopGroup.currentEventLoop else { return }
        seen.withLock { $0.append(ObjectIdentifier(loop)) }
    }

    var count: Int { seen.withLock { $0.count } }
    var distinct: Int { seen.withLock { Set($0).count } }
}

/// Makes writes to one path block until released, as a disk that stopped answering would.
final class StuckWrites: Sendable {
    let path: String
    private let state = Mutex((entered: false, released: false))
    private let opened = DispatchSemaphore(value: 0)

    init(path: String) { self.path = path }

    var entered: Bool { state.withLock { $0.entered } }

    func release() {
        state.withLock { $0.released = true }
        opened.signal()
    }

    /// Blocks the calling thread on the first write to `path` until ``release()``.
    func write(to written: String) {
        guard written == path else { return }
        let wait = state.withLock { state -> Bool in
            state.entered = true
            return !state.released
        }
        if wait {
            opened.wait()
            opened.signal()  // every later write passes too
        }
    }

    func wrapping(_ home: any HomeFileSystem) -> any HomeFileSystem { StuckHome(home: home, gate: self) }
}

/// A home whose writes pass through a ``StuckWrites`` gate.
final class StuckHome: HomeFileSystem {
    let home: any HomeFileSystem
    let gate: StuckWrites

    init(home: any HomeFileSystem, gate: StuckWrites) {
        self.home = home
        self.gate = gate
    }

    var homePath: String { home.homePath }
    var usedBytes: Int64 { home.usedBytes }
    var quotaBytes: Int64 { home.quotaBytes }
    func resolve(_ path: String) throws(FileSystemError) -> String { try home.resolve(path) }
    func attributes(of path: String) throws(FileSystemError) -> FileAttributes { try home.attributes(of: path) }
    func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] { try home.contentsOfDirectory(path) }
    func createDirectory(_ path: String, permissions: UInt32) throws(FileSystemError) {
        try home.createDirectory(path, permissions: permissions)
    }
    func removeFile(_ path: String) throws(FileSystemError) { try home.removeFile(path) }
    func removeDirectory(_ path: String) throws(FileSystemError) { try home.removeDirectory(path) }
    func rename(_ path: String, to newPath: String) throws(FileSystemError) { try home.rename(path, to: newPath) }
    func createFile(_ path: String, permissions: UInt32, truncate: Bool, exclusive: Bool) throws(FileSystemError) {
        try home.createFile(path, permissions: permissions, truncate: truncate, exclusive: exclusive)
    }
    func write(_ path: String, at offset: Int64, _ bytes: ArraySlice<UInt8>) throws(FileSystemError) {
        gate.write(to: path)
        try home.write(path, at: offset, bytes)
    }
    func read(_ path: String, at offset: Int64, count: Int) throws(FileSystemError) -> [UInt8] { try home.read(path, at: offset, count: count) }
    func truncate(_ path: String, to size: Int64) throws(FileSystemError) { try home.truncate(path, to: size) }
    func setPermissions(_ path: String, _ permissions: UInt32) throws(FileSystemError) { try home.setPermissions(path, permissions) }
}
