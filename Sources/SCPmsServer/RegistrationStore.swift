import Crypto
import DurableStore
import Foundation
import GRDB
import NIOCore
import SCPms
import Synchronization
import Wire

/// Applications, users, registrations and uploaded client logs, in SQLite (a ``DurableStore/DurableDatabase``).
///
/// In memory unless a path is given; on disk the database runs in WAL mode with `synchronous = FULL`, and
/// every change is committed before the answer, so what a client was told succeeded survives `kill -9` and a
/// power loss (FULL fsyncs the WAL at every commit; NORMAL would leave the last commits to the OS), and a failed
/// request stores nothing. Live, requests read on the thread pool and their writes are group-committed: the
/// registrations that arrive together share one transaction and one fsync, each in its own savepoint. WAL
/// rather than a rollback journal: readers (the application endpoint's `X-SMP-APPCID` check) never wait for a
/// registration. Under simulation everything runs inline, in the kernel's order.
///
/// Passwords are PBKDF2-HMAC-SHA256 (``PasswordHashing``), hashed off the event loops; verified credentials are
/// cached for a minute (``VerifiedCredentials``).
///
/// The `async` methods are a request's; the others block the calling thread and are for start-up and an
/// operator's commands. Every value reaches SQL as a bound parameter; column names come from
/// ``ConnectionSettings/fields`` only.
public final class RegistrationStore: Sendable {
    /// An application as the server knows it.
    public struct Application: Sendable, Equatable {
        public let id: String
        public let logUploadEnabled: Bool
    }

    private let database: DurableDatabase
    private let node: Node
    let hashing: PasswordHashing
    private let verified = VerifiedCredentials()
    /// The password hashes running now, by credential (see ``verify(user:password:)``).
    private let hashesInFlight = Mutex<[SHA256Digest: EventLoopFuture<Bool>]>([:])

    /// Opens (and creates or migrates) the store.
    ///
    /// - parameters:
    ///   - path: the SQLite file (under simulation, on the node's simulated disk); `nil` keeps everything in memory (and
    ///     hashes with ``PasswordHashing/inMemory``).
    ///   - node: the actor's node: requests' work leaves its loop and their answers come back to it.
    public convenience init(path: String?, node: Node) throws {
        // Under simulation the file is on the node's disk, so a crash of the node keeps only what was synced.
        try self.init(path: path, node: node, disk: node.disk)
    }

    /// Opens the store with its file on `disk` (a simulated disk), or on the machine's file system when nil.
    init(path: String?, node: Node, disk: (any Disk)?) throws {
        // The planted bug: registrations are answered once committed, but the commits are left to the OS to sync.
        let durability: DurableDatabase.Durability = node.planted(.scpmsRegisteredBeforeDurable) ? .processCrash : .powerLoss
        database = try DurableDatabase(path: path, schema: Self.schema, durability: durability, disk: disk)
        self.node = node
        hashing = path == nil ? .inMemory : .onDisk
    }

    private static let schema = DatabaseSchema(migrator)

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE application (id TEXT PRIMARY KEY NOT NULL, logUploadEnabled INTEGER NOT NULL);
                    CREATE TABLE user (name TEXT PRIMARY KEY NOT NULL, salt BLOB NOT NULL, passwordHash BLOB NOT NULL);
                    CREATE TABLE connection (
                        id TEXT PRIMARY KEY NOT NULL,
                        applicationId TEXT NOT NULL REFERENCES application(id) ON DELETE CASCADE,
                        owner TEXT NOT NULL,
                        createdAt INTEGER NOT NULL,
                        modifiedAt INTEGER NOT NULL,
                        \(ConnectionSettings.fields.map { "\($0) TEXT" }.joined(separator: ", "))
                    );
                    CREATE TABLE clientLog (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        applicationId TEXT NOT NULL, connectionId TEXT NOT NULL, deviceId TEXT NOT NULL,
                        loggedAt TEXT NOT NULL, severity TEXT NOT NULL, correlationId TEXT NOT NULL,
                        source TEXT NOT NULL, location TEXT NOT NULL, message TEXT NOT NULL
                    );
                    """)
        }
        // Passwords become PBKDF2: rows written before keep their salted SHA-256, marked as such, until the user's
        // next successful login replaces it (see ``verify(user:password:)``).
        migrator.registerMigration("v2-password-scheme") { db in
            try db.execute(
                sql: """
                    ALTER TABLE user ADD COLUMN scheme TEXT NOT NULL DEFAULT '\(StoredPassword.Scheme.saltedSHA256.rawValue)';
                    ALTER TABLE user ADD COLUMN iterations INTEGER NOT NULL DEFAULT 0;
                    """)
        }
        return migrator
    }

    // MARK: Applications and users

    /// Adds an application or changes whether it accepts client logs.
    public func putApplication(_ id: String, logUploadEnabled: Bool) throws {
        try database.writeBlocking { db in
            try db.execute(
                sql: """
                    INSERT INTO application (id, logUploadEnabled) VALUES (?, ?)
                    ON CONFLICT(id) DO UPDATE SET logUploadEnabled = excluded.logUploadEnabled
                    """, arguments: [id, logUploadEnabled])
        }
    }

    public nonisolated(nonsending) func application(_ id: String) async throws -> Application? {
        try await database.awaitRead(on: node) { db in
            try Row.fetchOne(db, sql: "SELECT id, logUploadEnabled FROM application WHERE id = ?", arguments: [id]).map {
                Application(id: $0["id"], logUploadEnabled: $0["logUploadEnabled"])
            }
        }
    }

    /// Adds a user or changes their password; only its PBKDF2 hash is kept. Hashes on the calling thread.
    ///
    /// - parameter salt: random bytes from the node's stream (deterministic under simulation).
    public func putUser(_ name: String, password: String, salt: [UInt8]) throws {
        let stored = try hashing.hash(password, salt: salt)
        try database.writeBlocking { db in try Self.store(stored, of: name, in: db) }
    }

    private static func store(_ stored: StoredPassword, of name: String, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO user (name, salt, passwordHash, scheme, iterations) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(name) DO UPDATE SET salt = excluded.salt, passwordHash = excluded.passwordHash,
                    scheme = excluded.scheme, iterations = excluded.iterations
                """, arguments: [name, Data(stored.salt), Data(stored.hash), stored.scheme.rawValue, stored.iterations])
    }

    /// Whether `name` exists and `password` is theirs.
    ///
    /// A credential verified within the last minute is accepted without hashing again. A password stored under
    /// an older scheme or fewer iterations than the store's is replaced, after it matched, by this store's hash
    /// (same salt): old stores upgrade as their users log in, and nobody is locked out by the change.
    public nonisolated(nonsending) func verify(user name: String, password: String) async throws -> Bool {
        let found = try await database.awaitRead(on: node) { db in try Self.storedPassword(of: name, in: db) }
        guard let stored = found else { return false }
        let now = node.clock.now.uptime
        let key = VerifiedCredentials.key(user: name, password: password, storedHash: stored.hash)
        if verified.contains(key, now: now) { return true }
        // One hash per credential at a time: the requests that arrive while it runs (a fleet of clients starting
        // together, a cold cache after a restart) wait for its answer instead of each queueing another PBKDF2 on
        // the thread pool. Under simulation the hash is inline, so nobody ever finds one in flight.
        let (inFlight, promise) = hashesInFlight.withLock { running -> (EventLoopFuture<Bool>?, EventLoopPromise<Bool>?) in
            if let future = running[key] { return (future, nil) }
            let promise = node.eventLoop.makePromise(of: Bool.self)
            running[key] = promise.futureResult
            return (nil, promise)
        }
        if let inFlight { return try await inFlight.get() }
        guard let promise else { return false }
        do {
            let matched = try await checkAndUpgrade(stored, of: name, password: password, now: now)
            hashesInFlight.withLock { $0[key] = nil }
            promise.succeed(matched)
            return matched
        } catch {
            hashesInFlight.withLock { $0[key] = nil }
            promise.fail(error)
            throw error
        }
    }

    /// Hashes `password` against `stored` off the loop; on a match upgrades a weaker stored hash and caches the
    /// credential.
    private nonisolated(nonsending) func checkAndUpgrade(
        _ stored: StoredPassword, of name: String, password: String, now: Duration
    ) async throws
        -> Bool
    {
        guard try await node.awaitBlocking({ try stored.matches(password) }) else { return false }
        var current = stored
        if stored.isWeaker(than: hashing) {
            let hashing = self.hashing
            let upgraded = try await node.awaitBlocking { try hashing.hash(password, salt: stored.salt) }
            // Only if the password was not changed meanwhile.
            let replaced = try await database.awaitWrite(on: node) { db in
                guard try Self.storedPassword(of: name, in: db) == stored else { return false }
                try Self.store(upgraded, of: name, in: db)
                return true
            }
            if replaced { current = upgraded }
        }
        verified.insert(VerifiedCredentials.key(user: name, password: password, storedHash: current.hash), now: now)
        return true
    }

    private static func storedPassword(of name: String, in db: Database) throws -> StoredPassword? {
        guard let row = try Row.fetchOne(db, sql: "SELECT salt, passwordHash, scheme, iterations FROM user WHERE name = ?", arguments: [name])
        else { return nil }
        // A scheme this build does not know verifies nothing rather than guessing.
        guard let scheme = StoredPassword.Scheme(rawValue: row["scheme"]) else { return nil }
        let salt: Data = row["salt"]
        let hash: Data = row["passwordHash"]
        return StoredPassword(scheme: scheme, iterations: row["iterations"], salt: Array(salt), hash: Array(hash))
    }

    // MARK: Registrations

    /// Stores a new registration; fails if the id is taken.
    public nonisolated(nonsending) func insert(_ connection: ApplicationConnection) async throws {
        let fields = ConnectionSettings.fields
        try await database.awaitWrite(on: node) { db in
            var arguments: [(any DatabaseValueConvertible)?] = [
                connection.id, connection.applicationId, connection.owner,
                connection.createdAtMilliseconds, connection.modifiedAtMilliseconds,
            ]
            arguments += fields.map { connection.settings[$0] }
            try db.execute(
                sql: """
                    INSERT INTO connection (id, applicationId, owner, createdAt, modifiedAt, \(fields.joined(separator: ", ")))
                    VALUES (?, ?, ?, ?, ?, \(fields.map { _ in "?" }.joined(separator: ", ")))
                    """, arguments: StatementArguments(arguments))
        }
    }

    /// Replaces the settings of a registration; returns whether it existed.
    @discardableResult
    public nonisolated(nonsending) func update(_ connection: ApplicationConnection) async throws -> Bool {
        let fields = ConnectionSettings.fields
        return try await database.awaitWrite(on: node) { db in
            var arguments: [(any DatabaseValueConvertible)?] = [connection.modifiedAtMilliseconds]
            arguments += fields.map { connection.settings[$0] }
            arguments += [connection.id, connection.applicationId]
            try db.execute(
                sql: """
                    UPDATE connection SET modifiedAt = ?, \(fields.map { "\($0) = ?" }.joined(separator: ", "))
                    WHERE id = ? AND applicationId = ?
                    """, arguments: StatementArguments(arguments))
            return db.changesCount > 0
        }
    }

    /// The registration `id` of `applicationId`, if any.
    public nonisolated(nonsending) func connection(_ id: String, applicationId: String) async throws -> ApplicationConnection? {
        try await database.awaitRead(on: node) { db in
            try Row.fetchOne(db, sql: "SELECT * FROM connection WHERE id = ? AND applicationId = ?", arguments: [id, applicationId])
                .map(Self.connection(from:))
        }
    }

    /// Whether any application has a registration `id` (ids are unique across applications).
    public nonisolated(nonsending) func connectionExists(_ id: String) async throws -> Bool {
        try await database.awaitRead(on: node) { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM connection WHERE id = ?)", arguments: [id]) ?? false
        }
    }

    /// Deletes a registration of `applicationId` (its owner's request); returns whether it existed.
    @discardableResult
    public nonisolated(nonsending) func deleteConnection(_ id: String, applicationId: String) async throws -> Bool {
        try await database.awaitWrite(on: node) { db in
            try db.execute(sql: "DELETE FROM connection WHERE id = ? AND applicationId = ?", arguments: [id, applicationId])
            return db.changesCount > 0
        }
    }

    /// Deletes a registration of any application (an administrator); returns whether it existed.
    @discardableResult
    public func deleteConnection(_ id: String) throws -> Bool {
        try database.writeBlocking { db in
            try db.execute(sql: "DELETE FROM connection WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    /// Every registration's id, of every application, sorted (blocking: for checks and operators).
    public func connectionIDs() throws -> [String] {
        try database.readBlocking { db in try String.fetchAll(db, sql: "SELECT id FROM connection ORDER BY id") }
    }

    /// How many registrations there are (of one application, or all).
    public func connectionCount(applicationId: String? = nil) throws -> Int {
        try database.readBlocking { db in
            if let applicationId {
                return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM connection WHERE applicationId = ?", arguments: [applicationId]) ?? 0
            }
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM connection") ?? 0
        }
    }

    private static func connection(from row: Row) -> ApplicationConnection {
        var values: [String: String] = [:]
        for field in ConnectionSettings.fields { if let value: String = row[field] { values[field] = value } }
        return ApplicationConnection(
            id: row["id"], applicationId: row["applicationId"], owner: row["owner"],
            createdAtMilliseconds: row["createdAt"], modifiedAtMilliseconds: row["modifiedAt"],
            settings: ConnectionSettings(values))
    }

    // MARK: Client logs

    /// Stores the lines of one upload, all or none.
    public nonisolated(nonsending) func appendLogs(
        _ lines: [ClientLogLine], applicationId: String, connectionId: String, deviceId: String
    ) async throws {
        try await database.awaitWrite(on: node) { db in
            for line in lines {
                try db.execute(
                    sql: """
                        INSERT INTO clientLog (applicationId, connectionId, deviceId, loggedAt, severity, correlationId, source, location, message)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        applicationId, connectionId, deviceId, line.timestamp, line.severity.rawValue,
                        line.correlationId, line.source, line.location, line.message,
                    ])
            }
        }
    }

    /// The stored log lines of an application, oldest first (on the calling thread: an operator's look).
    public func logs(applicationId: String) throws -> [ClientLogLine] {
        try database.readBlocking { db in
            try Row.fetchAll(db, sql: "SELECT * FROM clientLog WHERE applicationId = ? ORDER BY seq", arguments: [applicationId]).map { row in
                ClientLogLine(
                    timestamp: row["loggedAt"], severity: ClientLogLine.Severity(rawValue: row["severity"]) ?? .info,
                    correlationId: row["correlationId"], source: row["source"], location: row["location"], message: row["message"])
            }
        }
    }
}

extension PlantedBug {
    /// SCPms answers a registration 201 once its commit returns, but does not sync that commit: the registration is
    /// only in the node's page cache, and a crash right after the answer loses it.
    public static let scpmsRegisteredBeforeDurable = PlantedBug("scpms.registered-before-durable")
}
