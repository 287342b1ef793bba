import Foundation
import Testing
import WorkbenchKit

// @testable: the swarm reads its replay choice from the environment, which these tests pass in rather than set for
// the whole process (other swarms run beside them).
@testable import WorkbenchTesting

/// Drawn changes: a plan per seed from a stream of its own, applied before the body, shrunk when the seed fails,
/// replayed with `WORKBENCH_FAULTS`.
@Suite struct SwarmFaultTests {
    /// Six clock skews, one a node: harmless to a world, and each leaves a trace event that says it happened.
    static let faults = SwarmFaults(
        ["a", "b", "c", "d", "e", "f"].enumerated().map { .clockSkew(node: $1, by: .seconds($0 + 1)) }, count: 2...5,
        within: .zero ... .seconds(10))

    /// Makes the nodes, lets the window pass, and fails when b and d were both skewed.
    static func body(_ world: Simulation) throws {
        for node in ["a", "b", "c", "d", "e", "f"] { _ = world.node(node) }
        try world.advance(by: .seconds(11))
        let skewed = Set(world.events.filter { $0.name == "clock-skew" }.compactMap { $0["node"] })
        world.check(!skewed.isSuperset(of: ["b", "d"]), "b and d both skewed")
    }

    /// The positions in `plan` of the skews of b and d.
    static func bAndD(in plan: [DrawnChange]) -> [Int] {
        plan.indices.filter {
            guard case .clockSkew(let node, _) = plan[$0].change else { return false }
            return node == "b" || node == "d"
        }
    }

    /// The seeds of 1…30 whose plan has both b and d.
    static let failingSeeds = (UInt64(1)...30).filter { bAndD(in: faults.draw(seed: $0)).count == 2 }

    @Test func aSeedDrawsTheSamePlanEveryTime() {
        for seed in UInt64(1)...30 { #expect(Self.faults.draw(seed: seed) == Self.faults.draw(seed: seed)) }
        for plan in (UInt64(1)...30).map(Self.faults.draw) {
            #expect((2...5).contains(plan.count))
            #expect(plan.allSatisfy { (.zero ... .seconds(10)).contains($0.delay) })
            #expect(plan.map(\.delay) == plan.map(\.delay).sorted())
            #expect(Set(plan.map(\.change.line)).count == plan.count, "each candidate at most once: \(plan)")
        }
    }

    @Test func seedsDrawDifferentPlans() {
        let plans = (UInt64(1)...30).map { Self.faults.draw(seed: $0).map(\.description) }
        #expect(Set(plans).count == 30)
        #expect(Set(plans.map(\.count)) == [2, 3, 4, 5])
    }

    /// Every seed whose plan has both b and d fails, once, and shrinks to exactly those two, whatever else it drew.
    @Test func aFailingSeedShrinksToTheTwoChangesThatMatter() async {
        // The test tests shrinking only if some failing seeds drew more than the two.
        #expect(Self.failingSeeds.count >= 3)
        #expect(Self.failingSeeds.contains { Self.faults.draw(seed: $0).count > 2 })
        let reports = ReportedIssues()
        var outcome: SwarmOutcome?
        await withKnownIssue {
            outcome = await swarm(seeds: 1...30, faults: Self.faults, jobs: 2, environment: [:], sourceLocation: #_sourceLocation, Self.body)
        } matching: { issue in
            reports.append(issue.comments.map(\.rawValue).joined(separator: "\n"))
            return true
        }
        #expect(outcome?.failingSeeds == Self.failingSeeds)
        #expect(reports.all.count == Self.failingSeeds.count)
        for seed in Self.failingSeeds {
            let plan = Self.faults.draw(seed: seed)
            let both = Self.bAndD(in: plan)
            let report = reports.all.first { $0.hasPrefix("seed \(seed) failed (1 failure):") } ?? "no report of seed \(seed)"
            #expect(report.contains("b and d both skewed"), "\(report)")
            #expect(report.contains("drawn changes: [0] \(plan[0]);"), "\(report)")
            if plan.count > 2 { #expect(report.contains("to [\(both[0])] [\(both[1])], which fail with:"), "\(report)") }
            #expect(
                report.contains(
                    "replay: WORKBENCH_SEED=\(seed) WORKBENCH_FAULTS=\(both[0]),\(both[1]) "
                        + "swift test --filter 'WorkbenchKitTests.SwarmFaultTests/aFailingSeedShrinksToTheTwoChangesThatMatter'"),
                "\(report)")
        }
    }

    /// `WORKBENCH_SEED` and `WORKBENCH_FAULTS` run one seed with exactly the changes they name: the two that fail it, and
    /// then one of them, which does not.
    @Test func theReplayRunsTheSeedWithExactlyTheChangesItNames() async throws {
        let seed = try #require(Self.failingSeeds.first { Self.faults.draw(seed: $0).count > 2 })
        let plan = Self.faults.draw(seed: seed)
        let both = Self.bAndD(in: plan)
        let changes = ReportedIssues()
        let body: @Sendable (Simulation) throws -> Void = { world in
            try Self.body(world)
            changes.append(world.changes.joined(separator: "; "))
        }
        let reports = ReportedIssues()
        var outcome: SwarmOutcome?
        let chosen = ["WORKBENCH_SEED": "\(seed)", "WORKBENCH_FAULTS": "\(both[0]),\(both[1])"]
        await withKnownIssue {
            outcome = await swarm(seeds: 1...30, faults: Self.faults, jobs: 2, environment: chosen, sourceLocation: #_sourceLocation, body)
        } matching: { issue in
            reports.append(issue.comments.map(\.rawValue).joined(separator: "\n"))
            return true
        }
        #expect(outcome == SwarmOutcome(seedsRun: 1, failingSeeds: [seed]))
        #expect(changes.all == [both.map { "later " + plan[$0].description.dropFirst("at ".count) }.joined(separator: "; ")])
        #expect(reports.all.count == 1)
        #expect(reports.all.first?.contains("kept by WORKBENCH_FAULTS: [\(both[0])] [\(both[1])]") == true)
        #expect(reports.all.first?.contains("replay: WORKBENCH_SEED=\(seed) WORKBENCH_FAULTS=\(both[0]),\(both[1]) swift test") == true)

        let alone = ["WORKBENCH_SEED": "\(seed)", "WORKBENCH_FAULTS": "\(both[0])"]
        let passing = await swarm(seeds: 1...30, faults: Self.faults, jobs: 2, environment: alone, sourceLocation: #_sourceLocation, Self.body)
        #expect(passing == SwarmOutcome(seedsRun: 1, failingSeeds: []))
    }

    /// A value that chooses no seed or no drawn change is one issue that says what is wrong, and nothing runs.
    @Test(arguments: [
        (["WORKBENCH_SEED": "7", "WORKBENCH_FAULTS": "0,x"], "WORKBENCH_FAULTS=0,x: 'x' is no position; expected the positions of drawn changes"),
        (["WORKBENCH_SEED": "7", "WORKBENCH_FAULTS": "-1"], "WORKBENCH_FAULTS=-1: '-1' is no position;"),
        (["WORKBENCH_SEED": "7", "WORKBENCH_FAULTS": ""], "WORKBENCH_FAULTS=: '' is no position;"),
        (["WORKBENCH_SEED": "7", "WORKBENCH_FAULTS": "0,0"], "WORKBENCH_FAULTS=0,0: position 0 twice;"),
        (["WORKBENCH_SEED": "7", "WORKBENCH_FAULTS": "1,5"], "WORKBENCH_FAULTS=1,5: there is no position 5: seed 7 draws"),
        (["WORKBENCH_FAULTS": "0"], "WORKBENCH_FAULTS=0: names drawn changes of one seed; expected WORKBENCH_SEED=N with it"),
        (["WORKBENCH_SEED": "seven"], "WORKBENCH_SEED=seven: expected a seed, a whole number from 0 to 18446744073709551615"),
    ])
    func aMalformedChoiceIsRefused(environment: [String: String], message: String) async {
        // Seed 7 draws fewer than six changes, so position 5 is beyond its plan.
        #expect(Self.faults.draw(seed: 7).count <= 5)
        let reports = ReportedIssues()
        let ran = ReportedIssues()
        var outcome: SwarmOutcome?
        await withKnownIssue {
            outcome = await swarm(seeds: 1...3, faults: Self.faults, jobs: 1, environment: environment, sourceLocation: #_sourceLocation) { world in
                ran.append("\(world.seed)")
            }
        } matching: { issue in
            reports.append(issue.comments.map(\.rawValue).joined(separator: "\n"))
            return true
        }
        #expect(reports.all.count == 1)
        #expect(reports.all.first?.hasPrefix(message) == true, "\(reports.all)")
        #expect(ran.all.isEmpty)
        #expect(outcome == SwarmOutcome(seedsRun: 0, failingSeeds: []))
    }

    /// A swarm that draws no changes has none to choose.
    @Test func aSwarmWithoutFaultsRefusesWorkbenchFaults() async {
        let reports = ReportedIssues()
        await withKnownIssue {
            _ = await swarm(
                seeds: 1...3, faults: nil, jobs: 1, environment: ["WORKBENCH_SEED": "2", "WORKBENCH_FAULTS": "0"], sourceLocation: #_sourceLocation
            ) { _ in }
        } matching: { issue in
            reports.append(issue.comments.map(\.rawValue).joined(separator: "\n"))
            return true
        }
        #expect(reports.all == ["WORKBENCH_FAULTS=0: there is no position 0: seed 2 draws no change"])
    }

    /// A count or a window below zero is the test's mistake: one issue that says so, no seed run, no trap.
    @Test(arguments: [
        (SwarmFaults([.fault("mig.busy", .once)], count: -1...1, within: .zero ... .seconds(1)), "a count of -1...1"),
        (SwarmFaults([.fault("mig.busy", .once)], count: 0...1, within: .seconds(-1) ... .seconds(1)), "a window of -1s…1s"),
    ])
    func aPlanBelowZeroIsRefused(faults: SwarmFaults, message: String) async {
        let reports = ReportedIssues()
        let ran = ReportedIssues()  // the seeds the body ran
        await withKnownIssue {
            _ = await swarm(seeds: 1...3, faults: faults, jobs: 1, environment: [:], sourceLocation: #_sourceLocation) { world in
                ran.append("\(world.seed)")
            }
        } matching: { issue in
            reports.append(issue.comments.map(\.rawValue).joined(separator: "\n"))
            return true
        }
        #expect(reports.all.count == 1 && reports.all.first?.contains(message) == true, "\(reports.all)")
        #expect(ran.all.isEmpty)
        #expect(faults.draw(seed: 1).allSatisfy { $0.delay >= .zero })
    }

    /// A plan may name nodes the body makes later; a node the world never had is a failure of the world, with the
    /// nearest real name. A fault point no actor kind has is refused at once.
    @Test func aDrawnChangeOnANodeTheWorldNeverHadFails() throws {
        let world = Simulation(seed: 1)
        try world.apply([DrawnChange(change: .partition("phone", "ecko", for: .seconds(1)), delay: .seconds(2))])
        try world.start("echo")
        _ = world.node("phone")
        try world.advance(by: .seconds(5))
        world.finish()
        #expect(
            world.failures.map(\.message) == [
                "'later 2s partition phone <-> ecko for 1s' acts on the node 'ecko', which the world never had (did you mean 'echo'?); "
                    + "its nodes: echo, phone"
            ])
        #expect(throws: SimulationError.self) { try world.apply([DrawnChange(change: .fault("echo.nothing", .on), delay: .zero)]) }
    }
}
