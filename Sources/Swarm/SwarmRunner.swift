import Scenario

/// Runs swarm workloads under seeds, each with the fault schedule its seed draws within ``options``. The scenario
/// language, actors and invariants come with `runner`, so the swarm names no system.
public struct SwarmRunner: Sendable {
    public let runner: ScenarioRunner
    public let options: SwarmOptions
    private let forecasts = LinkForecasts()

    public init(runner: ScenarioRunner, options: SwarmOptions) {
        self.runner = runner
        self.options = options
    }

    /// `script` under `seed`, with the faults the seed draws as the run goes.
    public func run(_ script: Script, seed: UInt64) -> ScenarioRunner.Result { result(SwarmPlanEntry(file: script.file, seed: seed), script: script) }

    /// The links `script`'s statements use, learnt once by a run without faults.
    func forecast(_ script: Script) -> LinkForecast { forecasts.forecast(script, runner: runner, options: options) }

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

    /// One planned run: a fresh seed with the faults it draws, or a mutant with its edited faults, under its seed;
    /// with its behaviours and what its links sent, which an exploration steers by.
    public func run(_ entry: SwarmPlanEntry, script: Script) -> SwarmRun {
        let (result, traffic) = tracedResult(entry, script: script)
        return SwarmRun(result, mutation: entry.mutation, behaviours: true, traffic: traffic)
    }

    /// One planned run's whole result (with its trace).
    public func result(_ entry: SwarmPlanEntry, script: Script) -> ScenarioRunner.Result {
        runner.run(script, seed: entry.seed, faults: .drawn(schedule(entry, script: script))) { _ in }
    }

    /// One planned run's whole result, and what each direction of its links sent (the same run as ``result(_:script:)``:
    /// recording draws nothing).
    func tracedResult(_ entry: SwarmPlanEntry, script: Script) -> (ScenarioRunner.Result, LinkTraffic) {
        let recorder = TrafficRecorder(recording: schedule(entry, script: script))
        let result = runner.run(script, seed: entry.seed, faults: .drawn(recorder)) { _ in }
        return (result, LinkTraffic(result, records: recorder.records))
    }

    /// The faults a planned run runs: its seed's, or the mutant's.
    private func schedule(_ entry: SwarmPlanEntry, script: Script) -> any FaultScheduler {
        guard let mutation = entry.mutation else { return SeededFaultSchedule(options: options, seed: entry.seed, forecast: forecast(script)) }
        return MutantSchedule(mutation: mutation, options: options, seed: entry.seed, forecast: forecast(script))
    }

    /// Planned runs in order, calling `each` as results come.
    public func run(_ entries: [SwarmPlanEntry], scripts: [Script], each: (SwarmRun) -> Void = { _ in }) -> [SwarmRun] {
        var runs: [SwarmRun] = []
        for entry in entries {
            guard let script = scripts.first(where: { $0.file == entry.file }) else { continue }
            let run = run(entry, script: script)
            each(run)
            runs.append(run)
        }
        return runs
    }

    /// A run whose faults are given (a schedule file's): the same run as the one that wrote them, digest for digest.
    public func run(_ script: Script, seed: UInt64, faults: [ScheduledFault]) -> ScenarioRunner.Result {
        runner.run(script, seed: seed, faults: .explicit(faults)) { _ in }
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
