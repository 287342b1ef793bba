import Foundation
import GRDB

/// What IMS keeps across restarts, in SQLite: the hosts' registered certificates, the enrolled users, and
/// the replay cache of token ids seen within their validity. On disk (`workbench serve` puts it in its state
/// folder) it uses WAL with `synchronous = FULL`, and each change is one committed, fsynced transaction before
/// the client hears of it, so a token accepted once is refused after `kill -9` or a power loss. Sessions
/// started are not kept here: they live in memory and end with the process (the SDK starts a new one).
///
/// Only GRDB's synchronous API is used: its async API resumes on GRDB's own threads, outside the kernel.
final class IMSStore: Sendable {
    struct CertificateRow: Sendable {
        var issuer: String
        var keyID: String
        var pem: String
    }

    private let database: DatabaseQueue

    /// - parameter path: the SQLite file; nil keeps everything in memory (simulation).
    init(path: String?) throws {
        if let path {
            var configuration = Configuration()
            // FULL explicitly, not the SQLite build's default: a jti commit left to the OS could be lost with the
            // power and its token accepted a second time after the restart.
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
            database = try DatabaseQueue(path: path, configuration: configuration)
            try Self.syncDirectory(of: path)
        } else {
            database = try DatabaseQueue()
        }
        try database.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS certificate (
                        issuer TEXT NOT NULL, key_id TEXT NOT NULL, pem TEXT NOT NULL, fingerprint TEXT NOT NULL,
                        PRIMARY KEY (issuer, key_id));
                    CREATE TABLE IF NOT EXISTS enrolled_user (
                        issuer TEXT NOT NULL, subject TEXT NOT NULL, PRIMARY KEY (issuer, subject));
                    CREATE TABLE IF NOT EXISTS seen_token (
                        issuer TEXT NOT NULL, jti TEXT NOT NULL, expires INTEGER NOT NULL, PRIMARY KEY (issuer, jti));
                    CREATE INDEX IF NOT EXISTS seen_token_expires ON seen_token (expires);
                    """)
        }
    }

    /// fsyncs the folder of the database: SQLite syncs it when it creates the WAL, not when it creates the
    /// database file itself.
    private static func syncDirectory(of path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw IMSStoreError("cannot open \(directory): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw IMSStoreError("fsync of \(directory): \(String(cString: strerror(errno)))") }
    }

    func register(issuer: String, keyID: String, pem: String, fingerprint: String) throws {
        try database.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO certificate (issuer, key_id, pem, fingerprint) VALUES (?, ?, ?, ?)",
                arguments: [issuer, keyID, pem, fingerprint])
        }
    }

    func certificates() throws -> [CertificateRow] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT issuer, key_id, pem FROM certificate ORDER BY issuer, key_id").map {
                CertificateRow(issuer: $0["issuer"], keyID: $0["key_id"], pem: $0["pem"])
            }
        }
    }

    func enrol(issuer: String, subject: String) throws {
        try database.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO enrolled_user (issuer, subject) VALUES (?, ?)", arguments: [issuer, subject])
        }
    }

    func isEnrolled(issuer: String, subject: String) throws -> Bool {
        try database.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM enrolled_user WHERE issuer = ? AND subject = ?", arguments: [issuer, subject]) ?? false
        }
    }

    /// Records a token id as used; false when it was already used and is still remembered (a replay).
    /// Ids are forgotten once `forgetBefore` passes their expiry: the token itself is refused by then.
    func recordUse(issuer: String, jti: String, expires: Int64, forgetBefore: Int64) throws -> Bool {
        try database.write { db in
            try db.execute(sql: "DELETE FROM seen_token WHERE expires < ?", arguments: [forgetBefore])
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM seen_token WHERE issuer = ? AND jti = ?", arguments: [issuer, jti]) ?? false {
                return false
            }
            try db.execute(sql: "INSERT INTO seen_token (issuer, jti, expires) VALUES (?, ?, ?)", arguments: [issuer, jti, expires])
            return true
        }
    }
}

/// The store could not make its database file durable.
struct IMSStoreError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
