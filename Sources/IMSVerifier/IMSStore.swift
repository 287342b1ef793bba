import DurableStore
import GRDB
import Wire

/// What IMS keeps across restarts, in SQLite (a ``DurableStore/DurableDatabase``): the hosts' registered
/// certificates, the enrolled users, and the replay cache of token ids seen within their validity. On disk
/// (`workbench serve` puts it in its state folder) it uses WAL with `synchronous = FULL`, and each change is
/// committed and fsynced before the client hears of it, so a token accepted once is refused after `kill -9` or a
/// power loss. Live, a request's reads run on the thread pool and its writes are group-committed with the others
/// arriving meanwhile (one fsync for all, each in its own savepoint); under simulation all of it runs inline.
/// Sessions started are not kept here: they live in memory and end with the process (the SDK starts a new one).
///
/// The `async` methods are a request's; the others block the calling thread and are for start-up and an
/// operator's commands.
final class IMSStore: Sendable {
    struct CertificateRow: Sendable {
        var issuer: String
        var keyID: String
        var pem: String
    }

    private let database: DurableDatabase
    private let node: Node

    private static let schema: DatabaseSchema = {
        var migrator = DatabaseMigrator()
        // `IF NOT EXISTS`: stores created before the migrator have these tables already.
        migrator.registerMigration("v1") { db in
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
        return DatabaseSchema(migrator)
    }()

    /// - parameters:
    ///   - path: the SQLite file (under simulation, on the node's simulated disk); nil keeps everything in memory.
    ///   - node: the verifier's node: requests' work leaves its loop and comes back to it.
    init(path: String?, node: Node) throws {
        // Under simulation the file is on the node's disk, so a crash of the node keeps only what was synced.
        database = try DurableDatabase(path: path, schema: Self.schema, disk: node.disk)
        self.node = node
    }

    func register(issuer: String, keyID: String, pem: String, fingerprint: String) throws {
        try database.writeBlocking { db in try Self.register(issuer: issuer, keyID: keyID, pem: pem, fingerprint: fingerprint, in: db) }
    }

    nonisolated(nonsending) func register(issuer: String, keyID: String, pem: String, fingerprint: String) async throws {
        try await database.awaitWrite(on: node) { db in
            try Self.register(issuer: issuer, keyID: keyID, pem: pem, fingerprint: fingerprint, in: db)
        }
    }

    private static func register(issuer: String, keyID: String, pem: String, fingerprint: String, in db: Database) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO certificate (issuer, key_id, pem, fingerprint) VALUES (?, ?, ?, ?)",
            arguments: [issuer, keyID, pem, fingerprint])
    }

    func certificates() throws -> [CertificateRow] {
        try database.readBlocking { db in
            try Row.fetchAll(db, sql: "SELECT issuer, key_id, pem FROM certificate ORDER BY issuer, key_id").map {
                CertificateRow(issuer: $0["issuer"], keyID: $0["key_id"], pem: $0["pem"])
            }
        }
    }

    func enrol(issuer: String, subject: String) throws {
        try database.writeBlocking { db in try Self.enrol(issuer: issuer, subject: subject, in: db) }
    }

    nonisolated(nonsending) func enrol(issuer: String, subject: String) async throws {
        try await database.awaitWrite(on: node) { db in try Self.enrol(issuer: issuer, subject: subject, in: db) }
    }

    private static func enrol(issuer: String, subject: String, in db: Database) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO enrolled_user (issuer, subject) VALUES (?, ?)", arguments: [issuer, subject])
    }

    nonisolated(nonsending) func isEnrolled(issuer: String, subject: String) async throws -> Bool {
        try await database.awaitRead(on: node) { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM enrolled_user WHERE issuer = ? AND subject = ?", arguments: [issuer, subject]) ?? false
        }
    }

    /// Records a token id as used; false when it was already used and is still remembered (a replay).
    /// Ids are forgotten once `forgetBefore` passes their expiry: the token itself is refused by then. The check
    /// and the insert are one write, so two requests with the same jti cannot both pass, whichever loop they came on.
    nonisolated(nonsending) func recordUse(issuer: String, jti: String, expires: Int64, forgetBefore: Int64) async throws -> Bool {
        try await database.awaitWrite(on: node) { db in
            try db.execute(sql: "DELETE FROM seen_token WHERE expires < ?", arguments: [forgetBefore])
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM seen_token WHERE issuer = ? AND jti = ?", arguments: [issuer, jti]) ?? false {
                return false
            }
            try db.execute(sql: "INSERT INTO seen_token (issuer, jti, expires) VALUES (?, ?, ?)", arguments: [issuer, jti, expires])
            return true
        }
    }
}
