import Foundation
import Kernel
import Scenario
import Testing

@testable import Swarm

/// `--explore` on the bare scenario language: the budget, the mutants' parents and edits, replay from a mutant's
/// faults, and the same runs whoever runs the batches.
@Suite struct SwarmExplorationTests {
    static let runner = SwarmRunnerTests.runner
    /// The runner tests' workload, with reach points a fault changes (a connection over a partitioned or held link
    /// times out instead of being refused).
    static let workload =
        SwarmRunnerTests.workload + """
            connect ab2 to b:1 from a timeout 2s
            sometimes ${ab2.status} == connected as ab-connected
            sometimes "${ab2.error}" matches ".*refused.*" as ab-refused
            sometimes "${ab2.error}" matches ".*(timed out|timeout).*" as ab-timed-out
            connect ac2 to c:1 from a timeout 2s
            sometimes "${ac2.error}" matches ".*(timed out|timeout).*" as ac-timed-out
            advance 1s
            """ + "\n"

    func script(_ text: String = workload, file: String = "w.scn") throws -> Script {
        let (script, errors) = Self.runner.language.parse(file: file, text: text)
        try #require(errors.isEmpty, "\(errors.map(\.message))")
        return script
    }

    var swarm: SwarmRunner { SwarmRunner(runner: Self.runner, options: SwarmOptions(faults: .network)) }

    func explore(_ scripts: [Script], seeds: [UInt64], share: Double = 0.5, batch: ([SwarmPlanEntry]) -> [SwarmRun]) throws -> [SwarmRun] {
        var exploration = try SwarmExploration(scripts: scripts, seeds: seeds, swarm: swarm, share: share)
        return exploration.explore(batch)
    }

    @Test func theRunsAreTheSeedRangesSplitBetweenFreshSeedsAndMutants() throws {
        let scripts = [try script()]
        let runs = try explore(scripts, seeds: Array(101...140)) { swarm.run($0, scripts: scripts) }
        #expect(runs.count == 40, "as many runs as seeds")
        let fresh = runs.filter { $0.mutant == nil }
        let mutants = runs.compactMap(\.mutant)
        #expect(fresh.map(\.seed) == Array(101...120), "the range's first seeds, in order")
        #expect(mutants.map(\.number) == Array(1...20))
        // A mutant is made from a run before it and runs under that run's seed.
        for (index, run) in runs.enumerated() {
            guard let mutant = run.mutant else { continue }
            let parent = try #require(runs[..<index].first { $0.name == mutant.parent }, "\(mutant.parent) ran before \(run.name)")
            #expect(parent.seed == run.seed)
            #expect(
                mutant.target.map { parent.reached.contains($0) || parent.behaviours?[$0] != nil } != false,
                "the parent reached the point or showed the behaviour it was chosen for")
            #expect((1...3).contains(mutant.edits.count))
        }
        #expect(runs.contains { run in run.mutant != nil && runs.first { $0.name == run.mutant?.parent }?.faults != run.faults })
        // A third of the runs for mutants: 13 of 40.
        let third = try explore(scripts, seeds: Array(101...140), share: 1.0 / 3) { swarm.run($0, scripts: scripts) }
        #expect(third.count == 40 && third.filter { $0.mutant != nil }.count == 13)
    }

    @Test func aMutantReplaysDigestForDigestFromItsFaults() throws {
        let scripts = [try script(), try script(file: "v.scn")]
        let runs = try explore(scripts, seeds: Array(1...30)) { swarm.run($0, scripts: scripts) }
        #expect(runs.count == 60)
        let mutants = runs.filter { $0.mutant != nil }
        #expect(mutants.count == 30 && Set(mutants.map(\.file)) == ["w.scn", "v.scn"])
        for run in mutants {
            #expect(swarm.replay(run, scripts: scripts)?.digest == run.digest, "\(run.file) \(run.name)")
        }
    }

    /// Workers may run a batch's entries in any split, as long as the runs come back in the plan's order: the same runs
    /// as one process.
    @Test func theRunsAreTheSameWhoeverRunsTheBatches() throws {
        let scripts = [try script()]
        let alone = try explore(scripts, seeds: Array(1...50)) { swarm.run($0, scripts: scripts) }
        let dealt = try explore(scripts, seeds: Array(1...50)) { batch in
            let parts = (0..<3).map { worker in
                SwarmRunner(runner: Self.runner, options: SwarmOptions(faults: .network)).run(
                    batch.enumerated().filter { $0.offset % 3 == worker }.map(\.element), scripts: scripts)
            }
            return batch.indices.map { parts[$0 % 3][$0 / 3] }
        }
        #expect(alone == dealt)
    }

    /// A mutant made for a behaviour its parent first showed during statement S edits first a fault the
    /// parent ran before S (its likeliest cause, the latest most likely): dropped, shifted, drawn again from its site,
    /// or with one field drawn again; its second edit adds a fault at most 3 statements before S; a fault drawn again
    /// replays like any other.
    @Test func aMutantAimsAtTheFaultsThatRanBeforeItsTarget() throws {
        let scripts = [try script()]
        let runs = try explore(scripts, seeds: Array(1...80)) { swarm.run($0, scripts: scripts) }
        var aimed = 0
        var addedNear = 0
        var latest = 0
        for run in runs {
            guard let mutant = run.mutant, let target = mutant.target, let parent = runs.first(where: { $0.name == mutant.parent }),
                let at = parent.behaviours?[target]
            else { continue }
            let before = parent.faults.filter { $0.before <= at }
            guard let last = before.last else { continue }
            aimed += 1
            let first = try #require(mutant.edits.first)
            #expect(first.contains("before the target"), "\(mutant.edits)")
            #expect(before.contains { first.contains("'\($0.line)'") }, "\(first) edits one of \(before.map(\.line))")
            if first.contains("'\(last.line)'") { latest += 1 }
            // The second edit adds a fault within 3 statements: a path that needs two faults at one moment.
            if mutant.edits.count > 1 {
                let second = mutant.edits[1]
                #expect(second.hasSuffix(", near the target"), "\(mutant.edits)")
                let window = scripts[0].statements[max(0, at - 3)...min(at, scripts[0].statements.count - 1)].map(\.line)
                // A fault drawn there, or a cut of a message sent there (armed before the statement that sent it).
                #expect(
                    window.contains {
                        second.hasPrefix("add a fault drawn before line \($0),")
                            || second.hasPrefix("cut '") && second.contains(" before line \($0): message ")
                    },
                    "\(second) within \(window)")
                addedNear += 1
            }
        }
        #expect(aimed > 0, "some mutants were aimed")
        // Odds of 1/2 for the latest, or more with fewer candidates.
        #expect(latest * 3 >= aimed, "the latest fault before the target is edited most often: \(latest) of \(aimed)")
        #expect(addedNear > 0, "some aimed mutants added a fault near their target")
        let redrawn = runs.filter { $0.mutant?.edits.contains { $0.hasPrefix("draw '") } == true }
        let tweaked = runs.filter { $0.mutant?.edits.contains { $0.hasPrefix("draw the ") } == true }
        #expect(!redrawn.isEmpty && !tweaked.isEmpty, "some edits drew a fault again, some one of its fields")
        for run in redrawn + tweaked { #expect(swarm.replay(run, scripts: scripts)?.digest == run.digest, "\(run.name)") }
    }

    /// The reach points and the behaviours are two budgets: mutants take turns (odd ones for a reach point, even ones for
    /// a behaviour), so the few reach points get half the mutants however many behaviours there are.
    @Test func theReachPointsAndTheBehavioursEachGetHalfTheMutants() throws {
        let scripts = [try script()]
        let runs = try explore(scripts, seeds: Array(1...80)) { swarm.run($0, scripts: scripts) }
        let points = Set(runs.flatMap(\.reached))
        let behaviours = Set(runs.flatMap { $0.behaviours.map { Array($0.keys) } ?? [] })
        #expect(behaviours.count > points.count, "more behaviours than reach points: one pool would starve the points")
        var spent: [SwarmExploration.Budget: Int] = [:]
        for run in runs {
            guard let mutant = run.mutant else { continue }
            let target = try #require(mutant.target, "every fresh run shows something: \(run.name)")
            let budget: SwarmExploration.Budget = points.contains(target) ? .reach : .behaviour
            #expect(budget == SwarmExploration.budget(of: mutant.number), "mutant \(mutant.number) for \(target)")
            spent[budget, default: 0] += 1
        }
        #expect(spent[.reach] == 20 && spent[.behaviour] == 20, "\(spent)")
    }

    @Test func aRunStoppedEarlyEndsTheExploration() throws {
        let scripts = [try script()]
        var asked = 0
        let runs = try explore(scripts, seeds: Array(1...40)) { batch in
            asked += 1
            return asked == 3 ? Array(swarm.run(batch, scripts: scripts).prefix(2)) : swarm.run(batch, scripts: scripts)
        }
        #expect(asked == 3)
        #expect(runs.count == 10 + 20 + 2, "10 fresh, then 10 fresh and 10 mutants, then 2 of the third batch")
    }

    @Test func aShareOutsideZeroToOneIsRefused() throws {
        for share in [0, 1, 1.5, -0.2] {
            #expect(throws: SwarmError.self) { try SwarmExploration(scripts: [try script()], seeds: [1, 2], swarm: swarm, share: share) }
        }
        let error = try #require(throws: SwarmError.self) { try SwarmExploration.share(2) }
        #expect(error.description.contains("--explore-share 2.0: expected a share of the runs between 0 and 1"))
    }

    /// With `--explore` the reach table counts runs (mutants share their parents' seeds), and says so; every report
    /// tells fresh runs from mutants; an explored result is not merged.
    @Test func anExploredResultCountsRunsAndSaysHowTheyWereSpent() throws {
        let scripts = [try script()]
        let runs = try explore(scripts, seeds: Array(1...20)) { swarm.run($0, scripts: scripts) }
        let result = SwarmResult(
            files: ["w.scn"], seeds: "1..20", faults: .network, shard: nil, runs: runs, wallSeconds: 1, reachPoints: swarm.reachPoints(scripts),
            explore: SwarmResult.Explore(share: 0.5, freshRuns: 10, mutantRuns: 10))
        let connected = runs.filter { $0.reached.contains("ab-refused") }.count
        #expect(result.reach.first { $0.point == "ab-refused" }?.seeds == connected)
        #expect(
            result.reachTable.hasPrefix(
                "reach: runs (of 20: 10 of fresh seeds, 10 of mutants) that reached each point (--explore counts runs, not seeds)"))
        #expect(result.summary.contains("20 runs (--explore: 10 of fresh seeds, 10 of mutants) of 1 file"), "\(result.summary)")
        let json = result.jsonText
        #expect(json.contains("\"fresh_runs\" : 10") && json.contains("\"mutant_runs\" : 10") && json.contains("\"reach_counts\" : \"runs\""))
        #expect(json.contains("\"mutant\" : {"))
        let decoded = try SwarmResult.decode(json, source: "x.json")
        #expect(decoded.runs == runs && decoded.explore == result.explore)
        #expect(result.junitXML.contains("name=\"seed \(runs[10].seed) mutant 1\"") && result.junitXML.contains("name=\"mutant-runs\" value=\"10\""))
        #expect(throws: SwarmError.self) { try SwarmResult.merge([result]) }
    }
}
