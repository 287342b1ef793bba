import Foundation
import GRDB
import Kernel
import NIOCore
import Synchronization
import Testing
import Wire

@testable import DurableStore

@Suite struct DurableDatabaseTests {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY NOT NULL, name TEXT NOT NULL UNIQUE)")
        }
        return migrator
    }

    static let schema = DatabaseSchema(migrator)

    /// A fresh folder for one test's database files.
    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "durable-store-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Counts the transactions committed on the connection it is added to.
    final class CommitCounter: TransactionObserver, Sendable {
        let commits = Atomic<Int>(0)
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { commits.add(1, ordering: .relaxed) }
        func databaseDidRollback(_ db: Database) {}
    }

    struct Refused: Error {}

    /// This process's descriptors open on `path` or its WAL.
    static func openDescriptors(to path: String) -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.filter { entry in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)") else { return false }
            return target == path || target == path + "-wal"
        }.count
    }

    @Test func inMemoryDatabasesAreMigratedCopiesThatShareNothing() throws {
        let schema = DatabaseSchema(Self.migrator)
        let first = try schema.emptyMemoryDatabase()
        let second = try schema.emptyMemoryDatabase()
        try first.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('only in the first')") }
        for (database, items) in [(first, 1), (second, 0)] {
            let (completed, applied, count) = try database.read { db in
                let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item")
                return (try Self.migrator.hasCompletedMigrations(db), try Self.migrator.appliedIdentifiers(db), count)
            }
            #expect(completed)
            #expect(applied == ["v1"])
            #expect(count == items)
        }
        // The table is the migration's, constraints included: a copy is the migrated database, not a look-alike.
        #expect(throws: DatabaseError.self) {
            try first.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('only in the first')") }
        }
        let third = try schema.emptyMemoryDatabase()
        let count = try third.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") }
        #expect(count == 0)
    }

    @Test func concurrentLiveWritesShareCommitsAndAreAllStored() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/items.sqlite"
        let wire = LiveWire(threads: 2)
        let nodes = (0..<4).map { wire.node("writer-\($0)") }
        let database = try DurableDatabase(path: path, schema: Self.schema)
        let counter = CommitCounter()
        try await database.write(on: nodes[0]) { db in db.add(transactionObserver: counter, extent: .databaseLifetime) }.get()
        let before = counter.commits.load(ordering: .relaxed)

        let writes = 400
        let futures = (0..<writes).map { index in
            database.write(on: nodes[index % nodes.count]) { db in
                try db.execute(sql: "INSERT INTO item (id, name) VALUES (?, ?)", arguments: [index, "item-\(index)"])
                return index
            }
        }
        for (index, future) in futures.enumerated() { #expect(try await future.get() == index) }
        let commits = counter.commits.load(ordering: .relaxed) - before
        #expect(commits >= 1)
        #expect(commits < writes, "\(writes) writes took \(commits) commits: no group commit")

        // Readers see every acknowledged write, and so does the next process to open the file.
        let count = try await database.read(on: nodes[1]) { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") }.get()
        #expect(count == writes)
        try await wire.shutdown()
        let reopened = try DatabaseQueue(path: path)
        #expect(try await reopened.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") } == writes)
    }

    /// The writer never checkpoints (its WAL hook replaces SQLite's automatic checkpoint), so only the checkpointing
    /// connection can move pages into the database file: once the WAL passes the threshold, the file grows.
    @Test func theWALIsCheckpointedOnceItIsLong() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/items.sqlite"
        let wire = LiveWire(threads: 2)
        let node = wire.node("writer")
        let database = try DurableDatabase(path: path, schema: Self.schema, durability: .processCrash)
        let size = { ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0 }
        let before = size()
        // A row of 5,000 bytes takes two pages: 600 rows are 1,200 WAL pages or more.
        for first in stride(from: 0, to: 600, by: 100) {
            let writes = (first..<first + 100).map { index in
                database.write(on: node) { db in
                    try db.execute(
                        sql: "INSERT INTO item (id, name) VALUES (?, ?)", arguments: [index, "\(index)" + String(repeating: "x", count: 5_000)])
                }
            }
            for write in writes { try await write.get() }
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while size() < before + 2_000_000, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(size() >= before + 2_000_000, "the database file stayed at \(size()) bytes: no checkpoint ran")
        try await wire.shutdown()
    }

    @Test func aFailingWriteRollsBackAloneInsideItsGroupCommit() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let wire = LiveWire(threads: 2)
        let node = wire.node("writer")
        let database = try DurableDatabase(path: folder + "/items.sqlite", schema: Self.schema)
        let counter = CommitCounter()
        try await database.write(on: node) { db in db.add(transactionObserver: counter, extent: .databaseLifetime) }.get()
        let before = counter.commits.load(ordering: .relaxed)

        // The first write holds the writer long enough for every other one to queue behind it: they must then
        // go in one transaction, the failing ones rolled back inside it.
        let slow = database.write(on: node) { db in
            usleep(200_000)
            try db.execute(sql: "INSERT INTO item (id, name) VALUES (0, 'slow')")
        }
        let queued = (1...20).map { index in
            database.write(on: node) { db -> Int in
                try db.execute(sql: "INSERT INTO item (id, name) VALUES (?, ?)", arguments: [index, "item-\(index)"])
                switch index {
                case 7: throw Refused()  // its own insert must be rolled back
                case 13: try db.execute(sql: "INSERT INTO item (id, name) VALUES (99, 'item-1')")  // UNIQUE
                default: break
                }
                return index
            }
        }
        try await slow.get()
        for (offset, future) in queued.enumerated() {
            let index = offset + 1
            if index == 7 || index == 13 {
                await #expect(throws: (any Error).self) { try await future.get() }
            } else {
                #expect(try await future.get() == index)
            }
        }
        #expect(counter.commits.load(ordering: .relaxed) - before <= 2)
        let ids = try await database.read(on: node) { db in try Int.fetchAll(db, sql: "SELECT id FROM item ORDER BY id") }.get()
        let expected: [Int] = [0] + (1...20).filter { $0 != 7 && $0 != 13 }
        #expect(ids == expected)
        try await wire.shutdown()
    }

    @Test func onDiskEveryConnectionSyncsFully() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let wire = LiveWire(threads: 2)
        let node = wire.node("writer")
        let database = try DurableDatabase(path: folder + "/items.sqlite", schema: Self.schema)
        // 2 is FULL; GRDB's WAL set-up would leave the writer at 1 (NORMAL).
        let writer = try await database.write(on: node) { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }.get()
        let reader = try await database.read(on: node) { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }.get()
        let journal = try await database.read(on: node) { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }.get()
        #expect(writer == 2)
        #expect(reader == 2)
        #expect(journal == "wal")
        // Every connection's page cache is bounded (negative: KiB), so a growing file does not grow serve's memory.
        let cache = "PRAGMA cache_size"
        #expect(try await database.write(on: node) { db in try Int.fetchOne(db, sql: cache) }.get() == -DurableDatabase.pageCacheKiB)
        #expect(try await database.read(on: node) { db in try Int.fetchOne(db, sql: cache) }.get() == -DurableDatabase.pageCacheKiB)
        // Every reader is open from the start: the file and its WAL for each, the writer's and the checkpointer's,
        // and no more later.
        let descriptors = Self.openDescriptors(to: folder + "/items.sqlite")
        #expect(descriptors == 2 * (DurableDatabase.readers + 2))
        _ = try await (0..<50).map { _ in database.read(on: node) { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") } }
            .reduce(node.eventLoop.makeSucceededVoidFuture()) { all, next in all.and(next).map { _ in } }.get()
        #expect(Self.openDescriptors(to: folder + "/items.sqlite") == descriptors)
        try await wire.shutdown()
    }

    /// A server restarted while another connection checkpoints the same file (the last server's last connection
    /// checkpoints as it closes, on whichever thread releases it) starts anyway. A PASSIVE checkpoint never waits
    /// for one under way: it answers "database is locked" at once, which is how `MaxJobsTests` failed under CI load.
    @Test func anotherConnectionsCheckpointDoesNotStopAnOpen() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/items.sqlite"
        _ = try DurableDatabase(path: path, schema: Self.schema)
        // A reader keeps an old snapshot, a write goes past it: a FULL checkpoint then holds SQLite's checkpoint
        // lock while it waits for the reader, in a busy handler that waits until this test lets it give up.
        let waiting = DispatchSemaphore(value: 0)
        let giveUp = DispatchSemaphore(value: 0)
        var holding = Configuration()
        holding.busyMode = .callback { _ in
            waiting.signal()
            giveUp.wait()
            return false
        }
        let reader = try DatabaseQueue(path: path)
        let writer = try DatabaseQueue(path: path)
        let checkpointer = try DatabaseQueue(path: path, configuration: holding)
        let snapshotTaken = DispatchSemaphore(value: 0)
        let snapshotDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? reader.read { db in
                _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item")
                snapshotTaken.signal()
                snapshotDone.wait()
            }
        }
        snapshotTaken.wait()
        try writer.write { db in try db.execute(sql: "INSERT INTO item (id, name) VALUES (1, 'a')") }
        let checkpointed = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? checkpointer.writeWithoutTransaction { db in try db.checkpoint(.full) }
            checkpointed.signal()
        }
        waiting.wait()
        // The open's writes wait for the checkpoint's write lock (the busy timeout): let it go soon.
        let release = DispatchWorkItem {
            giveUp.signal()
            snapshotDone.signal()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(300), execute: release)
        #expect(throws: Never.self) { _ = try DurableDatabase(path: path, schema: Self.schema) }
        checkpointed.wait()
    }

    /// `processCrash` durability (MiG without sync-to-disk): NORMAL on every connection, still WAL.
    @Test func processCrashDurabilityCommitsWithoutFsync() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let wire = LiveWire(threads: 2)
        let node = wire.node("writer")
        let database = try DurableDatabase(path: folder + "/items.sqlite", schema: Self.schema, durability: .processCrash)
        let writer = try await database.write(on: node) { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }.get()
        let reader = try await database.read(on: node) { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }.get()
        let journal = try await database.read(on: node) { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }.get()
        #expect(writer == 1)
        #expect(reader == 1)
        #expect(journal == "wal")
        try await wire.shutdown()
    }

    @Test(arguments: [false, true])
    func underSimulationWritesRunInlineInCallOrder(onDisk: Bool) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let kernel = Kernel(seed: 1)
        let node = kernel.node("store")
        let database = try DurableDatabase(path: onDisk ? folder + "/items.sqlite" : nil, schema: Self.schema)
        let ran = Mutex<[Int]>([])
        let first = database.write(on: node) { db in
            ran.withLock { $0.append(1) }
            try db.execute(sql: "INSERT INTO item (id, name) VALUES (1, 'a')")
        }
        // Inline: the body has run before write returned, and so has the next one before it is even asked for.
        #expect(ran.withLock { $0 } == [1])
        let failing = database.write(on: node) { db in
            ran.withLock { $0.append(2) }
            try db.execute(sql: "INSERT INTO item (id, name) VALUES (2, 'a')")  // UNIQUE
        }
        #expect(ran.withLock { $0 } == [1, 2])

        let order = try kernel.run("await") {
            // A job due now, queued before the awaits: an await that suspended would let it run first.
            let queuedJobRan = Mutex(false)
            node.eventLoop.execute { queuedJobRan.withLock { $0 = true } }
            try await database.awaitWrite(on: node) { db in try db.execute(sql: "INSERT INTO item (id, name) VALUES (3, 'b')") }
            let names = try await database.awaitRead(on: node) { db in try String.fetchAll(db, sql: "SELECT name FROM item ORDER BY id") }
            #expect(queuedJobRan.withLock { $0 } == false)
            try await first.get()
            await #expect(throws: (any Error).self) { try await failing.get() }
            return names
        }
        #expect(order == ["a", "b"])
    }
}
