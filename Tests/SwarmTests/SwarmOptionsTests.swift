import Testing

@testable import Swarm

/// The swarm's knobs: one value, printed with a failing seed, and the bounds every seeded fault is drawn within.
@Suite struct SwarmOptionsTests {
    static let hosts = ["a", "b", "c"]
    static let points = ["x.down", "y.slow"]

    /// The faults a schedule draws before `count` statements (nil where it injected none).
    func draws(_ options: SwarmOptions, seed: UInt64, count: Int = 300, points: [String] = points) -> [String?] {
        let schedule = SeededFaultSchedule(options: options, seed: seed)
        return (0..<count).map { _ in schedule.injects() ? schedule.fault(hosts: Self.hosts, points: points) : nil }
    }

    @Test func theOptionsAreOneLineNamingEveryKnob() {
        #expect(
            SwarmOptions(faults: .network).description == "faults network, injection 0.30, deferral 1-3000ms (half), "
                + "latency uniform 0-50ms+1-500ms normal 1-200ms exponential 1-200ms, partition 1-30s, hold 1-20s, "
                + "reset after 1-300000 bytes, skew ±1-600s, fault points 1-3 times")
    }

    @Test func aFailingSeedIsPrintedWithItsOptions() throws {
        let run = try SwarmResultTests().run("Simulations/w.scn", 12, failure: "w.scn:4: FAILED expect")
        let options = SwarmOptions(faults: .actors)
        #expect(
            run.failureLine(options: options).split(separator: "\n") == [
                "FAIL Simulations/w.scn seed 12 (1 fault): w.scn:4: FAILED expect",
                "    replay: workbench swarm Simulations/w.scn --seeds 12 --faults actors",
                "    shrink: workbench shrink Simulations/w.scn --seed 12 --faults actors --out w-seed-12.scn",
                "    swarm options: \(options)",
            ])
    }

    @Test func aSeedDrawsTheSameFaultsEveryTimeAndAnotherSeedOthers() {
        let options = SwarmOptions(faults: .all)
        #expect(draws(options, seed: 7) == draws(options, seed: 7))
        #expect(draws(options, seed: 7) != draws(options, seed: 8))
        let injected = draws(options, seed: 7).compactMap { $0 }.count
        #expect((60...120).contains(injected), "about 0.3 of 300 statements, got \(injected)")
    }

    /// The first faults of seed 1, pinned: the order of the draws is what every seed's schedule means, so a change
    /// here changes every swarm digest and no earlier failing seed replays.
    @Test func theDrawsOfASeedDoNotChange() {
        #expect(Array(draws(SwarmOptions(faults: .all), seed: 1, count: 40).compactMap { $0 }.prefix(5)) == Self.seedOne)
    }

    static let seedOne = [
        "later 1943ms fault y.slow times 2", "link a <-> c latency exponential 108ms", "reset a <-> b", "clock c skew -152s",
        "later 2156ms reset a <-> b",
    ]

    @Test func everyFaultIsDrawnWithinTheOptions() throws {
        var options = SwarmOptions(faults: .all)
        options.injectionRate = 1
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
        let faults = draws(options, seed: 3, count: 600).map { $0 ?? "none" }
        let allowed = try [
            "(later 5ms )?partition [abc] (->|<->) [abc] for 7s", "(later 5ms )?hold [abc] -> [abc] for 3s",
            "(later 5ms )?reset [abc] <-> [abc]", "reset [abc] -> [abc] after 11 bytes", "clock [abc] skew [+-]13s",
            "(later 5ms )?fault (x\\.down|y\\.slow) times 2",
            "link [abc] <-> [abc] latency (uniform 4ms\\.\\.10ms|normal 8ms [1-4]ms|exponential 9ms)",
        ].map { try Regex($0) }
        for fault in faults {
            #expect(allowed.contains { fault.wholeMatch(of: $0) != nil }, "\(fault)")
        }
        for kind in ["partition", "hold", "reset", "after", "clock", "fault", "uniform", "normal", "exponential", "later"] {
            #expect(faults.contains { $0.contains(kind) }, "no \(kind) in 600 draws")
        }
    }

    @Test func theFaultClassesChooseWhatIsDrawn() {
        var options = SwarmOptions(faults: .network)
        options.injectionRate = 1
        #expect(draws(options, seed: 2).allSatisfy { $0 != nil && !$0!.contains("fault ") })
        options.faults = .actors
        #expect(draws(options, seed: 2).allSatisfy { $0?.contains("fault ") == true })
        #expect(draws(options, seed: 2, points: []).allSatisfy { $0 == nil }, "no fault point, no actor fault")
        options.faults = .none
        #expect(draws(options, seed: 2).allSatisfy { $0 == nil })
        options = SwarmOptions(faults: .all)
        options.injectionRate = 0
        #expect(draws(options, seed: 2).allSatisfy { $0 == nil })
    }
}
