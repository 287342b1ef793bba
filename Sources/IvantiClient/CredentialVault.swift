import Crypto
import DerivedCredential
import DurableStore
import Foundation
import GRDB
import Wire

/// The Ivanti client's store of derived credentials: one SQLite row per (owning app, serial number).
///
/// Protection at rest: the whole payload (certificates and PKCS#8 private keys) is sealed with AES-256-GCM
/// under the vault key, with `owner NUL serial` as authenticated data, so a row copied under another app or
/// serial does not open. Only what listing needs — owner, serial, name, brand, callback scheme, tags,
/// dates — is stored in clear. The vault key plays the part of the iOS keychain item: with a database file it
/// lives next to it in `<database>.key` (created once, mode 0600); in memory it is a fresh random key.
/// Writes are single transactions (a credential is stored whole or not at all); on disk the database runs in
/// WAL mode so a stored credential survives a crash. Only GRDB's synchronous API is used (see DESIGN).
final class CredentialVault: Sendable {
    private let database: DatabaseQueue
    private let key: SymmetricKey
    /// The vault key and every nonce come from here: the seed under simulation, the system's CSPRNG live.
    private let secrets: SecretRandom

    private static let schema: DatabaseSchema = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("credentials v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE credential (
                        owner TEXT NOT NULL, serial TEXT NOT NULL, name TEXT NOT NULL, brand TEXT NOT NULL,
                        callback_scheme TEXT NOT NULL, tags TEXT NOT NULL, expiration_date INTEGER NOT NULL,
                        received_at INTEGER NOT NULL, sealed BLOB NOT NULL,
                        PRIMARY KEY (owner, serial))
                    """)
        }
        return DatabaseSchema(migrator)
    }()

    /// Opens (or creates) the vault; `path` `nil` keeps it in memory.
    init(path: String?, secrets: SecretRandom) throws {
        self.secrets = secrets
        if let path {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var configuration = Configuration()
            // Two `serve` processes may share the file; wait for the other's write rather than fail.
            configuration.busyMode = .timeout(5)
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
            database = try DatabaseQueue(path: path, configuration: configuration)
            try Self.schema.migrator.migrate(database)
            key = try Self.loadOrCreateKey(at: path + ".key", secrets: secrets)
        } else {
            database = try Self.schema.emptyMemoryDatabase()
            key = SymmetricKey(data: secrets.bytes(32))
        }
    }

    /// Stores `payload` for `owner`, replacing a credential with the same serial number of that owner.
    func store(_ payload: CredentialPayload, owner: String, receivedAt: Int64) throws {
        let sealed = try AES.GCM.seal(
            payload.encoded(), using: key, nonce: AES.GCM.Nonce(data: secrets.bytes(12)),
            authenticating: Self.binding(owner, payload.serialNumber))
        guard let combined = sealed.combined else { throw VaultError("AES-GCM produced no combined box") }
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO credential
                    (owner, serial, name, brand, callback_scheme, tags, expiration_date, received_at, sealed)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    owner, payload.serialNumber, payload.name, payload.brand, payload.callbackScheme,
                    payload.tags.joined(separator: ","), payload.expirationDate, receivedAt, combined,
                ])
        }
    }

    /// The credential `serial` of `owner`, opened; `nil` if that app holds no such credential. Another app's
    /// credential is never looked up: the owner is part of the key.
    func credential(owner: String, serial: String) throws -> CredentialPayload? {
        let row = try database.read { db in
            try Row.fetchOne(db, sql: "SELECT sealed FROM credential WHERE owner = ? AND serial = ?", arguments: [owner, serial])
        }
        guard let row else { return nil }
        let box = try AES.GCM.SealedBox(combined: row["sealed"] as Data)
        let plaintext = try AES.GCM.open(box, using: key, authenticating: Self.binding(owner, serial))
        return try CredentialPayload(decoding: [UInt8](plaintext))
    }

    /// Every credential, or those of `owner`, ordered by owner then serial number.
    func summaries(owner: String? = nil) throws -> [StoredCredential] {
        try database.read { db in
            let rows =
                if let owner {
                    try Row.fetchAll(db, sql: "SELECT * FROM credential WHERE owner = ? ORDER BY owner, serial", arguments: [owner])
                } else {
                    try Row.fetchAll(db, sql: "SELECT * FROM credential ORDER BY owner, serial")
                }
            return rows.map { row in
                StoredCredential(
                    owner: row["owner"], serialNumber: row["serial"], name: row["name"], brand: row["brand"],
                    callbackScheme: row["callback_scheme"], tags: (row["tags"] as String).split(separator: ",").map(String.init),
                    expirationDate: row["expiration_date"], receivedAt: row["received_at"])
            }
        }
    }

    private static func binding(_ owner: String, _ serial: String) -> [UInt8] {
        Array(owner.utf8) + [0] + Array(serial.utf8)
    }

    private static func loadOrCreateKey(at path: String, secrets: SecretRandom) throws -> SymmetricKey {
        if let existing = FileManager.default.contents(atPath: path) {
            guard existing.count == 32 else { throw VaultError("vault key \(path) has \(existing.count) bytes; expected 32") }
            return SymmetricKey(data: existing)
        }
        let key = SymmetricKey(data: secrets.bytes(32))
        let bytes = key.withUnsafeBytes { Data($0) }
        guard FileManager.default.createFile(atPath: path, contents: bytes, attributes: [.posixPermissions: 0o600]) else {
            throw VaultError("cannot create the vault key \(path)")
        }
        return key
    }
}

struct VaultError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A vaulted credential as listed: what is stored in clear, no key material.
public struct StoredCredential: Sendable, Equatable {
    /// The app that sent it (the bus's sender), which alone may read it.
    public let owner: String
    public let serialNumber: String
    public let name: String
    public let brand: String
    public let callbackScheme: String
    public let tags: [String]
    /// Unix seconds.
    public let expirationDate: Int64
    /// Unix seconds, on the Ivanti client's clock.
    public let receivedAt: Int64
}
