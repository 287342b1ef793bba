import Crypto
import Foundation
import GRDB
import Kernel
import Testing
import Wire

@testable import SCPmsServer

/// Passwords in the registration store: PBKDF2 with its stated work factors, stores from before PBKDF2 upgraded at a
/// login, and the cache of verified credentials.
@Suite struct PasswordStoreTests {
    @Test func inMemoryStoresKeepPBKDF2WithTheirStatedWorkFactor() throws {
        let kernel = Kernel(seed: 1)
        let store = try RegistrationStore(path: nil, node: kernel.node("scpms"))
        #expect(store.hashing.iterations == PasswordHashing.inMemory.iterations)
        #expect(PasswordHashing.onDisk.iterations == 600_000)
        try store.putUser("ada", password: "right", salt: Array(repeating: 7, count: 16))
        let (right, wrong, nobody) = try kernel.run("verify") {
            (
                try await store.verify(user: "ada", password: "right"), try await store.verify(user: "ada", password: "wrong"),
                try await store.verify(user: "bob", password: "right")
            )
        }
        #expect(right && !wrong && !nobody)
        // The derivation itself against RFC 7914 §11: PBKDF2-HMAC-SHA256("passwd", "salt", 1 iteration).
        let known = try PasswordHashing.derive("passwd", salt: Array("salt".utf8), iterations: 1)
        #expect(known.prefix(8) == [0x55, 0xac, 0x04, 0x6e, 0x56, 0xe3, 0x08, 0x9f])
    }

    @Test func aSaltedSHA256RowFromAnOlderStoreIsUpgradedAtTheNextLogin() throws {
        let folder = NSTemporaryDirectory() + "scpms-passwords-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/scpms.sqlite"
        // What a store before PBKDF2 left: the v1 schema, one user with SHA-256(salt ‖ password).
        let salt: [UInt8] = Array(repeating: 3, count: 16)
        do {
            let old = try DatabaseQueue(path: path)
            try old.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                        INSERT INTO grdb_migrations VALUES ('v1');
                        CREATE TABLE application (id TEXT PRIMARY KEY NOT NULL, logUploadEnabled INTEGER NOT NULL);
                        CREATE TABLE user (name TEXT PRIMARY KEY NOT NULL, salt BLOB NOT NULL, passwordHash BLOB NOT NULL);
                        """)
                try db.execute(
                    sql: "INSERT INTO user (name, salt, passwordHash) VALUES (?, ?, ?)",
                    arguments: ["ada", Data(salt), Data(SHA256.hash(data: salt + Array("right".utf8)))])
            }
        }
        let kernel = Kernel(seed: 1)
        let store = try RegistrationStore(path: path, node: kernel.node("scpms"), disk: nil)  // a real file, read behind its back
        #expect(try kernel.run("wrong") { try await store.verify(user: "ada", password: "wrong") } == false)
        #expect(try Self.scheme(path) == ["salted-sha256", "0"], "a failed login changes nothing")
        #expect(try kernel.run("right") { try await store.verify(user: "ada", password: "right") })
        #expect(try Self.scheme(path) == ["pbkdf2-sha256", "600000"])
        // The upgraded hash still lets the user in (from the cache of verified credentials now), the wrong one not.
        #expect(try kernel.run("again") { try await store.verify(user: "ada", password: "right") })
        #expect(try kernel.run("wrong again") { try await store.verify(user: "ada", password: "wrong") } == false)
    }

    @Test func aStoredRowWithZeroIterationsIsAnErrorNotATrap() throws {
        let folder = NSTemporaryDirectory() + "scpms-passwords-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/scpms.sqlite"
        let kernel = Kernel(seed: 1)
        let store = try RegistrationStore(path: path, node: kernel.node("scpms"), disk: nil)  // a real file, read behind its back
        try store.putUser("ada", password: "right", salt: Array(repeating: 7, count: 16))
        // A row someone edited, or a store's bug wrote: PBKDF2 with 0 iterations, which BoringSSL refuses.
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "UPDATE user SET iterations = 0 WHERE name = 'ada'") }
        var failure: (any Error)?
        do { _ = try kernel.run("verify") { try await store.verify(user: "ada", password: "right") } } catch { failure = error }
        #expect("\(failure.map { "\($0)" } ?? "no error")".contains("stored password: a PBKDF2 hash with 0 iterations; expected 1…10000000"))
        #expect(throws: StoredPasswordError.self) { try PasswordHashing.derive("x", salt: [], iterations: -1) }
    }

    static func scheme(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in
            try Row.fetchOne(db, sql: "SELECT scheme, iterations FROM user WHERE name = 'ada'").map { [$0["scheme"], "\($0["iterations"] as Int)"] }
                ?? []
        }
    }

    @Test func verifiedCredentialsExpireAndAreBoundToTheStoredHash() {
        let cache = VerifiedCredentials()
        let key = VerifiedCredentials.key(user: "ada", password: "right", storedHash: [1, 2, 3])
        cache.insert(key, now: .seconds(10))
        #expect(cache.contains(key, now: .seconds(69)))
        #expect(!cache.contains(key, now: .seconds(70)), "60 s after it was verified")
        #expect(!cache.contains(VerifiedCredentials.key(user: "ada", password: "right", storedHash: [9]), now: .seconds(11)))
        #expect(
            VerifiedCredentials.key(user: "ad", password: "aright", storedHash: [])
                != VerifiedCredentials.key(user: "ada", password: "right", storedHash: []))
        // Bounded: the oldest entries go first.
        let keys = (0..<(VerifiedCredentials.capacity + 10)).map { VerifiedCredentials.key(user: "u\($0)", password: "p", storedHash: []) }
        for key in keys { cache.insert(key, now: .seconds(100)) }
        #expect(!cache.contains(keys[0], now: .seconds(100)))
        #expect(cache.contains(keys[keys.count - 1], now: .seconds(100)))
        #expect(keys.filter { cache.contains($0, now: .seconds(100)) }.count == VerifiedCredentials.capacity)
    }
}
