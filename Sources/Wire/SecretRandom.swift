/// Where a node's secrets come from — keys, nonces, bearer tokens, session ids, password salts.
///
/// Under simulation they come from the run seed, so a scenario replays byte for byte. Live they come from
/// the system's cryptographic generator (`getrandom` on Linux): a token drawn from the seeded xoshiro
/// stream could be predicted by anyone who learns or guesses the seed, and xoshiro is not a CSPRNG anyway.
public enum SecretRandom: Sendable {
    /// Draws from a stream derived from the run seed (the simulated wire).
    case seeded(RandomStream)
    /// Draws from the operating system's cryptographically secure generator (the live wire).
    case system

    /// `count` random bytes.
    public func bytes(_ count: Int) -> [UInt8] {
        switch self {
        case .seeded(let stream):
            return stream.bytes(count)
        case .system:
            var generator = SystemRandomNumberGenerator()
            var out = [UInt8]()
            out.reserveCapacity(count + 8)
            while out.count < count {
                withUnsafeBytes(of: generator.next()) { out.append(contentsOf: $0) }
            }
            return Array(out.prefix(count))
        }
    }

    /// A random RFC 4122 version-4 UUID in upper-case hex (session and connection ids).
    public func uuid() -> String { RandomStream.uuid(bytes(16)) }
}
