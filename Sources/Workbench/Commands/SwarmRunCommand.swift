import ArgumentParser
import Foundation
import Reports
import Scenario
import Swarm

/// `workbench swarm run` (the default of `workbench swarm`): every seed of a range, or of a shard of it, over the workloads.
struct SwarmRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run scenario files under seeds A..B with seed-chosen faults (the default of `workbench swarm`).",
        discussion: """
            For every seed, a fault schedule is drawn from the seed as the scenario runs: before each statement, with \
            probability \(SwarmOptions(faults: .all).injectionRate), one fault among latency distributions, partitions and holds that end by \
            themselves, resets (now or after N bytes), clock skews (network) and the fault points actors declared (actors), half \
            of them deferred up to 3 s into the next step. Expectations may name sets of outcomes (`expect X in a b`); \
            invariants must always hold. One line per failing seed, with the command that replays it and the one that shrinks \
            it; the summary line comes last. Exit status 1 if any seed failed.
            """)

    @Argument(help: "Scenario files (.scn): swarm workloads, whose expectations accept every outcome a fault may cause.")
    var files: [String]

    @Option(help: "Seeds to run, A..B (inclusive; at most 10000000 seeds), or a single seed.")
    var seeds: String

    @Option(help: "Which faults the seed chooses: none, network, actors or all.")
    var faults: FaultClass = .all

    @Option(help: "Parallel worker processes (1…64; default: the number of cores, at most 64).")
    var jobs: Int = min(64, ProcessInfo.processInfo.activeProcessorCount)

    @Option(
        help: "Run only shard I of N (0-based, I/N): the seeds whose value modulo N is I. Shards of one range never overlap and together cover it.")
    var shard: String?

    @OptionGroup var junit: JUnitOption

    @Option(help: "Write the results as JSON (for `workbench swarm merge`).")
    var json: String?

    @OptionGroup var report: ReportOption

    @Option(help: .hidden)
    var worker: String?

    func validate() throws {
        try commandLine {
            _ = try SeedRange(seeds)
            guard (1...64).contains(jobs) else { throw ValidationError("--jobs \(jobs): expected 1…64") }
            if let shard { _ = try Shard(shard, option: "--shard") }
            if let worker { _ = try Shard(worker, option: "--worker") }
        }
    }

    func run() throws {
        let swarm = SwarmRunner(runner: SwarmScripts.runner, options: SwarmOptions(faults: faults))
        let scripts = try SwarmScripts.load(files)
        let started = ContinuousClock.now
        let selected = try commandLine {
            try SeedRange(seeds).seeds(
                shard: shard.map { try Shard($0, option: "--shard") }, worker: worker.map { try Shard($0, option: "--worker") })
        }
        let runs: [SwarmRun]
        if jobs > 1, worker == nil, selected.count > 1 {
            runs = try SwarmWorkers(files: files, seeds: seeds, faults: faults, shard: shard).run(count: min(jobs, selected.count))
        } else {
            runs = swarm.run(scripts, seeds: selected) { run in
                if worker == nil, !run.passed { print(run.failureLine(options: swarm.options)) }
            }
        }
        let wall = ContinuousClock.now - started
        let result = SwarmResult(
            files: files, seeds: seeds, faults: faults, shard: shard, runs: runs,
            wallSeconds: Double(wall.nanosecondsValue) / 1e9)
        if let json { try result.jsonText.write(toFile: json, atomically: true, encoding: .utf8) }
        guard worker == nil else { return }
        if jobs > 1, selected.count > 1 { for run in result.failed { print(run.failureLine(options: swarm.options)) } }
        if let file = junit.file { try result.junitXML.write(toFile: file, atomically: true, encoding: .utf8) }
        if let file = report.file {
            // The first failing seeds again, with their explicit schedules: the same runs, now with their traces.
            let replays = result.failed.prefix(20).compactMap { swarm.replay($0, scripts: scripts) }
            try TimelineReport(results: replays, systemEvents: Catalog.timelineEvents).html.write(toFile: file, atomically: true, encoding: .utf8)
        }
        print(result.summary)
        if !result.failed.isEmpty { throw ExitStatus.checkFailed }
    }
}
