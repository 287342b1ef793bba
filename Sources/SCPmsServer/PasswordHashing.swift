import Crypto
import Foundation
import _CryptoExtras

/// How SCPms turns a password into what it stores: PBKDF2-HMAC-SHA256 (swift-crypto's `_CryptoExtras`), a 16-byte
/// random salt per user, a 32-byte derived key.
///
/// - ``onDisk``: 600,000 iterations, OWASP's 2023 figure for PBKDF2-HMAC-SHA256 — hundreds of milliseconds of one
///   core per hash, which is why verified credentials are cached (``VerifiedCredentials``) and the hash runs off
///   the event loops.
/// - ``inMemory``: 1,000 iterations, for stores that live and die with one simulation or test (`database` not
///   set): their passwords are the scenario's own, and 600,000 iterations for every scenario's users would take
///   the swarm's whole budget. The README says so.
///
/// The iterations are stored with each hash, so a store reads what an earlier setting wrote; a hash with fewer
/// iterations than the store's setting (or a pre-PBKDF2 salted SHA-256) is replaced at the user's next
/// successful login.
struct PasswordHashing: Sendable {
    let iterations: Int

    static let onDisk = PasswordHashing(iterations: 600_000)
    static let inMemory = PasswordHashing(iterations: 1_000)

    static let saltBytes = 16
    static let keyBytes = 32
    /// The iteration counts a stored hash may name: a row with 0 (or a count no store writes) is refused, not hashed.
    static let iterationRange = 1...10_000_000

    func hash(_ password: String, salt: [UInt8]) throws(StoredPasswordError) -> StoredPassword {
        StoredPassword(scheme: .pbkdf2SHA256, iterations: iterations, salt: salt, hash: try Self.derive(password, salt: salt, iterations: iterations))
    }

    /// PBKDF2-HMAC-SHA256; `unsafeUncheckedRounds` because ``inMemory`` is below the 210,000 the checked call demands.
    /// - throws: ``StoredPasswordError`` when `iterations` (read from the database) is outside ``iterationRange``, or
    ///   BoringSSL refuses the derivation.
    static func derive(_ password: String, salt: [UInt8], iterations: Int) throws(StoredPasswordError) -> [UInt8] {
        guard iterationRange.contains(iterations) else {
            throw StoredPasswordError(
                "a PBKDF2 hash with \(iterations) iterations; expected \(iterationRange.lowerBound)…\(iterationRange.upperBound)")
        }
        do {
            let key = try KDF.Insecure.PBKDF2.deriveKey(
                from: Array(password.utf8), salt: salt, using: .sha256, outputByteCount: keyBytes, unsafeUncheckedRounds: iterations)
            return key.withUnsafeBytes { Array($0) }
        } catch {
            throw StoredPasswordError("PBKDF2 with \(iterations) iterations failed: \(error)")
        }
    }
}

/// A stored password that cannot be checked (a row with 0 iterations): the login fails with this error instead of
/// trapping the server.
struct StoredPasswordError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = "stored password: " + description }
}

/// A user's stored password: scheme, work factor, salt and hash, as the `user` table keeps them.
struct StoredPassword: Sendable, Equatable {
    enum Scheme: String, Sendable {
        /// PBKDF2-HMAC-SHA256 with ``StoredPassword/iterations``.
        case pbkdf2SHA256 = "pbkdf2-sha256"
        /// SHA-256 of salt ‖ password: what stores before PBKDF2 wrote (iterations 0). Still accepted once, to
        /// let the user in and replace it.
        case saltedSHA256 = "salted-sha256"
    }

    let scheme: Scheme
    let iterations: Int
    let salt: [UInt8]
    let hash: [UInt8]

    /// Whether `password` is the one this was made from; compares in constant time. CPU-heavy for PBKDF2: off the loop.
    func matches(_ password: String) throws(StoredPasswordError) -> Bool {
        let candidate: [UInt8] =
            switch scheme {
            case .pbkdf2SHA256: try PasswordHashing.derive(password, salt: salt, iterations: iterations)
            case .saltedSHA256: Array(SHA256.hash(data: salt + Array(password.utf8)))
            }
        guard candidate.count == hash.count else { return false }
        return zip(candidate, hash).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Whether `hashing` would store this password differently (an old scheme, fewer iterations).
    func isWeaker(than hashing: PasswordHashing) -> Bool {
        scheme != .pbkdf2SHA256 || iterations < hashing.iterations
    }
}
