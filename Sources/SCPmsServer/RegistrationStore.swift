import Crypto
import Foundation
import GRDB
import SCPms

/// Applications, users, registrations and uploaded client logs, in SQLite.
///
/// In memory unless a path is given; on disk the database runs in WAL mode with `synchronous = FULL`, and
/// every change is one transaction committed before the answer, so what a client was told succeeded survives
/// `kill -9` and a power loss (FULL fsyncs the WAL at every commit; NORMAL would leave the last commits to the
/// OS), and a failed request stores nothing. WAL rather than a rollback journal: one fsync per commit instead
/// of several, and readers (the application endpoint's `X-SMP-APPCID` check) never wait for a registration.
/// Only GRDB's synchronous API is used: its async API resumes on GRDB's own threads, outside the kernel.
/// Every value reaches SQL as a bound parameter; column names come from ``ConnectionSettings/fields`` only.
public final class RegistrationStore: Sendable {
    /// An application as the server knows it.
    public struct Application: Sendable, Equatable {
        public let id: String
        public let logUploadEnabled: Bool
    }

    private let database: DatabaseQueue

    /// Opens (and creates or migrates) the store.
    ///
    /// - parameter path: the SQLite file; `nil` keeps everything in memory.
    public init(path: String?) throws {
        if let path {
            var configuration = Configuration()
            configuration.journalMode = .wal
            database = try DatabaseQueue(path: path, configuration: configuration)
            // After opening, not in prepareDatabase: GRDB's `journalMode = .wal` sets `synchronous = NORMAL` once the
            // connection is prepared, which left every registration's commit to the OS. A queue has one connection,
            // so this holds for every later write.
            try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            try Self.syncDirectory(of: path)
        } else {
            database = try DatabaseQueue()
        }
        try Self.migrator.migrate(database)
    }

    /// fsyncs the folder of the database: SQLite syncs it when it creates the WAL, not when it creates the
    /// database file itself, whose name a power loss could otherwise take with the registrations in it.
    private static func syncDirectory(of path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw RegistrationStoreError("cannot open \(directory): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw RegistrationStoreError("fsync of \(directory): \(String(cString: strerror(errno)))") }
    }

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
        return migrator
    }

    // MARK: Applications and users

    /// Adds an application or changes whether it accepts client logs.
    public func putApplication(_ id: String, logUploadEnabled: Bool) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO application (id, logUploadEnabled) VALUES (?, ?)
                    ON CONFLICT(id) DO UPDATE SET logUploadEnabled = excluded.logUploadEnabled
                    """, arguments: [id, logUploadEnabled])
        }
    }

    public func application(_ id: String) throws -> Application? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT id, logUploadEnabled FROM application WHERE id = ?", arguments: [id]).map {
                Application(id: $0["id"], logUploadEnabled: $0["logUploadEnabled"])
            }
        }
    }

    /// Adds a user or changes their password. Only a salted SHA-256 of the password is kept.
    ///
    /// - parameter salt: random bytes from the node's stream (deterministic under simulation).
    public func putUser(_ name: String, password: String, salt: [UInt8]) throws {
        let hash = Self.hash(password, salt: salt)
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO user (name, salt, passwordHash) VALUES (?, ?, ?)
                    ON CONFLICT(name) DO UPDATE SET salt = excluded.salt, passwordHash = excluded.passwordHash
                    """, arguments: [name, Data(salt), hash])
        }
    }

    /// Whether `name` exists and `password` is theirs.
    public func verify(user name: String, password: String) throws -> Bool {
        try database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT salt, passwordHash FROM user WHERE name = ?", arguments: [name]) else {
                return false
            }
            let salt: Data = row["salt"]
            let stored: Data = row["passwordHash"]
            return Self.hash(password, salt: Array(salt)) == stored
        }
    }

    private static func hash(_ password: String, salt: [UInt8]) -> Data {
        Data(SHA256.hash(data: salt + Array(password.utf8)))
    }

    // MARK: Registrations

    /// Stores a new registration; fails if the id is taken.
    public func insert(_ connection: ApplicationConnection) throws {
        let fields = ConnectionSettings.fields
        try database.write { db in
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
    public func update(_ connection: ApplicationConnection) throws -> Bool {
        let fields = ConnectionSettings.fields
        return try database.write { db in
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
    public func connection(_ id: String, applicationId: String) throws -> ApplicationConnection? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM connection WHERE id = ? AND applicationId = ?", arguments: [id, applicationId])
                .map(Self.connection(from:))
        }
    }

    /// Whether any application has a registration `id` (ids are unique across applications).
    public func connectionExists(_ id: String) throws -> Bool {
        try database.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM connection WHERE id = ?)", arguments: [id]) ?? false }
    }

    /// Deletes a registration; returns whether it existed. `applicationId` nil deletes it from any application.
    @discardableResult
    public func deleteConnection(_ id: String, applicationId: String?) throws -> Bool {
        try database.write { db in
            if let applicationId {
                try db.execute(sql: "DELETE FROM connection WHERE id = ? AND applicationId = ?", arguments: [id, applicationId])
            } else {
                try db.execute(sql: "DELETE FROM connection WHERE id = ?", arguments: [id])
            }
            return db.changesCount > 0
        }
    }

    /// How many registrations there are (of one application, or all).
    public func connectionCount(applicationId: String? = nil) throws -> Int {
        try database.read { db in
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
    public func appendLogs(_ lines: [ClientLogLine], applicationId: String, connectionId: String, deviceId: String) throws {
        try database.write { db in
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

    /// The stored log lines of an application, oldest first.
    public func logs(applicationId: String) throws -> [ClientLogLine] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM clientLog WHERE applicationId = ? ORDER BY seq", arguments: [applicationId]).map { row in
                ClientLogLine(
                    timestamp: row["loggedAt"], severity: ClientLogLine.Severity(rawValue: row["severity"]) ?? .info,
                    correlationId: row["correlationId"], source: row["source"], location: row["location"], message: row["message"])
            }
        }
    }
}

/// The store could not make its database file durable.
public struct RegistrationStoreError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
