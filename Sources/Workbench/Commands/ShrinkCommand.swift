import ArgumentParser
import Foundation
import Swarm

/// `workbench shrink`: turns a failing swarm seed into the smallest plain scenario that still fails the same way
/// (``Shrinker``: the seed's faults made explicit, then cut down by delta debugging to those the failure needs).
struct ShrinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shrink",
        abstract: "Cut a failing swarm seed's faults down to those needed; write a plain .scn that reproduces the failure.",
        discussion: """
            "The same failure" is the same broken invariant, else the same failed expectation (file and line), else a step \
            error on the same line. Prints each run's verdict count and the faults kept; exit status 1 if the seed does not \
            fail at all.
            """)

    @Argument(help: "The swarm workload (.scn) that failed.")
    var file: String

    @OptionGroup var seed: RequiredSeedOption

    @Option(help: "The faults the swarm chose from: none, network, actors or all (as in the swarm's replay line).")
    var faults: FaultClass = .all

    @Option(help: "Write the shrunk scenario here (default: print it).")
    var out: String?

    func run() throws {
        let seed = self.seed.value
        guard let script = try SwarmScripts.load([file]).first else { return }
        let options = SwarmOptions(faults: faults)
        let shrinker = Shrinker(swarm: SwarmRunner(runner: SwarmScripts.runner, options: options))
        guard let failure = shrinker.failure(of: script, seed: seed) else {
            print("seed \(seed) of \(file) does not fail with --faults \(faults.rawValue): nothing to shrink")
            throw ExitStatus.checkFailed
        }
        let total = failure.faults.count
        print("seed \(seed) fails: \(failure.signature.text) with \(total) fault\(total == 1 ? "" : "s")")
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
                # Shrunk by `workbench shrink \(file) --seed \(seed) --faults \(faults.rawValue)`: \(shrunk.kept.count) of the seed's \
                \(total) faults are needed (\(shrunk.runs) runs).
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
