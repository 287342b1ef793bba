import Foundation
import GRDB
import NIOCore
import NIOPosix
import Synchronization
import Wire

/// An SQLite database an actor keeps its durable state in, used without ever blocking an event loop.
///
/// **On disk** (a path): a GRDB `DatabasePool` in WAL mode with `synchronous = FULL` on the connection that
/// commits (GRDB's WAL set-up leaves NORMAL there, which hands the last commits to the OS and loses them with
/// the power), and the folder fsynced once the file exists (SQLite syncs the folder for the WAL, not for the
/// database file itself). On a live node (``Wire/Node/blockingWork`` threaded), work runs on the database's own
/// threads (``DatabaseThreads``: one per reader and one for commits), and results hop back to a loop:
/// - ``read(on:completingOn:_:)`` runs on a pool reader;
/// - ``write(on:completingOn:_:)`` is **group-committed**: writes that arrive while a commit is in flight wait and are then
///   committed together, in arrival order, in one transaction (one fsync of the WAL), each inside its own
///   savepoint, so a write that throws rolls back alone and fails only its own future. Every future completes
///   once the commit that holds its write is durable, or fails when that commit does.
/// - WAL checkpoints run on a connection of their own (``WALCheckpoints``), never inside a commit.
///
/// **Inline**: on a simulated node (and for any node when there is no path) every read and write runs at once
/// on the caller's thread, a write in a transaction of its own, in call order: under simulation virtual time
/// does not pass while code runs, so there is nothing to wait for and the kernel's order is kept.
///
/// **In memory** (no path): a `DatabaseQueue`, always inline — nothing touches a disk (simulation, tests).
///
/// **On a simulated disk** (a path and a node's ``Wire/Node/disk``, which only a simulated node has): one
/// `DatabaseQueue`, always inline, through the VFS that puts its files on that disk (``SimulatedDiskVFS``), with a
/// rollback journal (`journal_mode = TRUNCATE`: the disk has no shared memory for a WAL) and the same `synchronous` as
/// on a real disk, so a crash of the node loses exactly what SQLite had not synced.
///
/// Futures complete on the calling node's loop (or on the loop given as `completingOn`). The `await…` forms are for async code: inline they return
/// without suspending (see ``Wire/Node/awaitBlocking(_:)``), so under simulation they change no trace. The
/// `…Blocking` forms run on the calling thread, for start-up and operator commands only.
///
/// Under simulation, keep the async callers `nonisolated(nonsending)` too: the simulation loop runs a task's jobs
/// isolated to itself, so entering a plain `nonisolated` async function is a hop that requeues the task behind
/// the jobs already due, and moves its trace events.
///
/// ```swift
/// let database = try DurableDatabase(path: path, schema: Self.schema)   // start-up
/// database.write(on: node) { db in try db.execute(sql: "INSERT …") }   // EventLoopFuture on node's loop
/// let n = try await database.awaitRead(on: node) { db in try Int.fetchOne(db, sql: "SELECT …") }
/// ```
/// Bodies run on whichever thread holds the database: they must only use their `Database` and values
/// they were given, never the actor's loop-confined state.
public final class DurableDatabase: Sendable {
    /// The SQLite file, or nil in memory.
    public let path: String?
    fileprivate let storage: Storage

    fileprivate enum Storage: Sendable {
        case memory(DatabaseQueue)
        case simulatedDisk(DatabaseQueue)
        case file(DatabasePool, DatabaseThreads, GroupCommit, WALCheckpoints)
    }

    /// Most writes one group commit holds (more wait for the next one): bounds a transaction's size and time.
    public static let maximumBatch = 1_000
    /// Reader connections of an on-disk database, all opened at start (two descriptors each: the file and its WAL).
    /// The database has a thread for each, so a read never waits for a reader.
    public static let readers = 4
    /// How long a connection waits for another one's lock before "database is locked", in seconds.
    static let busyTimeout: TimeInterval = 5
    /// Each connection's page cache, in KiB. SQLite's default (2,000 KiB) fills as the file grows, so a served
    /// database's six connections (writer, readers, checkpointer) went on taking memory for minutes under load:
    /// `bench load` saw SQLite's heap grow 2.9 → 6.1 MiB over the first minute, most of serve's RSS growth. Commits
    /// touch a b-tree's few hot pages and every other page is one `pread` away in the OS's cache, so a small cache
    /// costs no measurable throughput, and it is full within seconds.
    static let pageCacheKiB = 256

    /// Opens every reader connection now. GRDB opens them on first use, so a pool that grew under load would keep
    /// more descriptors afterwards than before it, which reads as a leak (`bench load` checks that serve's come
    /// back). Each reader is taken by its own thread at once, which makes the pool open all of them. The threads
    /// hold the pool weakly: a thread that exits late must not be where the pool is released (and its connections
    /// closed, the last one checkpointing) while the next server opens the same file.
    private static func openReaders(of pool: DatabasePool) throws {
        let inside = DispatchSemaphore(value: 0)
        let leave = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        let failure = Mutex<(any Error)?>(nil)
        for _ in 0..<readers {
            finished.enter()
            Thread.detachNewThread { [weak pool] in
                defer { finished.leave() }
                do {
                    try pool?.read { _ in
                        inside.signal()
                        leave.wait()
                    }
                } catch {
                    failure.withLock { $0 = error }
                    inside.signal()
                }
            }
        }
        for _ in 0..<readers { inside.wait() }
        for _ in 0..<readers { leave.signal() }
        finished.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// What a commit on disk survives once its future has completed.
    public enum Durability: Sendable {
        /// `synchronous = FULL`: the WAL is fsynced at every (group) commit, so the commit survives a power loss.
        case powerLoss
        /// `synchronous = NORMAL`: the commit is in the WAL, in the OS's page cache, so it survives the process being
        /// killed (`kill -9`) but not a power loss; the WAL is fsynced only at checkpoints. For actors whose operator
        /// chose speed over power-loss safety (MiG's `sync-to-disk=false`).
        case processCrash

        var synchronous: String { self == .powerLoss ? "FULL" : "NORMAL" }
    }

    /// How a commit on a simulated disk is undone when the power goes in its middle (the machine's file is always in
    /// WAL mode, whose frames carry checksums).
    public enum Journal: Sendable {
        /// SQLite's rollback journal (`journal_mode = TRUNCATE`): the pages a commit changes are saved and synced
        /// first, so a commit cut anywhere is rolled back at the next open.
        case rollback
        /// None (`journal_mode = OFF`): a commit writes its pages in place, two syncs fewer. A commit a power cut loses
        /// whole leaves the file as it was; one whose last page it tears leaves the file half written, with nothing to
        /// undo it. What an operator trading crash safety for speed chooses; here only a planted bug does.
        case none

        var mode: String { self == .rollback ? "truncate" : "off" }
    }

    /// Opens the database (creating it and its folder's entry durably) and runs the schema's migrator; in memory,
    /// copies the schema's empty database (see ``DatabaseSchema``).
    ///
    /// - parameters:
    ///   - path: the SQLite file; nil keeps everything in memory.
    ///   - schema: the store's schema; migrated here, synchronously (start-up, before any request).
    ///   - durability: what a commit on disk survives (power loss by default).
    ///   - disk: the simulated disk `path` is on (a simulated node's ``Wire/Node/disk``); nil for the machine's.
    ///   - journal: how a commit on `disk` is undone when the power goes in its middle (the rollback journal by default).
    /// - throws: GRDB's errors, or ``DurableDatabaseError`` when the folder cannot be synced.
    public init(
        path: String?, schema: DatabaseSchema, durability: Durability = .powerLoss, disk: (any Disk)? = nil, journal: Journal = .rollback
    ) throws {
        self.path = path
        guard let path else {
            storage = .memory(try schema.emptyMemoryDatabase())
            return
        }
        if let disk {
            storage = .simulatedDisk(try Self.open(path, on: disk, schema: schema, durability: durability, journal: journal))
            return
        }
        let pragma = "PRAGMA synchronous = \(durability.synchronous); PRAGMA cache_size = -\(Self.pageCacheKiB)"
        var configuration = Configuration()
        // A server restarted while the last one's connections still close (the last close checkpoints the WAL and
        // removes it under an exclusive lock) finds the file busy for a moment: wait for it, as SQLite's busy handler
        // does, instead of failing to start with "database is locked".
        configuration.busyMode = .timeout(Self.busyTimeout)
        // Readers too, so that a checkpoint any connection runs syncs as the writer would.
        configuration.prepareDatabase { db in try db.execute(sql: pragma) }
        configuration.maximumReaderCount = Self.readers
        let pool = try DatabasePool(path: path, configuration: configuration)
        // After opening: the pool's WAL set-up ran after prepareDatabase and set the writer to NORMAL. The pool
        // has one writer connection for its whole life, so this holds for every later commit, and so does the
        // WAL hook that moves checkpoints off the commits.
        var checkpointing = Configuration()
        checkpointing.busyMode = .timeout(Self.busyTimeout)
        checkpointing.prepareDatabase { db in try db.execute(sql: pragma) }
        let checkpoints = try WALCheckpoints(path: path, configuration: checkpointing)
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: pragma)
            checkpoints.install(on: db)
        }
        try DirectorySync.sync(folderOf: path)
        try schema.migrator.migrate(pool)
        try Self.openReaders(of: pool)
        let threads = DatabaseThreads(count: Self.readers + 1)
        storage = .file(pool, threads, GroupCommit(pool: pool, threads: threads, maximumBatch: Self.maximumBatch), checkpoints)
    }

    /// The connection of a database on a simulated disk, migrated.
    private static func open(
        _ path: String, on disk: any Disk, schema: DatabaseSchema, durability: Durability, journal: Journal
    ) throws -> DatabaseQueue {
        var configuration = Configuration()
        let pragma = "PRAGMA synchronous = \(durability.synchronous); PRAGMA temp_store = MEMORY; PRAGMA cache_size = -\(pageCacheKiB)"
        configuration.prepareDatabase { db in
            // TRUNCATE rather than DELETE: a commit ends by truncating the journal and (with FULL) syncing it, which the
            // disk models exactly; a deletion it makes durable at once, which would hide what NORMAL risks.
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = \(journal.mode.uppercased())")
            guard mode == journal.mode else {
                throw DurableDatabaseError("journal_mode \(journal.mode.uppercased()) refused on the simulated disk (\(mode ?? "none"))")
            }
            try db.execute(sql: pragma)
        }
        let queue = try DatabaseQueue(path: try SimulatedDiskVFS.uri(for: path, on: disk), configuration: configuration)
        try schema.migrator.migrate(queue)
        return queue
    }

    // MARK: Futures

    /// `body`'s result from a consistent snapshot of committed data, on `node`'s loop (or `eventLoop`).
    public func read<T: Sendable>(
        on node: Node, completingOn eventLoop: (any EventLoop)? = nil, _ body: @escaping @Sendable (Database) throws -> T
    ) -> EventLoopFuture<T> {
        let completion = eventLoop ?? node.eventLoop
        switch storage {
        case .memory(let queue), .simulatedDisk(let queue):
            return completion.makeCompletedFuture { try queue.read(body) }
        case .file(let pool, let threads, _, _):
            guard node.blockingWork.isThreaded else { return completion.makeCompletedFuture { try pool.read(body) } }
            return threads.run(on: completion) { try pool.read(body) }
        }
    }

    /// `body`'s result once its changes are committed (durably, on disk); a failure when `body` throws (its changes
    /// rolled back, nobody else's) or its commit fails.
    ///
    /// - parameter eventLoop: where the future completes: `node`'s loop by default; a connection's loop saves the
    ///   answer a hop through the node's loop when the commit is all it waits for.
    public func write<T: Sendable>(
        on node: Node, completingOn eventLoop: (any EventLoop)? = nil, _ body: @escaping @Sendable (Database) throws -> T
    ) -> EventLoopFuture<T> {
        let completion = eventLoop ?? node.eventLoop
        switch storage {
        case .memory(let queue), .simulatedDisk(let queue):
            return completion.makeCompletedFuture { try queue.write(body) }
        case .file(let pool, _, let groupCommit, _):
            guard node.blockingWork.isThreaded else { return completion.makeCompletedFuture { try pool.write(body) } }
            return groupCommit.submit(body, completingOn: completion)
        }
    }

    // MARK: Async

    // GRDB's own async `read`/`write` would resume on GRDB's threads, outside the node's loop and the kernel: the
    // inline paths below call the synchronous ones through ``readBlocking(_:)`` and ``writeBlocking(_:)``.

    /// ``read(on:completingOn:_:)`` for async code; inline it returns without suspending. Live, the result
    /// comes back to the loop the caller runs on (a handler on a connection's loop crosses no other loop).
    public nonisolated(nonsending) func awaitRead<T: Sendable>(on node: Node, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if isInline(on: node) { return try readBlocking(body) }
        return try await read(on: node, completingOn: MultiThreadedEventLoopGroup.currentEventLoop, body).get()
    }

    /// ``write(on:completingOn:_:)`` for async code; inline it returns without suspending. Live, the result
    /// comes back to the loop the caller runs on, as ``awaitRead(on:_:)``'s does.
    public nonisolated(nonsending) func awaitWrite<T: Sendable>(on node: Node, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if isInline(on: node) { return try writeBlocking(body) }
        return try await write(on: node, completingOn: MultiThreadedEventLoopGroup.currentEventLoop, body).get()
    }

    /// In memory or on a simulated disk, or on a node whose blocking work runs inline (under simulation).
    private func isInline(on node: Node) -> Bool {
        switch storage {
        case .memory, .simulatedDisk: true
        case .file: !node.blockingWork.isThreaded
        }
    }
}

extension DurableDatabase {
    // MARK: Blocking

    /// `body`'s result, read on the calling thread: for start-up and operator commands (under simulation, on the
    /// kernel's thread), never from a live event loop.
    public func readBlocking<T>(_ body: (Database) throws -> T) throws -> T {
        switch storage {
        case .memory(let queue), .simulatedDisk(let queue): return try queue.read(body)
        case .file(let pool, _, _, _): return try pool.read(body)
        }
    }

    /// `body`'s changes, committed (durably) on the calling thread in a transaction of their own before this
    /// returns: for start-up and operator commands, never from a live event loop.
    public func writeBlocking<T>(_ body: (Database) throws -> T) throws -> T {
        switch storage {
        case .memory(let queue), .simulatedDisk(let queue): return try queue.write(body)
        case .file(let pool, _, _, _): return try pool.write(body)
        }
    }
}

/// The database could not be made durable, or a group commit could not finish.
public struct DurableDatabaseError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
