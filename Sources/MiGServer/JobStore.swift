import Crypto
import Foundation
import GRDB
import IPP

/// MiG's spool database: accounts, jobs and their history.
///
/// In memory under simulation; on disk with WAL live. Every commit is written to the WAL before the answer
/// leaves, so a job answered with 200 survives `kill -9`; with `syncToDisk` (what `workbench serve` runs) each
/// commit is also fsynced (`synchronous=FULL`: the WAL is synced at every commit), so it survives a power loss
/// too. WAL rather than a rollback journal: one fsync per commit instead of several, and Get-Jobs readers do
/// not block the next Print-Job's commit. Only GRDB's synchronous API is used: the store is called on the
/// actor's event loop, and GRDB's async API would resume on its own threads.
///
/// Every read and write here is one SQL statement, which SQLite runs atomically by itself: they go through
/// `unsafeRead` and `writeWithoutTransaction` rather than `read` and `write`, whose BEGIN, COMMIT and
/// query_only pragmas around the one statement cost more than the statement (they were half of MiG's time per
/// job). The queue still runs one statement at a time. Only the recovery after a restart needs a transaction.
public final class JobStore: Sendable {
    let database: DatabaseQueue

    /// - parameters:
    ///   - path: the SQLite file, or nil for an in-memory store.
    ///   - syncToDisk: fsync every commit (power-loss safe) rather than leave it to the OS (process-crash safe).
    public init(path: String?, syncToDisk: Bool = false) throws {
        if let path {
            var configuration = Configuration()
            configuration.prepareDatabase { db in
                try db.execute(sql: syncToDisk ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
            }
            database = try DatabaseQueue(path: path, configuration: configuration)
            _ = try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
            // SQLite syncs the directory when it creates the WAL, not when it creates the database file itself.
            if syncToDisk { try syncDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        } else {
            database = try DatabaseQueue()
        }
        try Self.migrator.migrate(database)
    }

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
        return migrator
    }

    // MARK: Accounts

    /// Creates or replaces an account. The salt comes from the caller (the node's random stream).
    public func setAccount(user: String, password: String, salt: String, requiresClientCertificate: Bool) throws {
        let account = Account(
            user: user, passwordDigest: Self.digest(salt + password), salt: salt,
            requiresClientCertificate: requiresClientCertificate)
        try database.write { db in try account.save(db) }  // an upsert: two statements
    }

    /// The account if `password` is its password.
    public func authenticate(user: String, password: String) throws -> Account? {
        guard let account = try database.unsafeRead({ db in try Account.fetchOne(db, key: user) }) else { return nil }
        return account.passwordDigest == Self.digest(account.salt + password) ? account : nil
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

    public func insert(_ job: Job) throws -> Job {
        var job = job
        try database.writeWithoutTransaction { db in try job.insert(db) }
        return job
    }

    public func update(_ job: Job) throws {
        try database.writeWithoutTransaction { db in try job.update(db) }
    }

    public func job(id: Int64) throws -> Job? {
        try database.unsafeRead { db in try Job.fetchOne(db, key: id) }
    }

    /// Jobs in id order, filtered by state and owner.
    public func jobs(states: [IPPJobState]? = nil, user: String? = nil, limit: Int? = nil, newestFirst: Bool = false) throws -> [Job] {
        try database.unsafeRead { db in
            var request = Job.all()
            if let states { request = request.filter(states.map(\.rawValue).contains(Column("stateValue"))) }
            if let user { request = request.filter(Column("user") == user) }
            request = request.order(newestFirst ? Column("id").desc : Column("id").asc)
            if let limit { request = request.limit(limit) }
            return try request.fetchAll(db)
        }
    }

    /// How many jobs are in these states (queued-job-count: asked for by every printer poll).
    public func count(states: [IPPJobState]) throws -> Int {
        try database.unsafeRead { db in try Job.filter(states.map(\.rawValue).contains(Column("stateValue"))).fetchCount(db) }
    }

    /// Pages printed by every job the spool remembers (read once, when the printer starts).
    public func impressionsPrinted() throws -> Int64 {
        try database.unsafeRead { db in try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(impressionsCompleted), 0) FROM job") ?? 0 }
    }

    /// The oldest job ready to print.
    public func nextPending() throws -> Job? {
        try database.unsafeRead { db in
            try Job.filter(Column("stateValue") == IPPJobState.pending.rawValue && Column("awaitingDocuments") == false)
                .order(Column("id")).fetchOne(db)
        }
    }

    /// After a restart: a job that was printing is queued again and resumes after its last printed page (its
    /// job-impressions-completed, and the printer's page count, never go back); an upload that never got its answer
    /// is aborted (its client was not told it succeeded).
    public func recoverAfterRestart() throws -> (requeued: Int, aborted: Int) {
        try database.write { db in
            try db.execute(
                sql:
                    "UPDATE job SET stateValue = ?, reasonList = 'aborted-by-system', completedAt = createdAt WHERE stateValue < ? AND awaitingDocuments = 1",
                arguments: [IPPJobState.aborted.rawValue, IPPJobState.canceled.rawValue])
            let aborted = db.changesCount
            try db.execute(
                sql: "UPDATE job SET stateValue = ?, reasonList = '' WHERE stateValue IN (?, ?)",
                arguments: [IPPJobState.pending.rawValue, IPPJobState.processing.rawValue, IPPJobState.processingStopped.rawValue])
            return (db.changesCount, aborted)
        }
    }
}
