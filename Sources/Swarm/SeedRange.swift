import Foundation

/// `A..B` or `N`: an inclusive range of seeds, at most ``maximumCount`` of them.
public struct SeedRange: Sendable, Equatable {
    public static let maximumCount: UInt64 = 10_000_000
    public let lower: UInt64
    public let upper: UInt64

    /// - throws: ``SwarmError`` (`.argument`) naming `--seeds` and what was expected.
    public init(_ text: String) throws {
        let parts = text.components(separatedBy: "..")
        guard (1...2).contains(parts.count), let lower = UInt64(parts[0]), let upper = UInt64(parts.last ?? "") else {
            throw SwarmError(.argument, "--seeds \(text): expected A..B (two unsigned integers, A ≤ B) or one seed")
        }
        guard lower <= upper else { throw SwarmError(.argument, "--seeds \(text): the first seed is after the last; expected A ≤ B") }
        guard upper - lower < Self.maximumCount else {
            throw SwarmError(
                .argument, "--seeds \(text): \(upper - lower) seeds and more; expected at most \(Self.maximumCount) (split with --shard)")
        }
        self.lower = lower
        self.upper = upper
    }

    public var seeds: [UInt64] { Array(lower...upper) }

    /// The seeds `shard` runs (every seed without one), and of those the share of `worker`, dealt by position so
    /// workers get equal shares whatever the shard.
    public func seeds(shard: Shard?, worker: Shard? = nil) -> [UInt64] {
        let sharded = seeds.filter { shard?.contains($0) ?? true }
        guard let worker else { return sharded }
        return sharded.enumerated().filter { worker.contains(UInt64($0.offset)) }.map(\.element)
    }
}

/// `I/N`: the part of a set a shard (or a worker) runs, 0-based: the values whose remainder modulo N is I.
public struct Shard: Sendable, Equatable {
    public let index: UInt64
    public let count: UInt64

    /// - parameters:
    ///   - text: `I/N`, with 1 ≤ N ≤ 100000 and I < N.
    ///   - option: the option it came from (`--shard`, `--worker`), named in the error.
    /// - throws: ``SwarmError`` (`.argument`).
    public init(_ text: String, option: String) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = UInt64(parts[0]), let count = UInt64(parts[1]), count >= 1, count <= 100_000 else {
            throw SwarmError(.argument, "\(option) \(text): expected I/N with 1 ≤ N ≤ 100000 (e.g. 0/4)")
        }
        guard index < count else {
            throw SwarmError(.argument, "\(option) \(text): shards are numbered 0…\(count - 1) (0-based, like JOB_COMPLETION_INDEX)")
        }
        self.index = index
        self.count = count
    }

    public func contains(_ value: UInt64) -> Bool { value % count == index }
}
