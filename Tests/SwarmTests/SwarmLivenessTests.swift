import Kernel
import Scenario
import Testing

@testable import Swarm

/// `after heal` in a swarm: no fault drawn from there on, a seed that stays broken fails and shrinks like any other;
/// and a swizzle shrinks link by link, its other clogs and unclogs left where they were.
@Suite struct SwarmLivenessTests {
    /// A client that fails while a partition is on; `sticky`, it stays failed for good once it saw one, as a client
    /// with a recovery bug would.
    static let probe = Directive("probe", usage: "probe [sticky] as NAME", summary: "a client that partitions can break") {
        args throws(ScenarioError) in
        let sticky = args.accept("sticky")
        try args.expect("as")
        let label = try args.name("a result name")
        try args.end()
        args.binds(label, fields: ["status", "error"])
        return Run { context in
            let events = context.kernel.trace.all
            let healed = events.lastIndex { $0.event == "after-heal" || $0.event == "heal" } ?? -1
            let broken = events.indices.contains { events[$0].event == "partition" && (sticky || $0 > healed) }
            context.publish(label, broken ? ["status": "error", "error": "stuck since a partition"] : ["status": "ok", "error": ""])
            return nil
        }
    }
    static let runner = ScenarioRunner(language: ScenarioLanguage(extra: [probe]), catalog: [])

    static func workload(sticky: Bool) -> String {
        SwarmRunnerTests.workload + """
            probe as before
            expect ${before.status} in ok error
            after heal within 1m
            probe \(sticky ? "sticky " : "")as after
            expect ${after.status} == ok
            advance 5s

            """
    }

    func script(_ text: String) throws -> Script {
        let (script, errors) = Self.runner.language.parse(file: "live.scn", text: text)
        try #require(errors.isEmpty, "\(errors.map(\.message))")
        return script
    }

    func swarm() -> SwarmRunner { SwarmRunner(runner: Self.runner, options: SwarmOptions(faults: .network)) }

    @Test func nothingIsDrawnAfterHealAndARecoveringClientPassesEverySeed() throws {
        let script = try script(Self.workload(sticky: false))
        let heal = try #require(script.statements.firstIndex { $0.directive == "after" })
        let runs = swarm().run([script], seeds: Array(1...40)) { _ in }
        #expect(runs.allSatisfy { $0.passed }, "\(runs.filter { !$0.passed }.map { $0.failure ?? "" })")
        #expect(runs.contains { $0.faults.contains { $0.line.contains("partition") } }, "some seeds partitioned a link")
        #expect(runs.allSatisfy { $0.faults.allSatisfy { $0.before < heal } })
    }

    @Test func aSeedStuckAfterHealFailsAndShrinksToThePartitionThatBrokeIt() throws {
        let script = try script(Self.workload(sticky: true))
        let shrinker = Shrinker(swarm: swarm())
        let (seed, failure) = try #require(
            (UInt64(1)...80).lazy.compactMap { seed in
                shrinker.failure(of: script, seed: seed).flatMap { $0.faults.count >= 3 ? (seed, $0) : nil }
            }.first)
        #expect(failure.signature.text.hasPrefix("line 23: expect ${after.status} == ok"), "\(failure.signature.text)")
        let shrunk = shrinker.minimise(failure, script: script, seed: seed)
        #expect(shrunk.kept.count == 1 && shrunk.kept[0].line.contains("partition"), "\(shrunk.kept)")
        let text = Shrinker.scenario(Self.workload(sticky: true), script: script, faults: shrunk.kept, header: "# shrunk")
        #expect(try shrinker.reproduce(text, file: "shrunk.scn", seed: seed, signature: failure.signature).failsUnderOtherSeed)
    }

    /// A swizzle over three links, of which only a hold on a <-> c breaks the invariant: whole sites go first (the
    /// clock and the partition), then the swizzle's other links; the hold kept is the line the swizzle drew.
    @Test func aSwizzleShrinksToTheOneLinkThatMattersLeavingItsTimesAlone() throws {
        let noHoldOnAC = Invariant.trace("test.no-hold-a-c", promise: "a <-> c is never held", initial: 0) { _, event in
            event.event == "hold" && Set([event["from"] ?? "", event["to"] ?? ""]) == ["a", "c"] ? "a <-> c held" : nil
        }
        let runner = ScenarioRunner(language: ScenarioLanguage(), catalog: [], invariants: [noHoldOnAC])
        let (script, errors) = runner.language.parse(file: "w.scn", text: SwarmRunnerTests.workload)
        try #require(errors.isEmpty)
        let faults = [
            ScheduledFault(before: 6, line: "clock a skew +5s", site: "clock a"),
            ScheduledFault(before: 7, line: "hold a <-> b for 3200ms", site: "swizzle 1"),
            ScheduledFault(before: 7, line: "later 300ms hold b <-> c for 3500ms", site: "swizzle 1"),
            ScheduledFault(before: 7, line: "later 600ms hold a <-> c for 2600ms", site: "swizzle 1"),
            ScheduledFault(before: 8, line: "partition a -> b for 2s", site: "link a<->b"),
        ]
        let swarm = SwarmRunner(runner: runner, options: SwarmOptions(faults: .network))
        let signature = try #require(FailureSignature(runner.run(script, seed: 1, faults: .explicit(faults)) { _ in }))
        let shrunk = Shrinker(swarm: swarm).minimise(Shrinker.Failure(signature: signature, faults: faults), script: script, seed: 1)
        #expect(shrunk.kept == [faults[3]])
        #expect(shrunk.runs <= 10, "sites first: the clock and the partition go in one or two runs, \(shrunk.runs) in all")
    }
}
