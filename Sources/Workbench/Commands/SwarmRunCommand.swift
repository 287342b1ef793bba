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
            For every seed, a fault schedule is drawn from the seed as the scenario runs, from fault sites in two levels: \
            each link that carried a connection, each node's clock, each fault point actors declared and the swizzle is \
            switched on for the seed or not (probability \(SwarmOptions(faults: .all).siteEnabledRate)), and a site that is on fires \
            before each statement with its own probability, drawn for the seed. A link fires a latency distribution, a \
            partition or hold that ends by itself, or a reset (now or after N bytes); a clock a skew; a point its fault; the \
            swizzle clogs a few links one after the other and unclogs them in another order. Half are deferred up to 3 s into \
            the next step. From an `after heal` line on, every fault is ended and none is drawn: what follows must succeed. \
            Expectations may name sets of outcomes (`expect X in a b`); invariants must always hold. One line per failing \
            seed, with the command that replays it and the one that shrinks it; then the reach table (per reach point, the \
            seeds that reached it, and the points never reached); the summary line comes last. Exit status 1 if any seed \
            failed, or with --require-reach if a point was never reached.
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

    @OptionGroup var reach: RequireReachOption

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
            wallSeconds: Double(wall.nanosecondsValue) / 1e9, reachPoints: swarm.reachPoints(scripts), requireReach: reach.required)
        if let json { try result.jsonText.write(toFile: json, atomically: true, encoding: .utf8) }
        guard worker == nil else { return }
        if jobs > 1, selected.count > 1 { for run in result.failed { print(run.failureLine(options: swarm.options)) } }
        if let file = junit.file { try result.junitXML.write(toFile: file, atomically: true, encoding: .utf8) }
        if let file = report.file {
            // The first failing seeds again, with their explicit schedules: the same runs, now with their traces.
            let replays = result.failed.prefix(20).compactMap { swarm.replay($0, scripts: scripts) }
            let page = TimelineReport(results: replays, systemEvents: Catalog.timelineEvents, reach: result.reportReach)
            try page.html.write(toFile: file, atomically: true, encoding: .utf8)
        }
        print(result.reachTable, terminator: "")
        print(result.summary)
        if !result.passed { throw ExitStatus.checkFailed }
    }
}
