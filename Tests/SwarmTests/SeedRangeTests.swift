import Testing

@testable import Swarm

/// `--seeds A..B`, `--shard I/N` and the workers' shares: what each run covers, and the refusals' words.
@Suite struct SeedRangeTests {
    @Test func aRangeIsInclusiveAndOneSeedIsARange() throws {
        #expect(try SeedRange("3..7").seeds == [3, 4, 5, 6, 7])
        #expect(try SeedRange("42").seeds == [42])
        #expect(try SeedRange("0..0").seeds == [0])
    }

    @Test(arguments: [
        ("9..3", "--seeds 9..3: the first seed is after the last; expected A ≤ B"),
        ("1..x", "--seeds 1..x: expected A..B (two unsigned integers, A ≤ B) or one seed"),
        ("", "expected A..B"),
        ("1..2..3", "expected A..B"),
        ("-1..4", "expected A..B"),
        ("0..10000000", "--seeds 0..10000000: 10000000 seeds and more; expected at most 10000000 (split with --shard)"),
    ])
    func aWrongRangeIsRefusedWithWhatWasExpected(text: String, message: String) throws {
        let error = try #require(refusal { try SeedRange(text) }, "\(text) was accepted")
        #expect(error.kind == .argument)
        #expect(error.description.contains(message), "\(error)")
    }

    @Test func theLargestRangeIsAccepted() throws {
        let range = try SeedRange("5..10000004")
        #expect(range.upper - range.lower + 1 == SeedRange.maximumCount)
    }

    @Test func aShardIsIOfNAndIsRefusedOutOfRange() throws {
        let shard = try Shard("2/5", option: "--shard")
        #expect((shard.index, shard.count) == (2, 5))
        #expect(shard.contains(7) && shard.contains(2) && !shard.contains(5))
        for (text, message) in [
            ("5/5", "--worker 5/5: shards are numbered 0…4"), ("1/0", "expected I/N"), ("a/2", "expected I/N"),
            ("1", "expected I/N"), ("0/100001", "--worker 0/100001: expected I/N with 1 ≤ N ≤ 100000"),
        ] {
            let error = try #require(refusal { try Shard(text, option: "--worker") }, "\(text) was accepted")
            #expect(error.kind == .argument)
            #expect(error.description.contains(message), "\(error)")
        }
    }

    @Test(arguments: [1, 2, 3, 7, 100])
    func everySeedIsInExactlyOneShard(count: Int) throws {
        let range = try SeedRange("5..104")
        var seen: [UInt64: Int] = [:]
        for index in 0..<count {
            let shard = try Shard("\(index)/\(count)", option: "--shard")
            let seeds = range.seeds(shard: shard)
            #expect(seeds.allSatisfy { $0 % UInt64(count) == UInt64(index) })
            for seed in seeds { seen[seed, default: 0] += 1 }
        }
        #expect(seen.keys.sorted() == range.seeds)
        #expect(seen.values.allSatisfy { $0 == 1 })
    }

    @Test func workersShareAShardEvenlyWithoutOverlap() throws {
        let range = try SeedRange("1..50")
        let shard = try Shard("1/3", option: "--shard")
        let whole = range.seeds(shard: shard)
        let shares = try (0..<4).map { range.seeds(shard: shard, worker: try Shard("\($0)/4", option: "--worker")) }
        #expect(shares.flatMap { $0 }.sorted() == whole)
        let sizes = shares.map(\.count)
        #expect((sizes.max() ?? 0) - (sizes.min() ?? 0) <= 1, "\(sizes)")
    }
}

/// The ``SwarmError`` `body` throws; nil if it throws nothing.
func refusal(_ body: () throws -> Any) -> SwarmError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error as? SwarmError
    }
}
