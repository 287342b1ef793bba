import Crypto
import Synchronization

/// Credentials that passed the password hash recently, so a client sending Basic credentials with every request
/// pays PBKDF2 once a minute rather than every time (as real servers keep a session or a verified-credential
/// cache).
///
/// Keyed by SHA-256(user ‖ 0 ‖ password ‖ 0 ‖ stored hash): no password is kept, a wrong password never matches,
/// and a password change (a new stored hash) leaves the old entry unreachable. Entries live ``lifetime`` on the
/// node's clock (virtual under simulation); at most ``capacity`` are held, the oldest dropped first, so the
/// order is the same in every run.
final class VerifiedCredentials: Sendable {
    static let lifetime: Duration = .seconds(60)
    static let capacity = 4_096

    private struct State {
        var expiries: [SHA256Digest: Duration] = [:]
        /// Every insertion in order, with the expiry it set: the oldest are dropped first.
        var order: [(key: SHA256Digest, expiry: Duration)] = []
    }

    private let state = Mutex(State())

    static func key(user: String, password: String, storedHash: [UInt8]) -> SHA256Digest {
        var hasher = SHA256()
        hasher.update(data: Array(user.utf8) + [0] + Array(password.utf8) + [0])
        hasher.update(data: storedHash)
        return hasher.finalize()
    }

    /// Whether `key` was verified less than ``lifetime`` before `now` (uptime on the node's clock).
    func contains(_ key: SHA256Digest, now: Duration) -> Bool {
        state.withLock { state in
            guard let expiry = state.expiries[key] else { return false }
            guard now < expiry else {
                state.expiries[key] = nil
                return false
            }
            return true
        }
    }

    /// Remembers `key` as verified at `now`.
    func insert(_ key: SHA256Digest, now: Duration) {
        state.withLock { state in
            let expiry = now + Self.lifetime
            state.expiries[key] = expiry
            state.order.append((key, expiry))
            // From the oldest: drop insertions a later one replaced, entries that expired, and any beyond the capacity.
            var dropped = 0
            while dropped < state.order.count {
                let (oldest, itsExpiry) = state.order[dropped]
                let isCurrent = state.expiries[oldest] == itsExpiry
                if isCurrent && itsExpiry > now && state.expiries.count <= Self.capacity { break }
                if isCurrent { state.expiries[oldest] = nil }
                dropped += 1
            }
            if dropped > 0 { state.order.removeFirst(dropped) }
        }
    }
}
