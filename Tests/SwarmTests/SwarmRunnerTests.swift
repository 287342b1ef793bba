import Kernel
import Scenario
import Testing

@testable import Swarm

/// Seeds run, failures told apart, and a failing seed shrunk, on the bare scenario language: three hosts, no actor,
/// and one invariant a partition breaks.
@Suite struct SwarmRunnerTests {
    static let noPartition = Invariant.trace("test.no-partition", promise: "no path is ever partitioned", initial: 0) { _, event in
        guard event.event == "partition", let from = event["from"], let to = event["to"] else { return nil }
        return "\(from) -> \(to) partitioned"
    }
    static let runner = ScenarioRunner(language: ScenarioLanguage(), catalog: [], invariants: [noPartition])
    /// Three hosts, and a (refused) connection on each link so the links are fault sites.
    static let workload = """
        address a 10.0.0.1
        address b 10.0.0.2
        address c 10.0.0.3
        connect ab to b:1 from a
        connect ac to c:1 from a
        connect bc to c:1 from b
        """ + String(repeating: "\nadvance 1s", count: 12) + "\n"

    func script(_ text: String = workload, file: String = "w.scn") throws -> Script {
        let (script, errors) = Self.runner.language.parse(file: file, text: text)
        try #require(errors.isEmpty, "\(errors.map(\.message))")
        return script
    }

    func swarm(_ faults: FaultClass) -> SwarmRunner { SwarmRunner(runner: Self.runner, options: SwarmOptions(faults: faults)) }

    @Test func everyScriptRunsUnderEverySeedAndReplaysDigestForDigest() throws {
        let scripts = [try script(), try script(file: "v.scn")]
        var reported: [SwarmRun] = []
        let runs = swarm(.network).run(scripts, seeds: [4, 5, 6]) { reported.append($0) }
        #expect(runs == reported)
        #expect(runs.map(\.seed) == [4, 4, 5, 5, 6, 6] && runs.map(\.file) == ["w.scn", "v.scn", "w.scn", "v.scn", "w.scn", "v.scn"])
        #expect(runs.contains { !$0.faults.isEmpty }, "the seeds drew faults")
        for run in runs {
            #expect(swarm(.network).replay(run, scripts: scripts)?.digest == run.digest)
        }
        #expect(runs == swarm(.network).run(scripts, seeds: [4, 5, 6]) { _ in })
        #expect(swarm(.none).run(scripts, seeds: [4, 5, 6]) { _ in }.allSatisfy { $0.faults.isEmpty && $0.passed })
    }

    /// The first connection on a link can be cut: the link is a site from the statement that first connects on it
    /// (learnt from a run without faults), not only once a connection has used it.
    @Test func aLinkIsAFaultSiteFromTheStatementThatFirstConnectsOnIt() throws {
        let script = try script()
        let networkSwarm = swarm(.network)
        #expect(networkSwarm.forecast(script).firstUse == ["a<->b": 3, "a<->c": 4, "b<->c": 5])
        #expect(swarm(.actors).forecast(script).firstUse.isEmpty, "no link faults, no run to learn them")
        let forecast = networkSwarm.forecast(script)
        #expect(forecast.links(before: 2, used: []).isEmpty)
        #expect(forecast.links(before: 4, used: [("b", "c")]).map { "\($0.0)\($0.1)" } == ["ab", "ac", "bc"])
        // Before the connection on a<->b (statement 3), some seeds fault a<->b; without the forecast none could.
        func firstLinkFaults(_ run: (UInt64) -> ScenarioRunner.Result) -> Int {
            (UInt64(1)...100).filter { seed in
                run(seed).faults.contains { $0.before == 3 && $0.site == "link a<->b" }
            }.count
        }
        #expect(firstLinkFaults { networkSwarm.run(script, seed: $0) } > 5)
        let blind = { (seed: UInt64) in
            Self.runner.run(script, seed: seed, faults: .drawn(SeededFaultSchedule(options: networkSwarm.options, seed: seed))) { _ in }
        }
        #expect(firstLinkFaults(blind) == 0)
    }

    @Test func aFailureIsTheSameWhereverItsLineMoved() throws {
        let failing = "let x = 1\nexpect ${x} == 2\n"
        let first = try #require(FailureSignature(Self.runner.run(try script(failing), seed: 1) { _ in }))
        let again = try #require(FailureSignature(Self.runner.run(try script(failing), seed: 9) { _ in }))
        let moved = try #require(FailureSignature(Self.runner.run(try script("# a comment\n" + failing), seed: 1) { _ in }))
        let other = try #require(FailureSignature(Self.runner.run(try script("let x = 1\nexpect ${x} == 3\n"), seed: 1) { _ in }))
        #expect(first == again && first.sameFailure(as: again))
        #expect(first != moved && first.sameFailure(as: moved), "another line, the same expectation")
        #expect(first != other && !first.sameFailure(as: other))
        #expect(first.text == "line 2: expect ${x} == 2 (expected ${x} == \"2\", actual \"1\")", "\(first.text)")
        #expect(FailureSignature(Self.runner.run(try script("let x = 1\nexpect ${x} == 1\n"), seed: 1) { _ in }) == nil)
    }

    @Test func aBrokenInvariantOutranksAFailedExpectation() throws {
        let result = Self.runner.run(
            try script("link a <-> b latency 1ms\nexpect 1 == 2\n"), seed: 1,
            faults: .explicit([ScheduledFault(before: 1, line: "partition a -> b for 1s")])
        ) { _ in }
        let signature = try #require(FailureSignature(result))
        #expect(signature.text == "invariant test.no-partition broken (a -> b partitioned)")
    }

    @Test func aFailingSeedShrinksToTheOneFaultItNeedsAndReproducesWithoutTheSeed() throws {
        let script = try script()
        let shrinker = Shrinker(swarm: swarm(.network))
        let (seed, failure) = try #require(
            (UInt64(1)...60).lazy.compactMap { seed in
                shrinker.failure(of: script, seed: seed).flatMap { $0.faults.count >= 3 ? (seed, $0) : nil }
            }.first)
        #expect(failure.signature.text.hasPrefix("invariant test.no-partition broken"))
        let shrunk = shrinker.minimise(failure, script: script, seed: seed)
        #expect(shrunk.kept.count == 1 && shrunk.kept[0].line.contains("partition"), "\(shrunk.kept)")
        #expect(shrunk.runs > 1)
        let text = Shrinker.scenario(Self.workload, script: script, faults: shrunk.kept, header: "# shrunk")
        #expect(text.split(separator: "\n").filter { $0.contains("# fault kept by shrink (site link ") }.count == 1)
        let reproduction = try shrinker.reproduce(text, file: "shrunk.scn", seed: seed, signature: failure.signature)
        #expect(reproduction.failsUnderOtherSeed, "an explicit partition needs no seed")

        let unshrunk = Shrinker.scenario(Self.workload, script: script, faults: [], header: "# no faults")
        let error = try #require(refusal { try shrinker.reproduce(unshrunk, file: "shrunk.scn", seed: seed, signature: failure.signature) })
        #expect(error.kind == .shrinking && error.description.hasSuffix("it passes"), "\(error)")
        #expect(
            refusal { try shrinker.reproduce("partition a\n", file: "shrunk.scn", seed: seed, signature: failure.signature) }?
                .description.hasPrefix("the shrunk scenario does not parse") == true)
    }
}
