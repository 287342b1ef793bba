import Crypto
import DurableStore
import Foundation
import GRDB
import IPP
import NIOConcurrencyHelpers
import NIOCore
import Wire

/// MiG's jobs, as a print server keeps them: in memory, with SQLite as their log.
///
/// Every question (Get-Jobs, Get-Job-Attributes, the printer's next job, queued-job-count) is answered from memory,
/// on the actor's loop. Every change is applied in memory at once and written to SQLite behind it; `update` returns
/// the write's completion, and MiG answers a client only once the write that answer depends on is durable. Writes
/// are committed in the order they were made, so a later commit covers every earlier change. On a restart the jobs
/// are read back from SQLite.
///
/// The store keeps at most `maxJobs` jobs, as cupsd's `MaxJobs`: a new job beyond it makes the oldest finished job
/// (completed, canceled or aborted) be forgotten, in memory and in the log; when every job kept is still active, the
/// new one is refused. So a server that prints for days holds a bounded history rather than every job it ever took.
///
/// The database (a `DurableDatabase`) is in memory under simulation, where every write runs inline in call order (with
/// a path, on the node's simulated disk, so that a crash of the node keeps what was synced and no more); on disk live,
/// with WAL: writes that arrive together are group-committed off the loops in one transaction, so a
/// job answered with 200 survives `kill -9`; with `syncToDisk` (what `workbench serve` runs) each group commit is
/// also fsynced (`synchronous = FULL`), so it survives a power loss too.
public final class JobStore: Sendable {
    let database: DurableDatabase
    let node: Node
    /// The jobs in memory. Locked rather than confined to the actor's loop so that scenarios and tests can read
    /// them from anywhere; the actor itself is the only writer, so the lock is never contended.
    private let table: NIOLockedValueBox<JobTable>
    /// How many jobs the store keeps (0: no limit).
    let maxJobs: Int
    /// The newest write's outcome: what ``flush()`` waits for. Only the actor writes, so it is set in the order the
    /// writes are made.
    private let newest = NIOLockedValueBox<EventLoopFuture<Void>?>(nil)
    /// Why a new job's row could not be written (a disk's write or read error), by job: the job's next update fails
    /// for want of its row, and says this instead of "not found".
    private let unstored = NIOLockedValueBox<[Int64: any Error]>([:])

    /// Opens (or creates) the store and reads nothing yet: `recoverAfterRestart` reads the jobs back. Called on the
    /// node's blocking threads (inline under simulation).
    ///
    /// - parameters:
    ///   - path: the SQLite file, or nil for an in-memory store.
    ///   - syncToDisk: fsync every commit (power-loss safe) rather than leave it to the OS (process-crash safe).
    ///   - node: the actor whose loop the writes' completions arrive on.
    ///   - maxJobs: how many jobs to keep, finished ones included (0: no limit).
    public init(path: String?, syncToDisk: Bool, node: Node, maxJobs: Int = 0) throws {
        self.node = node
        self.maxJobs = maxJobs
        // The planted bug: the commits MiG answers after are left to the OS to sync, whatever sync-to-disk promised.
        let durable = syncToDisk && !node.planted(.migAcknowledgedBeforeDurable)
        database = try DurableDatabase(
            path: path, schema: Self.schema, durability: durable ? .powerLoss : .processCrash, disk: node.disk,
            journal: node.planted(.migCommitWithoutJournal) ? .none : .rollback)
        table = NIOLockedValueBox(JobTable())
    }

    private static let schema = DatabaseSchema(migrator)

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: Account.databaseTableName) { table in
                table.primaryKey("user", .text)
                table.column("passwordDigest", .text).notNull()
                table.column("salt", .text).notNull()
                table.column("requiresClientCertificate", .boolean).notNull()
            }
            try db.create(table: Job.databaseTableName) { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("name", .text).notNull()
                table.column("user", .text).notNull()
                table.column("stateValue", .integer).notNull()
                table.column("reasonList", .text).notNull()
                table.column("format", .text).notNull()
                table.column("compression", .text).notNull()
                table.column("copies", .integer).notNull()
                table.column("sides", .text).notNull()
                table.column("media", .text).notNull()
                table.column("pageRanges", .text).notNull()
                table.column("documentBytes", .integer).notNull()
                table.column("documentDigest", .text)
                table.column("documentPath", .text)
                table.column("documentCount", .integer).notNull()
                table.column("awaitingDocuments", .boolean).notNull()
                table.column("impressions", .integer).notNull()
                table.column("impressionsCompleted", .integer).notNull()
                table.column("createdAt", .integer).notNull()
                table.column("processingAt", .integer)
                table.column("completedAt", .integer)
            }
        }
        // The print engine looks for the next pending job after every job, and every printer poll counts the
        // queued ones: without an index both walk the whole job history, which only grows.
        migrator.registerMigration("v2-state-index") { db in
            try db.create(index: "job_on_state", on: Job.databaseTableName, columns: ["stateValue", "awaitingDocuments"])
        }
        // Every job-template value a job accepted is reported back; before this only the four typed ones were kept.
        migrator.registerMigration("v3-job-template") { db in
            try db.alter(table: Job.databaseTableName) { table in table.add(column: "template", .blob) }
        }
        // Pages are counted from the document: a 3-page PDF of 2 MB is 3 pages, not 20.
        migrator.registerMigration("v4-document-pages") { db in
            try db.alter(table: Job.databaseTableName) { table in table.add(column: "pages", .integer) }
        }
        // Jobs beyond max-jobs are forgotten; the pages they printed still used the toner printer-supply reports.
        migrator.registerMigration("v5-forgotten-pages") { db in
            try db.create(table: "spool_total") { table in
                table.primaryKey("name", .text)
                table.column("value", .integer).notNull()
            }
        }
        // A document sent as application/octet-stream is auto-sensed; the format found is reported back.
        migrator.registerMigration("v6-format-detected") { db in
            try db.alter(table: Job.databaseTableName) { table in table.add(column: "formatDetected", .text) }
        }
        return migrator
    }

    // MARK: Accounts

    /// Creates or replaces an account. The salt comes from the caller (the node's random stream).
    @discardableResult
    public func setAccount(user: String, password: String, salt: String, requiresClientCertificate: Bool) throws -> Account {
        let account = Account(
            user: user, passwordDigest: Self.digest(salt + password), salt: salt,
            requiresClientCertificate: requiresClientCertificate)
        try database.writeBlocking { db in try account.save(db) }  // an upsert: two statements
        return account
    }

    /// Lower-case hex SHA-256 (checked on every request: spelled out by hand, as String(format:) per byte
    /// costs more than the hash).
    static func digest(_ text: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in SHA256.hash(data: Data(text.utf8)) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    // MARK: Jobs

    /// A new job: numbered after every job the spool has held (`make` builds it with that id), kept in memory, and
    /// logged; the oldest finished jobs make room for it when the store is full (returned, so that their documents can
    /// go too). Nil when the store is full of active jobs.
    public func insert(_ make: (_ id: Int64) -> Job) -> (job: Job, forgotten: [Job])? {
        guard let (job, forgotten) = table.withLockedValue({ $0.insert(make, keeping: maxJobs) }) else { return nil }
        log { db in
            try job.insertRow(db)
            guard !forgotten.isEmpty else { return }
            try Job.deleteAll(db, keys: forgotten.map(\.id))
            try db.execute(
                sql: """
                    INSERT INTO spool_total (name, value) VALUES ('forgotten-impressions', ?)
                    ON CONFLICT (name) DO UPDATE SET value = value + excluded.value
                    """,
                arguments: [forgotten.reduce(Int64(0)) { $0 + Int64($1.impressionsCompleted) }])
        }.whenFailure { [unstored] error in unstored.withLockedValue { $0[job.id] = error } }
        return (job, forgotten)
    }

    /// Changes a job; the future completes once the change is durable, on `eventLoop` (the actor's loop by default).
    @discardableResult
    public func update(_ job: Job, completingOn eventLoop: (any EventLoop)? = nil) -> EventLoopFuture<Void> {
        table.withLockedValue { $0.update(job) }
        return log(completingOn: eventLoop) { db in try job.updateRow(db) }.flatMapErrorThrowing { [unstored] error in
            throw unstored.withLockedValue { $0.removeValue(forKey: job.id) } ?? error
        }
    }

    /// Completes, on the actor's loop, once every change made before it is committed (or has failed, alone in its
    /// savepoint). Writes commit in the order they were made, so that is when the newest one's commit has ended: a
    /// flush waits for that, and adds no write of its own. An empty write took a transaction of its own on every job
    /// (the sweeper flushes before it removes a finished document), since it came a turn of the loop after the save
    /// it waited for and missed that save's commit.
    public func flush() -> EventLoopFuture<Void> {
        guard let newest = newest.withLockedValue({ $0 }) else { return node.eventLoop.makeSucceededVoidFuture() }
        return newest.hop(to: node.eventLoop).recover { _ in }
    }

    public func job(id: Int64) -> Job? { table.withLockedValue { $0.jobs[id] } }

    /// Jobs in id order (or newest first), filtered by state and owner, at most `limit`.
    public func jobs(states: [IPPJobState]? = nil, user: String? = nil, limit: Int? = nil, newestFirst: Bool = false) -> [Job] {
        table.withLockedValue { table in
            var found: [Job] = []
            let ids = newestFirst ? AnySequence(table.order.reversed()) : AnySequence(table.order)
            for id in ids {
                guard let job = table.jobs[id] else { continue }
                if let states, !states.contains(job.state) { continue }
                if let user, job.user != user { continue }
                found.append(job)
                if let limit, found.count >= limit { break }
            }
            return found
        }
    }

    /// How many jobs are in these states (queued-job-count: asked for by every printer poll).
    public func count(states: [IPPJobState]) -> Int {
        table.withLockedValue { table in table.jobs.values.reduce(0) { $0 + (states.contains($1.state) ? 1 : 0) } }
    }

    /// Pages printed by every job the spool has held, forgotten ones included (read once, when the printer starts).
    public func impressionsPrinted() -> Int64 {
        table.withLockedValue { table in table.jobs.values.reduce(table.forgottenImpressions) { $0 + Int64($1.impressionsCompleted) } }
    }

    /// The oldest job ready to print.
    public func nextPending() -> Job? {
        table.withLockedValue { table in table.ready.min().flatMap { table.jobs[$0] } }
    }

    /// After a restart: a job that was printing is queued again and resumes after its last printed page (its
    /// job-impressions-completed, and the printer's page count, never go back); an upload that never got its answer
    /// is aborted (its client was not told it succeeded). Then the jobs are read into memory.
    public func recoverAfterRestart() throws -> (requeued: Int, aborted: Int) {
        let recovered = try database.writeBlocking { db in
            try db.execute(
                sql:
                    "UPDATE job SET stateValue = ?, reasonList = 'aborted-by-system', completedAt = createdAt WHERE stateValue < ? AND awaitingDocuments = 1",
                arguments: [IPPJobState.aborted.rawValue, IPPJobState.canceled.rawValue])
            let aborted = db.changesCount
            try db.execute(
                sql: "UPDATE job SET stateValue = ?, reasonList = '' WHERE stateValue IN (?, ?)",
                arguments: [IPPJobState.pending.rawValue, IPPJobState.processing.rawValue, IPPJobState.processingStopped.rawValue])
            return (requeued: db.changesCount, aborted: aborted)
        }
        let jobs = try database.readBlocking { db in try Job.order(Column("id")).fetchAll(db) }
        let next = try database.readBlocking { db in try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'job'") } ?? 0
        let forgotten = try database.readBlocking { db in
            try Int64.fetchOne(db, sql: "SELECT value FROM spool_total WHERE name = 'forgotten-impressions'")
        }
        table.withLockedValue { $0 = JobTable(jobs, next: next + 1, forgottenImpressions: forgotten ?? 0) }
        return recovered
    }

    /// Writes a change to SQLite behind the memory: group-committed with the changes that arrive with it, off the
    /// loops live, inline under simulation.
    private func log(completingOn eventLoop: (any EventLoop)? = nil, _ change: @escaping @Sendable (Database) throws -> Void) -> EventLoopFuture<Void>
    {
        let written = database.write(on: node, completingOn: eventLoop, change)
        newest.withLockedValue { $0 = written }
        return written
    }
}

/// The jobs in memory, with the index the print engine asks on every job: which are ready to print.
struct JobTable {
    private(set) var jobs: [Int64: Job] = [:]
    /// Every id, ascending (ids only grow).
    private(set) var order: [Int64] = []
    /// Jobs pending with their documents complete.
    private(set) var ready: Set<Int64> = []
    /// Pages printed by the jobs forgotten to keep within max-jobs.
    private(set) var forgottenImpressions: Int64 = 0
    private var nextID: Int64 = 1

    init() {}

    init(_ jobs: [Job], next: Int64, forgottenImpressions: Int64 = 0) {
        for job in jobs { update(job) }
        order = jobs.map(\.id)
        nextID = max(next, (order.last ?? 0) + 1)
        self.forgottenImpressions = forgottenImpressions
    }

    /// Numbers and keeps the job `make` builds with the next id, first forgetting the oldest finished jobs while
    /// `limit` (when not 0) is reached. Nil, and nothing changed, when every job kept is active.
    mutating func insert(_ make: (_ id: Int64) -> Job, keeping limit: Int = 0) -> (job: Job, forgotten: [Job])? {
        var forgotten: [Job] = []
        if limit > 0 && order.count >= limit {
            let excess = order.count - limit + 1
            for id in order where jobs[id]?.state.isFinal == true {
                forgotten.append(jobs[id]!)
                if forgotten.count == excess { break }
            }
            guard forgotten.count == excess else { return nil }
            let ids = Set(forgotten.map(\.id))
            order.removeAll { ids.contains($0) }
            for id in ids { jobs[id] = nil }
            forgottenImpressions += forgotten.reduce(0) { $0 + Int64($1.impressionsCompleted) }
        }
        let job = make(nextID)
        nextID += 1
        order.append(job.id)
        update(job)
        return (job, forgotten)
    }

    mutating func update(_ job: Job) {
        jobs[job.id] = job
        if job.state == .pending && !job.awaitingDocuments { ready.insert(job.id) } else { ready.remove(job.id) }
    }
}

extension PlantedBug {
    /// MiG answers a job as soon as its commit returns, but with sync-to-disk on it does not sync that commit: the
    /// acknowledged job is only in the node's page cache, and a crash right after the answer loses it.
    public static let migAcknowledgedBeforeDurable = PlantedBug("mig.acknowledged-before-durable")
    /// MiG's job database commits without SQLite's rollback journal, its pages written in place: a power cut during a
    /// commit that tears its last page leaves the database half written (one that loses the commit whole does not).
    public static let migCommitWithoutJournal = PlantedBug("mig.commit-without-journal")
}
