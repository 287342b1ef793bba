import Testing
import Wire

@testable import Swarm

/// `--mix drawn`: each seed draws its own mix of the swarm's knobs (swarm testing), the same for the same seed, and its
/// faults keep within it. The fixed mix (the default) changes no seed's faults: SwarmOptionsTests pins seed 1's.
@Suite struct SwarmMixTests {
    static let hosts = ["a", "b", "c"]
    static let links = [("a", "b"), ("a", "c"), ("b", "c")]
    static let points = ["x.down", "x.slow", "y.down", "z.lost"]

    /// Every site on and firing often, so that what a mix allows shows in a few hundred statements.
    static func busy(_ mix: SwarmMix.Mode) -> SwarmOptions {
        var options = SwarmOptions(faults: .all, mix: mix)
        options.linkRate = 3
        options.clockRate = 3
        options.pointRate = 3
        options.swizzleRate = 0.5
        return options
    }

    static func lines(_ options: SwarmOptions, seed: UInt64, count: Int = 300) -> [(site: String, line: String)] {
        let schedule = SeededFaultSchedule(options: options, seed: seed)
        return (0..<count).flatMap { _ in schedule.draw(links: links, hosts: hosts, points: points) }
    }

    @Test func aSeedDrawsTheSameMixEveryTimeAndTheMixesVary() {
        #expect(SwarmMix.drawn(seed: 9) == SwarmMix.drawn(seed: 9))
        let mixes = (1...60).map { SwarmMix.drawn(seed: UInt64($0)) }
        #expect(Set(mixes.map(\.description)).count == 60, "every seed its own mix")
        #expect(Set(mixes.map(\.latency)).count == SwarmMix.Latency.allCases.count)
        #expect(Set(mixes.map(\.partitions)).count == SwarmMix.Partitions.allCases.count)
        #expect(Set(mixes.map(\.clock)).count == SwarmMix.Clock.allCases.count)
        #expect(mixes.contains { $0.pointScale == 0 } && mixes.contains { $0.pointScale == 4 })
        #expect(mixes.contains { $0.systemRate < 1 } && mixes.contains { $0.systemRate == 1 })
        #expect(mixes.allSatisfy { (0.25...1).contains($0.siteEnabledRate) })
        // The fixed mix is the options as they are, for every seed.
        let options = SwarmOptions(faults: .all)
        #expect(SwarmMix.of(seed: 3, mode: .fixed, options: options).applied(to: options) == options)
        #expect(SwarmMix.of(seed: 3, mode: .fixed, options: options).description == "fixed")
    }

    /// A seed's faults keep within its mix: a class scaled to 0 never fires, points of a system that is off never do,
    /// links slow down with the mix's one latency family, partitions cut the one way it says, a drifting clock always
    /// moves the same way, a clock's step goes no farther than its reach (minutes: 10 min; hours: 2 h) and sometimes
    /// beyond 10 min when it may.
    @Test func aSeedsFaultsKeepWithinItsMix() {
        let seeds = (1...80).map(UInt64.init)
        var checked = (classOff: 0, systemOff: 0, latency: 0, partitions: 0, drift: 0, hours: 0)
        for seed in seeds {
            let mix = SwarmMix.drawn(seed: seed)
            let drawn = Self.lines(Self.busy(.drawn), seed: seed)
            if mix.pointScale == 0 {
                #expect(!drawn.contains { $0.site.hasPrefix("point ") }, "seed \(seed): \(mix)")
                checked.classOff += 1
            }
            if mix.clockScale == 0 { #expect(!drawn.contains { $0.site.hasPrefix("clock ") }, "seed \(seed): \(mix)") }
            for system in ["x", "y", "z"] where !mix.systemIsOn(system) {
                #expect(!drawn.contains { $0.site.hasPrefix("point \(system).") }, "seed \(seed): \(system) is off")
                checked.systemOff += 1
            }
            let latencies = drawn.map(\.line).filter { $0.contains(" latency ") }
            if mix.latency != .any, !latencies.isEmpty {
                #expect(latencies.allSatisfy { $0.contains(" latency \(mix.latency.rawValue) ") }, "seed \(seed): \(latencies.prefix(3))")
                checked.latency += 1
            }
            let partitions = drawn.map(\.line).filter { $0.contains("partition ") }
            if mix.partitions != .any, !partitions.isEmpty {
                let arrow = mix.partitions == .oneWay ? " -> " : " <-> "
                #expect(partitions.allSatisfy { $0.contains(arrow) }, "seed \(seed): \(partitions.prefix(3))")
                checked.partitions += 1
            }
            let skews = drawn.map(\.line).filter { $0.hasPrefix("clock ") }
            if mix.clock == .step {
                let seconds = skews.compactMap { Int($0.split(separator: " ").last?.dropFirst().dropLast() ?? "") }
                let bound = mix.clockReach == .hours ? 7200 : 600
                #expect(seconds.allSatisfy { $0 <= bound }, "seed \(seed): \(mix): \(skews.prefix(3))")
                if mix.clockReach == .hours, seconds.contains(where: { $0 > 600 }) { checked.hours += 1 }
            }
            if mix.clock == .drift, !skews.isEmpty {
                for host in Self.hosts {
                    let signs = Set(skews.filter { $0.hasPrefix("clock \(host) ") }.map { $0.contains("skew +") })
                    #expect(signs.count <= 1, "seed \(seed): \(host) drifts both ways")
                }
                checked.drift += 1
            }
        }
        #expect(
            checked.classOff > 0 && checked.systemOff > 0 && checked.latency > 0 && checked.partitions > 0 && checked.drift > 0 && checked.hours > 0,
            "\(checked)")
    }

    /// A failing seed of a drawn mix is printed with its mix, and its replay and shrink commands draw it again.
    @Test func aFailingSeedOfADrawnMixIsPrintedWithItsMix() throws {
        let run = try SwarmResultTests().run("Simulations/w.scn", 12, failure: "w.scn:4: FAILED expect")
        #expect(
            run.failureLine(faults: .all, mix: .drawn).split(separator: "\n") == [
                "FAIL Simulations/w.scn seed 12 (1 fault): w.scn:4: FAILED expect", "    mix: \(SwarmMix.drawn(seed: 12))",
                "    replay: workbench swarm Simulations/w.scn --seeds 12 --faults all --mix drawn",
                "    shrink: workbench shrink Simulations/w.scn --seed 12 --faults all --mix drawn --out w-seed-12.scn",
            ])
        #expect(SwarmOptions(faults: .all, mix: .drawn).description.hasSuffix(", each seed drawing its mix of these (--mix drawn)"))
    }
}
