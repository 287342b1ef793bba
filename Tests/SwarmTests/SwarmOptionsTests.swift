import Testing
import Wire

@testable import Swarm

/// The swarm's knobs: one value, printed with a failing seed, and the bounds every seeded fault is drawn within.
@Suite struct SwarmOptionsTests {
    static let hosts = ["a", "b", "c"]
    static let links = [("a", "b"), ("a", "c"), ("b", "c")]
    static let points = ["x.down", "y.slow"]

    /// The faults a schedule draws before each of `count` statements.
    func draws(
        _ options: SwarmOptions, seed: UInt64, count: Int = 300, links: [(String, String)] = links, points: [String] = points
    ) -> [[(site: String, line: String)]] {
        let schedule = SeededFaultSchedule(options: options, seed: seed)
        return (0..<count).map { _ in schedule.draw(links: links, hosts: Self.hosts, points: points) }
    }

    func lines(_ draws: [[(site: String, line: String)]]) -> [String] { draws.flatMap { $0.map(\.line) } }

    /// Every site on, firing before most statements.
    func always(_ faults: FaultClass) -> SwarmOptions {
        var options = SwarmOptions(faults: faults)
        options.siteEnabledRate = 1
        options.linkRate = 3
        options.clockRate = 3
        options.pointRate = 2
        options.swizzleRate = 1
        return options
    }

    /// Crashes are actor faults, drawn only for the actors that survive one, in the middle of the next step or inside one
    /// of the node's next disk writes, and always back by themselves; other draws are the same with or without a crashable actor (each site its stream).
    @Test func crashesAreDrawnForTheActorsThatSurviveThemAndEndByThemselves() throws {
        var options = always(.all)
        options.crashRate = 0.5
        let schedule = SeededFaultSchedule(options: options, seed: 4)
        let plain = SeededFaultSchedule(options: options, seed: 4)
        var crashes: [String] = []
        for _ in 0..<100 {
            let drawn = schedule.draw(links: Self.links, hosts: Self.hosts, points: Self.points, crashable: ["x", "y"])
            let without = plain.draw(links: Self.links, hosts: Self.hosts, points: Self.points)
            #expect(drawn.filter { !$0.site.hasPrefix("crash ") }.map(\.line) == without.map(\.line))
            crashes += drawn.filter { $0.site.hasPrefix("crash ") }.map(\.line)
        }
        var deferred = 0
        var inWrites = 0
        var actors: Set<String> = []
        for line in crashes {
            let words = line.split(separator: " ").map(String.init)
            if words.first == "later" {
                // Between two steps: `later Dms crash NAME for Ds`.
                deferred += 1
                #expect(words.count == 6 && words[2] == "crash" && words[4] == "for", "\(line)")
                let delay = try #require(Int(words[1].dropLast(2)))
                let downtime = try #require(Int(words[5].dropLast()))
                #expect(options.deferralMilliseconds.contains(delay) && options.crashDowntimeSeconds.contains(downtime), "\(line)")
                actors.insert(words[3])
            } else {
                // Inside a write: `crash NAME at write N for Ds`.
                inWrites += 1
                #expect(words.count == 7 && words[0] == "crash" && words[2] == "at" && words[3] == "write" && words[5] == "for", "\(line)")
                let write = try #require(Int(words[4]))
                let downtime = try #require(Int(words[6].dropLast()))
                #expect(options.crashWrites.contains(write) && options.crashDowntimeSeconds.contains(downtime), "\(line)")
                actors.insert(words[1])
            }
        }
        #expect(actors == ["x", "y"], "\(crashes)")
        #expect(deferred > 0 && inWrites > 0, "both kinds of crash are drawn: \(crashes)")
        let network = SeededFaultSchedule(options: always(.network), seed: 4)
        let networkOnly = (0..<100).flatMap { _ in network.draw(links: Self.links, hosts: Self.hosts, points: Self.points, crashable: ["x"]) }
        #expect(!networkOnly.contains { $0.site.hasPrefix("crash ") }, "a crash is an actor fault")
    }

    @Test func theOptionsAreOneLineNamingEveryKnob() {
        #expect(
            SwarmOptions(faults: .network).description
                == "faults network, sites on 0.50, per statement link 0.30 clock 0.06 point 0.30 swizzle 0.04 crash 0.10, "
                + "deferral 1-3000ms (half), latency uniform 0-50ms+1-500ms normal 1-200ms exponential 1-200ms, partition 1-30s, hold 1-20s, "
                + "reset after 1-300000 bytes, skew ±1-600s, fault points 1-3 times, swizzle 2-4 links every 50-1000ms for 1-10s, "
                + "crashes down 1-20s, at write 1-40 (half)")
    }

    /// The options are the same for every seed of a swarm: the swarm prints them once, not with each seed.
    @Test func aFailingSeedIsPrintedWithTheCommandsThatReplayAndShrinkIt() throws {
        let run = try SwarmResultTests().run("Simulations/w.scn", 12, failure: "w.scn:4: FAILED expect")
        #expect(
            run.failureLine(faults: .actors).split(separator: "\n") == [
                "FAIL Simulations/w.scn seed 12 (1 fault): w.scn:4: FAILED expect",
                "    replay: workbench swarm Simulations/w.scn --seeds 12 --faults actors",
                "    shrink: workbench shrink Simulations/w.scn --seed 12 --faults actors --out w-seed-12.scn",
            ])
    }

    @Test func aSeedDrawsTheSameFaultsEveryTimeAndAnotherSeedOthers() {
        let options = SwarmOptions(faults: .all)
        #expect(lines(draws(options, seed: 7)) == lines(draws(options, seed: 7)))
        #expect(lines(draws(options, seed: 7)) != lines(draws(options, seed: 8)))
        let perSeed = (1...40).map { lines(draws(options, seed: UInt64($0), count: 40)).count }
        #expect(perSeed.contains(0) || perSeed.min()! < perSeed.max()! / 4, "sites switched off make some seeds quiet: \(perSeed)")
        let mean = Double(perSeed.reduce(0, +)) / Double(perSeed.count)
        #expect((2...20).contains(mean), "about 0.2 faults a statement over 40 statements, got \(mean) a seed")
    }

    /// The first faults of seed 1, pinned: the order of the draws is what every seed's schedule means, so a change
    /// here changes every swarm digest and no earlier failing seed replays.
    @Test func theDrawsOfASeedDoNotChange() {
        let first = Array(draws(SwarmOptions(faults: .all), seed: 1, count: 200).flatMap { $0 }.prefix(5))
        #expect(first.map { "\($0.site): \($0.line)" } == Self.seedOne)
    }

    static let seedOne = [
        "point y.slow: later 615ms fault y.slow times 1", "point y.slow: fault y.slow times 1", "link a<->b: later 2376ms reset a <-> b",
        "point y.slow: later 818ms fault y.slow times 2", "point y.slow: fault y.slow times 3",
    ]

    /// Two levels: whether a site is on, and its weight, are decided once per seed by the seed and the site's name
    /// alone; only a site that is on fires, and the heavier a site, the more often.
    @Test func aSiteIsOnOrOffForTheWholeSeed() {
        var options = always(.all)
        options.siteEnabledRate = 0.5
        let sites = Self.links.map { "link \($0.0)<->\($0.1)" } + Self.hosts.map { "clock \($0)" } + ["swizzle"] + Self.points.map { "point \($0)" }
        var patterns = Set<[Bool]>()
        for seed in UInt64(1)...30 {
            let schedule = SeededFaultSchedule(options: options, seed: seed)
            let on = sites.map { schedule.decision(of: $0).enabled }
            #expect(on == sites.map { SeededFaultSchedule(options: options, seed: seed).decision(of: $0).enabled })
            patterns.insert(on)
            let fired = Set(draws(options, seed: seed, count: 40).flatMap { $0.map { $0.site.hasPrefix("swizzle") ? "swizzle" : $0.site } })
            let enabled = Set(zip(sites, on).filter(\.1).map(\.0))
            #expect(fired.isSubset(of: enabled), "seed \(seed): only sites that are on fire")
            #expect(
                enabled.subtracting(fired).allSatisfy { schedule.decision(of: $0).weight < 0.5 }, "seed \(seed): a site on with some weight fires")
        }
        #expect(patterns.count > 10, "the seeds switch different sites on")
        let counts = (UInt64(1)...200).map { seed -> (Double, Int) in
            let schedule = SeededFaultSchedule(options: always(.actors), seed: seed)
            return (
                schedule.decision(of: "point x.down").weight,
                lines(draws(always(.actors), seed: seed, count: 50)).filter { $0.contains("x.down") }.count
            )
        }
        let light = counts.filter { $0.0 < 0.5 }.map(\.1)
        let heavy = counts.filter { $0.0 > 1.5 }.map(\.1)
        #expect(light.reduce(0, +) * heavy.count < heavy.reduce(0, +) * light.count, "a heavier site fires more often")
    }

    /// Swizzle-clogging: a few links clogged one after the other, unclogged in a seed-chosen order, each link its own
    /// `hold … for` line, so dropping one leaves the others' clog and unclog times as they were.
    @Test func aSwizzleClogsInOrderAndUnclogsInAnother() throws {
        var options = SwarmOptions(faults: .network)
        options.siteEnabledRate = 1
        options.linkRate = 0
        options.clockRate = 0
        options.swizzleRate = 1_000
        let shape = try Regex("^(later ([0-9]+)ms )?hold ([abc]) <-> ([abc]) for ([0-9]+)ms$")
        var reordered = false
        for statement in draws(options, seed: 5, count: 50) {
            #expect(!statement.isEmpty && statement.allSatisfy { $0.site == statement[0].site && $0.site.hasPrefix("swizzle ") })
            var clogs: [Int] = []
            var unclogs: [Int] = []
            var links = Set<String>()
            for (_, line) in statement {
                let match = try #require(line.wholeMatch(of: shape), "\(line)")
                let clog = match.output[2].substring.flatMap { Int($0) } ?? 0
                clogs.append(clog)
                unclogs.append(clog + Int(match.output[5].substring!)!)
                links.insert("\(match.output[3].substring!)\(match.output[4].substring!)")
            }
            #expect((2...3).contains(statement.count) && links.count == statement.count, "2-4 distinct links of 3: \(statement.map(\.line))")
            #expect(clogs == clogs.sorted() && Set(clogs).count == clogs.count, "clogged one after the other: \(clogs)")
            #expect(unclogs.min()! > clogs.max()!, "every link is clogged before the first unclogs")
            if unclogs != unclogs.sorted() { reordered = true }
        }
        #expect(reordered, "some swizzle unclogs in another order than it clogged")
        let counts = Set(draws(options, seed: 5, count: 50).map { $0.first!.site })
        #expect(counts.count == 50, "each swizzle has its own site name, so shrinking can drop one whole")
    }

    @Test func everyFaultIsDrawnWithinTheOptions() throws {
        var options = always(.all)
        options.deferralMilliseconds = 5...5
        options.uniformLatencyLowMilliseconds = 4...4
        options.uniformLatencySpreadMilliseconds = 6...6
        options.normalLatencyMeanMilliseconds = 8...8
        options.exponentialLatencyMeanMilliseconds = 9...9
        options.partitionSeconds = 7...7
        options.holdSeconds = 3...3
        options.resetAfterBytes = 11...11
        options.clockSkewSeconds = 13...13
        options.faultPointTimes = 2...2
        options.swizzleSeconds = 2...2
        options.swizzleStaggerMilliseconds = 100...100
        let faults = lines(draws(options, seed: 3, count: 100))
        let allowed = try [
            "(later 5ms )?partition [abc] (->|<->) [abc] for 7s", "(later 5ms )?hold [abc] -> [abc] for 3s",
            "(later 5ms )?reset [abc] <-> [abc]", "reset [abc] -> [abc] after 11 bytes", "clock [abc] skew [+-]13s",
            "(later 5ms )?fault (x\\.down|y\\.slow) times 2",
            "link [abc] <-> [abc] latency (uniform 4ms\\.\\.10ms|normal 8ms [1-4]ms|exponential 9ms)",
            "(later (100|200)ms )?hold [abc] <-> [abc] for (2[0-9]{3})ms",
        ].map { try Regex($0) }
        for fault in faults {
            #expect(allowed.contains { fault.wholeMatch(of: $0) != nil }, "\(fault)")
        }
        for kind in ["partition", "hold", "reset", "after", "clock", "fault", "uniform", "normal", "exponential", "later", "00ms"] {
            #expect(faults.contains { $0.contains(kind) }, "no \(kind) in the draws")
        }
    }

    @Test func theFaultClassesChooseWhatIsDrawn() {
        #expect(lines(draws(always(.network), seed: 2, count: 20)).allSatisfy { !$0.contains("fault ") })
        #expect(lines(draws(always(.network), seed: 2, count: 20)).contains { $0.contains("clock ") })
        #expect(lines(draws(always(.actors), seed: 2, count: 20)).allSatisfy { $0.contains("fault ") })
        #expect(lines(draws(always(.actors), seed: 2, count: 20, points: [])).isEmpty, "no fault point, no actor fault")
        #expect(lines(draws(always(.none), seed: 2, count: 20)).isEmpty)
        var quiet = SwarmOptions(faults: .all)
        quiet.siteEnabledRate = 0
        #expect(lines(draws(quiet, seed: 2)).isEmpty, "no site on, no fault")
    }

    /// A reset's byte count: every power of two from 1 to 300,000 about as often, always inside the range, so a cut
    /// lands on a short answer as often as on a long upload.
    @Test func resetByteCountsComeOctaveByOctave() {
        let random = RandomStream(seed: 5, name: "octaves")
        var perOctave = [Int](repeating: 0, count: 19)
        for _ in 0..<19_000 {
            let count = SeededFaultSchedule.octaveUniform(random, in: 1...300_000)
            #expect((1...300_000).contains(count))
            perOctave[Int.bitWidth - 1 - count.leadingZeroBitCount] += 1
        }
        #expect(perOctave.allSatisfy { (800...1200).contains($0) }, "\(perOctave)")
        #expect(perOctave[0] > 0 && perOctave[18] > 0, "both ends are drawn")
        #expect(SeededFaultSchedule.octaveUniform(random, in: 11...11) == 11)
        #expect((3000...5000).contains(SeededFaultSchedule.octaveUniform(random, in: 3000...5000)))
    }
}
