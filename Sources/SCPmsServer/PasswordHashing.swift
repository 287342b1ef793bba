import Crypto
import Foundation
import _CryptoExtras

/// How SCPms turns a password into what it stores: PBKDF2-HMAC-SHA256 (swift-crypto's `_CryptoExtras`), a 16-byte
/// random salt per user, a 32-byte derived key.
///
/// - ``onDisk``: 600,000 iterations, OWASP's 2023 figure for PBKDF2-HMAC-SHA256 — about a quarter of a second of
///   one core per hash on the machines measured (see the README), which is why verified credentials are cached
///   (``VerifiedCredentials``) and the hash runs off the event loops.
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

    func hash(_ password: String, salt: [UInt8]) -> StoredPassword {
        StoredPassword(scheme: .pbkdf2SHA256, iterations: iterations, salt: salt, hash: Self.derive(password, salt: salt, iterations: iterations))
    }

    /// PBKDF2-HMAC-SHA256; `unsafeUncheckedRounds` because ``inMemory`` is below the 210,000 the checked call demands.
    static func derive(_ password: String, salt: [UInt8], iterations: Int) -> [UInt8] {
        // Only fails for a zero output length or a rounds count BoringSSL cannot take; both are constants here.
        let key = try! KDF.Insecure.PBKDF2.deriveKey(
            from: Array(password.utf8), salt: salt, using: .sha256, outputByteCount: keyBytes, unsafeUncheckedRounds: iterations)
        return key.withUnsafeBytes { Array($0) }
    }
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
    func matches(_ password: String) -> Bool {
        let candidate: [UInt8] =
            switch scheme {
            case .pbkdf2SHA256: PasswordHashing.derive(password, salt: salt, iterations: iterations)
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
