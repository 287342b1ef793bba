import Scenario

/// Runs swarm workloads under seeds, each with the fault schedule its seed draws within ``options``. The scenario
/// language, actors and invariants come with `runner`, so the swarm names no system.
public struct SwarmRunner: Sendable {
    public let runner: ScenarioRunner
    public let options: SwarmOptions

    public init(runner: ScenarioRunner, options: SwarmOptions) {
        self.runner = runner
        self.options = options
    }

    /// `script` under `seed`, with the faults the seed draws as the run goes.
    public func run(_ script: Script, seed: UInt64) -> ScenarioRunner.Result {
        runner.run(script, seed: seed, faults: .drawn(SeededFaultSchedule(options: options, seed: seed))) { _ in }
    }

    /// Every script under every seed (seed by seed, scripts in order), calling `each` as results come.
    public func run(_ scripts: [Script], seeds: [UInt64], each: (SwarmRun) -> Void) -> [SwarmRun] {
        var runs: [SwarmRun] = []
        for seed in seeds {
            for script in scripts {
                let run = SwarmRun(run(script, seed: seed))
                each(run)
                runs.append(run)
            }
        }
        return runs
    }

    /// The reach points `scripts` can reach (``ScenarioLanguage/reachPoints(in:)``), sorted: those a swarm over them
    /// reports, reached or not.
    public func reachPoints(_ scripts: [Script]) -> [String] {
        Set(scripts.flatMap { runner.language.reachPoints(in: $0) }).sorted()
    }

    /// `run` again with its faults as an explicit schedule: the same run, digest for digest, with its whole trace.
    /// Nil if none of `scripts` is the run's file.
    public func replay(_ run: SwarmRun, scripts: [Script]) -> ScenarioRunner.Result? {
        guard let script = scripts.first(where: { $0.file == run.file }) else { return nil }
        return runner.run(script, seed: run.seed, faults: .explicit(run.faults)) { _ in }
    }
}
