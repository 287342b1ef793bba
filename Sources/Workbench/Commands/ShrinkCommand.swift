import ArgumentParser
import Foundation
import Swarm
import SystemKit

/// `workbench shrink`: turns a failing swarm seed into the smallest plain scenario that still fails the same way
/// (``Shrinker``: the seed's faults made explicit, then cut down by delta debugging to those the failure needs).
struct ShrinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shrink",
        abstract: "Cut a failing swarm seed's faults down to those needed; write a plain .scn that reproduces the failure.",
        discussion: """
            "The same failure" is the same broken invariant, else the same failed expectation (file and line), else a step \
            error on the same line. Prints each run's verdict count and the faults kept; exit status 1 if the seed does not \
            fail at all. --schedule F.json shrinks a run whose faults were written out instead of a seed's (a failing \
            mutant of `workbench swarm --explore`): its seed and fault class come from the file.
            """)

    @Argument(help: "The swarm workload (.scn) that failed.")
    var file: String

    @Option(name: .customLong("seed"), help: SeedOption.help)
    var seed: UInt64?

    @Option(help: "The faults the swarm chose from: none, network, actors or all (as in the swarm's replay line; default all).")
    var faults: FaultClass?

    @Option(help: "The seed's mix, as the swarm's replay line names it: fixed (the default) or drawn.")
    var mix: SwarmMix.Mode?

    @Option(help: "Shrink the run whose faults this file holds (a failing mutant's, written by `workbench swarm --explore`).")
    var schedule: String?

    func validate() throws {
        guard (seed == nil) != (schedule == nil) else {
            throw ValidationError("expected --seed N (a failing swarm seed) or --schedule F.json (a failing mutant's faults), not both")
        }
        if schedule != nil, faults != nil { throw ValidationError("--faults: a --schedule file names its own fault class") }
        if schedule != nil, mix != nil { throw ValidationError("--mix: a --schedule file holds its faults themselves") }
    }

    @Option(help: "Write the shrunk scenario here (default: print it).")
    var out: String?

    func run() throws {
        guard let script = try SwarmScripts.load([file]).first else { return }
        let written = try schedule.map { path in try commandLine { try SwarmSchedule.read(path, for: file) } }
        let seed = written?.seed ?? self.seed ?? 1
        let faults = written?.faultClass ?? self.faults ?? .all
        let options = SwarmOptions(faults: faults, mix: mix ?? .fixed)
        let shrinker = Shrinker(swarm: SwarmRunner(runner: SwarmScripts.runner, options: options))
        guard let failure = written.map({ shrinker.failure(of: script, seed: seed, faults: $0.faults) }) ?? shrinker.failure(of: script, seed: seed)
        else {
            print(
                "\(schedule.map { "the run of \($0)" } ?? "seed \(seed)") of \(file) does not fail with --faults \(faults.rawValue): nothing to shrink"
            )
            throw ExitStatus.checkFailed
        }
        let total = failure.faults.count
        print(
            "\(written?.mutant.map { "seed \(seed) mutant \($0.number) (\(schedule ?? ""))" } ?? "seed \(seed)") fails: \(failure.signature.text) "
                + "with \(total) fault\(total == 1 ? "" : "s")")
        print("swarm options: \(options)")
        let shrunk = shrinker.minimise(failure, script: script, seed: seed)
        print("kept \(shrunk.kept.count) of \(total) faults after \(shrunk.runs) runs:")
        for fault in shrunk.kept {
            print("  before line \(script.statements[fault.before].line): \(fault.line)" + (fault.site.map { "   (site \($0))" } ?? ""))
        }

        let text = try String(contentsOfFile: file, encoding: .utf8)
        let scenario = Shrinker.scenario(
            text, script: script, faults: shrunk.kept,
            header: """
                # Shrunk by `workbench shrink \(file) \(schedule.map { "--schedule \($0)" } ?? "--seed \(seed) --faults \(faults.rawValue)")`: \
                \(shrunk.kept.count) of the run's \(total) faults are needed (\(shrunk.runs) runs).
                # Fails with: \(failure.signature.text)
                # Reproduce: workbench run \(out ?? "FILE.scn") --seed \(seed)
                """)
        let reproduction = try commandLine {
            try shrinker.reproduce(scenario, file: out ?? "shrunk.scn", seed: seed, signature: failure.signature)
        }
        let other = reproduction.otherSeed
        print(
            "the shrunk scenario fails the same way under `workbench run --seed \(seed)`"
                + (reproduction.failsUnderOtherSeed
                    ? " (and under seed \(other): it no longer needs the seed)" : " (not under seed \(other): keep --seed \(seed))"))
        if let out {
            try scenario.write(toFile: out, atomically: true, encoding: .utf8)
            print("wrote \(out)")
        } else {
            print(scenario, terminator: "")
        }
    }
}
