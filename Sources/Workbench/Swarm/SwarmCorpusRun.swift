import Scenario
import Swarm

/// The first part of a swarm with `--corpus`: every seed the corpus kept for these workloads and fault class, run
/// again before the new seeds, each reported on its own line.
enum SwarmCorpusRun {
    /// Runs the kept seeds (in the corpus's order) and prints a line for each.
    static func run(_ corpus: SwarmCorpus, swarm: SwarmRunner, scripts: [Script]) throws -> [SwarmCorpus.Rerun] {
        try commandLine { try corpus.rerun(scripts, swarm: swarm) { print($0.line) } }
    }

    /// `, corpus: N seeds (S still failing, D failing differently, P now passing)`, or nothing without a corpus.
    static func summary(_ reruns: [SwarmCorpus.Rerun]) -> String {
        guard !reruns.isEmpty else { return "" }
        let still = reruns.filter { !$0.run.passed && $0.stillFailing }.count
        let passing = reruns.filter(\.run.passed).count
        return ", corpus: \(reruns.count) seed\(reruns.count == 1 ? "" : "s") (\(still) still failing, "
            + "\(reruns.count - still - passing) failing differently, \(passing) now passing)"
    }
}
