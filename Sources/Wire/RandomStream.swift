import Synchronization

/// A seeded, reproducible random stream (xoshiro256**), one per node, derived from the run seed.
///
/// Streams are derived by name rather than handed out in order, so adding a node to a scenario does not
/// change the draws of the others. The class is shared by reference so every user of a node draws from the
/// same sequence; the lock makes it safe live, and is uncontended under simulation.
public final class RandomStream: RandomNumberGenerator, Sendable {
    private let state: Mutex<(UInt64, UInt64, UInt64, UInt64)>

    /// A stream for `name`, derived from `seed`.
    public init(seed: UInt64, name: String) {
        var mix = SplitMix64(seed ^ Self.fnv1a(name))
        state = Mutex((mix.next(), mix.next(), mix.next(), mix.next()))
    }

    /// The next 64 random bits.
    public func next() -> UInt64 {
        state.withLock { s in
            let result = rotl(s.1 &* 5, 7) &* 9
            let t = s.1 << 17
            s.2 ^= s.0
            s.3 ^= s.1
            s.1 ^= s.2
            s.0 ^= s.3
            s.2 ^= t
            s.3 = rotl(s.3, 45)
            return result
        }
    }

    /// A uniformly random integer in `range` (no modulo bias).
    public func int(in range: ClosedRange<Int>) -> Int {
        var generator = self
        return Int.random(in: range, using: &generator)
    }

    /// A uniformly random double in [0, 1).
    public func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// `count` random bytes.
    public func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(count + 8)
        while out.count < count {
            withUnsafeBytes(of: next().littleEndian) { out.append(contentsOf: $0) }
        }
        return Array(out.prefix(count))
    }

    /// A random RFC 4122 version-4 UUID string in upper case hex, e.g. for connection ids.
    public func uuid() -> String { Self.uuid(bytes(16)) }

    /// The version-4 UUID text of 16 random bytes.
    static func uuid(_ random: [UInt8]) -> String {
        var b = random
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        let hex = b.map { byte -> String in
            let s = String(byte, radix: 16, uppercase: true)
            return s.count == 1 ? "0" + s : s
        }
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(separator: "-")
    }

    /// A name hash that is stable across processes (Swift's `Hasher` is seeded per process).
    public static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}

@inline(__always) private func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

/// Expands one 64-bit seed into well-mixed state words.
struct SplitMix64 {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
