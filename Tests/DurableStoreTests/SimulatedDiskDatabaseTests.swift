import Foundation
import GRDB
import Kernel
import SimulatedDisk
import Synchronization
import Testing
import Wire

@testable import DurableStore

/// SQLite on a node's simulated disk (through the `workbench-disk` VFS): what a crash of the node keeps.
@Suite struct SimulatedDiskDatabaseTests {
    static let path = "/var/lib/items.sqlite"

    static func open(_ disk: any Disk, _ durability: DurableDatabase.Durability = .powerLoss) throws -> DurableDatabase {
        try DurableDatabase(path: path, schema: DurableDatabaseTests.schema, durability: durability, disk: disk)
    }

    static func insert(_ database: DurableDatabase, _ names: [String]) throws {
        try database.writeBlocking { db in
            for name in names { try db.execute(sql: "INSERT INTO item (name) VALUES (?)", arguments: [name]) }
        }
    }

    /// The names the database holds, and whether SQLite finds it sound.
    static func contents(_ database: DurableDatabase) throws -> (names: Set<String>, sound: Bool) {
        try database.readBlocking { db in
            let check = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            return (Set(try String.fetchAll(db, sql: "SELECT name FROM item")), check == ["ok"])
        }
    }

    /// A row long enough that a few of them fill pages: commits then write several pages of the file and the journal.
    static func rows(_ prefix: String, _ count: Int) -> [String] {
        (0..<count).map { "\(prefix)-\($0)-" + String(repeating: "x", count: 600) }
    }

    @Test func theFilesAreOnTheNodesDiskAndNotOnTheMachines() throws {
        let kernel = Kernel(seed: 1)
        let database = try Self.open(try #require(kernel.node("db").disk))
        try Self.insert(database, ["one"])
        #expect(kernel.disk(of: "db").paths.contains(Self.path))
        #expect(!FileManagerCheck.exists(Self.path))
        let contents = try Self.contents(database)
        #expect(contents.names == ["one"])
        #expect(contents.sound)
    }

    @Test(arguments: UInt64(1)...8) func aCommittedRowSurvivesACrashAndAnUncommittedOneDoesNot(seed: UInt64) throws {
        let kernel = Kernel(seed: seed)
        let disk = kernel.disk(of: "db")
        let database = try Self.open(disk)
        try Self.insert(database, ["committed"])
        // The node dies inside the next transaction: its row never commits, and the connection is dead with the node.
        #expect(throws: (any Error).self) {
            try database.writeBlocking { db in
                try db.execute(sql: "INSERT INTO item (name) VALUES ('uncommitted')")
                disk.crash()
            }
        }
        let reopened = try Self.open(disk)
        let after = try Self.contents(reopened)
        #expect(after.names == ["committed"])
        #expect(after.sound)
    }

    /// The node crashes before each mutation (write, truncate, sync, delete) of a commit in turn, its last unsynced write
    /// lost or torn by the seed: SQLite always recovers the last commit, or the one being made if it returned, never a
    /// part of one, and the file is sound.
    @Test(arguments: UInt64(1)...3) func aCrashAnywhereInACommitRecoversToACommit(seed: UInt64) throws {
        var crashedCommits = 0
        for crashBefore in 1...200 {
            let kernel = Kernel(seed: seed &* 1_000 &+ UInt64(crashBefore))
            let disk = kernel.disk(of: "db")
            try Self.insert(try Self.open(disk), Self.rows("before", 12))
            let crashing = CrashingDisk(disk)
            let database = try Self.open(crashing)
            crashing.arm(crashBefore: crashBefore)
            let returned = (try? Self.insert(database, Self.rows("during", 12))) != nil
            guard crashing.crashed else {
                #expect(returned)
                break  // past the commit's last mutation: every point was tried
            }
            crashedCommits += 1
            let after = try Self.contents(try Self.open(disk))
            let before = Set(Self.rows("before", 12))
            let during = Set(Self.rows("during", 12))
            #expect(after.sound, "crash before mutation \(crashBefore)")
            #expect(after.names == before || after.names == before.union(during), "crash before mutation \(crashBefore)")
            if returned { #expect(after.names == before.union(during), "a commit that returned is durable (crash \(crashBefore))") }
        }
        #expect(crashedCommits > 5, "the commit was cut at several points")
    }

    @Test func theFsyncLieLosesACommit() throws {
        var cleanLosses = 0
        for seed in UInt64(1)...12 {
            let kernel = Kernel(seed: seed)
            let disk = kernel.disk(of: "db")
            let database = try Self.open(disk)
            try Self.insert(database, ["kept"])
            kernel.faults.set(SimulatedDisk.fsyncLieFault, .on)
            try Self.insert(database, ["acknowledged"])  // SQLite was told every sync succeeded
            kernel.faults.set(SimulatedDisk.fsyncLieFault, .off)
            let crashed = disk.crash()
            let after = try? Self.contents(try Self.open(disk))
            #expect(after.map { !($0.names.contains("acknowledged") && $0.sound) } ?? true, "seed \(seed): \(crashed)")
            if crashed.first(where: { $0.path == Self.path })?.fate == .lost {
                #expect(after?.names == ["kept"])
                #expect(after?.sound == true)
                cleanLosses += 1
            }
        }
        #expect(cleanLosses > 0)
    }

    /// NORMAL (MiG without sync-to-disk) leaves the journal's truncation, the commit's last step, unsynced: a crash right
    /// after the commit brings the journal back and SQLite rolls the commit back, as a power loss would.
    @Test func withoutFullSyncTheLastCommitIsLostAtACrash() throws {
        let kernel = Kernel(seed: 1)
        let disk = kernel.disk(of: "db")
        let database = try Self.open(disk, .processCrash)
        try Self.insert(database, ["first"])
        try Self.insert(database, ["last"])
        disk.crash()
        let after = try Self.contents(try Self.open(disk))
        #expect(after.names == ["first"])
        #expect(after.sound)
    }
}

/// The real file system, only to show nothing was written there.
enum FileManagerCheck {
    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}

/// A simulated disk that, once armed, crashes just before its `crashBefore`-th mutation (write, truncate, sync or delete).
final class CrashingDisk: Disk {
    let inner: SimulatedDisk
    /// Mutations since it was armed, and the one it crashes before (0: not armed).
    private let countdown = Mutex((mutations: 0, crashBefore: 0))

    init(_ inner: SimulatedDisk) { self.inner = inner }

    func arm(crashBefore: Int) { countdown.withLock { $0 = (0, crashBefore) } }

    var crashed: Bool { countdown.withLock { $0.crashBefore > 0 && $0.mutations >= $0.crashBefore } }

    private func mutation() {
        let crashNow = countdown.withLock { countdown in
            guard countdown.crashBefore > 0 else { return false }
            countdown.mutations += 1
            return countdown.mutations == countdown.crashBefore
        }
        if crashNow { inner.crash() }
    }

    var boot: Int { inner.boot }
    func open(_ path: String, create: Bool, boot: Int) throws(DiskError) -> DiskFile { try inner.open(path, create: create, boot: boot) }
    func read(_ file: DiskFile, at offset: Int, count: Int) throws(DiskError) -> [UInt8] { try inner.read(file, at: offset, count: count) }
    func size(of file: DiskFile) throws(DiskError) -> Int { try inner.size(of: file) }
    func exists(_ path: String) -> Bool { inner.exists(path) }
    var paths: [String] { inner.paths }

    func write(_ file: DiskFile, at offset: Int, _ bytes: [UInt8]) throws(DiskError) {
        mutation()
        try inner.write(file, at: offset, bytes)
    }

    func truncate(_ file: DiskFile, to size: Int) throws(DiskError) {
        mutation()
        try inner.truncate(file, to: size)
    }

    func sync(_ file: DiskFile) throws(DiskError) {
        mutation()
        try inner.sync(file)
    }

    func delete(_ path: String, boot: Int) throws(DiskError) {
        mutation()
        try inner.delete(path, boot: boot)
    }
}
