import ArgumentParser
import Foundation
import Reports
import Scenario
import Swarm
import SystemKit

/// `workbench swarm run` (the default of `workbench swarm`): every seed of a range, or of a shard of it, over the workloads.
struct SwarmRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run scenario files under seeds A..B with seed-chosen faults (the default of `workbench swarm`).",
        discussion: """
            For every seed, a fault schedule is drawn from the seed as the scenario runs, from fault sites in two levels: \
            each link that carried a connection or that the coming statement connects on (learnt from one run without faults), \
            each node's clock, each fault point actors declared and the swizzle is \
            switched on for the seed or not (probability \(SwarmOptions(faults: .all).siteEnabledRate)), and a site that is on fires \
            before each statement with its own probability, drawn for the seed. A link fires a latency distribution, a \
            partition or hold that ends by itself, or a reset (now, or after N bytes with each power of two of N as likely); a clock a skew; a point its fault; the \
            swizzle clogs a few links one after the other and unclogs them in another order. Half are deferred up to 3 s into \
            the next step. From an `after heal` line on, every fault is ended and none is drawn: what follows must succeed. \
            Expectations may name sets of outcomes (`expect X in a b`); invariants must always hold. One line per failing \
            seed, with the command that replays it and the one that shrinks it; then the reach table (per reach point, the \
            seeds that reached it, and the points never reached); the summary line comes last. Exit status 1 if any seed \
            failed, or with --require-reach if a point was never reached.

            --corpus DIR keeps every failing seed in DIR, one JSON file per failure (workload, fault class, the failure \
            without its line, its seeds); a later swarm with the same --corpus runs those seeds first and reports each as \
            still failing, failing differently or now passing (a corpus seed that still fails fails the swarm too).

            --planted NAME|all measures the swarm's power: for each bug the systems can be made to have (never on in a \
            normal run; `workbench swarm --planted list` lists them), the swarm runs the workload (default \
            \(SwarmPlanted.defaultWorkload), or the bug's own when it needs one) with only that bug on, seed after seed (default --seeds \(SwarmPlanted.defaultSeeds)), \
            until a seed fails an invariant or an expectation, then shrinks that seed's faults; it reports whether the \
            bug was found, the seed, the seeds it took and the faults kept (with --json, as `planted`: name, system, found, \
            seed, seeds_to_find, runs_to_find, shrunk_faults). A seed that fails without the bug too is skipped. The hunts \
            run in this process, one after another (--jobs does not apply). Exit status 1 if a bug was not found.

            --explore spends a share of the runs (--explore-share, default \(SwarmExploration.defaultShare)) on mutants \
            instead of fresh seeds, for as many runs in all as the seed range has seeds (× files). It goes in rounds: \
            fresh seeds (the range's first ones; 10, then twice as many each round), and after each round's fresh \
            seeds the mutants owed for the rounds before, made from runs that showed a rare or new reach point or \
            behaviour (an actor's trace event with the field that tells its outcomes apart, e.g. a fault point that fired). \
            Reach points and behaviours are two budgets of half the mutants each (odd mutants aim at a reach point, even \
            ones at a behaviour); within its budget a target is chosen with weight 1/runs², then the run that showed it \
            with the fewest mutants so far. Each mutant is its \
            parent's faults edited 1 to 3 times, run under the parent's seed. For a behaviour, the first edit is aimed \
            at a fault run before the parent first showed it, the latest most likely (dropped, shifted, drawn again \
            from its site, or one of its fields drawn again: its direction, byte count, duration, skew, count or \
            deferral), and the second adds a fault in the 3 statements before (for paths that need two faults at \
            once): half the time a cut (a reset aimed at one of the messages sent there, learnt from the workload's run \
            without faults, on its last byte or inside it), else one drawn as a seed would draw it; the others drop a \
            fault, shift one up to 3 statements, draw one field of one again, copy one from another run, cut one of \
            the messages the workload sends, or add one drawn as a seed would draw it. The choices come from the seeds: the same command gives the same runs for any --jobs \
            (worker processes stay up for the whole exploration and take its runs one at a time). The reach table \
            then counts runs, not seeds; the summary, --json (`explore`: share, fresh_runs, mutant_runs; each mutant \
            run's `mutant`), JUnit and the HTML report say how many runs were fresh and how many mutants. A \
            failing mutant's faults are written to FILE-seed-S-mutant-M.json in the current folder: `workbench swarm \
            FILE --schedule F.json` replays it (same digest) and `workbench shrink FILE --schedule F.json` shrinks it \
            (the corpus keeps failing fresh seeds only). With --planted, the hunts explore the same way and report the \
            runs each bug took. --explore cannot be split with --shard.
            """)

    @Argument(help: "Scenario files (.scn): swarm workloads, whose expectations accept every outcome a fault may cause.")
    var files: [String] = []

    @Option(help: "Seeds to run, A..B (inclusive; at most 10000000 seeds), or a single seed (with --planted: the seeds tried, default 1..2000).")
    var seeds: String?

    @Option(help: "Which faults the seed chooses: none, network, actors or all.")
    var faults: FaultClass = .all

    @Option(
        help: """
            fixed: every seed draws its faults within the same options (printed above the first failing seed). drawn: each seed \
            first draws its mix (swarm testing): each fault class off, or its rate ×½ to ×4, the share of sites on, which \
            systems' fault points are on, one latency family, one partition direction, the clocks' shape (step, drift, \
            wobble); printed with each failing seed.
            """)
    var mix: SwarmMix.Mode = .fixed

    @Option(help: "Parallel worker processes (1…64; default: the number of cores, at most 64).")
    var jobs: Int = min(64, ProcessInfo.processInfo.activeProcessorCount)

    @Option(
        help: "Run only shard I of N (0-based, I/N): the seeds whose value modulo N is I. Shards of one range never overlap and together cover it.")
    var shard: String?

    @OptionGroup var junit: JUnitOption

    @Option(help: "Write the results as JSON (for `workbench swarm merge`).")
    var json: String?

    @OptionGroup var report: ReportOption

    @Option(help: "Keep every failing seed in this folder (one JSON file per failure) and run the seeds kept there first.")
    var corpus: String?

    @Option(
        help: "Hunt a planted bug (NAME, or all; list: the names) and report whether the swarm finds it, at which seed, shrunk to how many faults.")
    var planted: String?

    @OptionGroup var reach: RequireReachOption

    @Flag(help: "Spend a share of the runs on mutants of runs that reached rare or new reach points (drop, shift, copy or add a fault).")
    var explore = false

    @Option(
        name: .customLong("explore-share"),
        help: "With --explore: the share of the runs spent on mutants, between 0 and 1 (default \(SwarmExploration.defaultShare)).")
    var exploreShare: Double?

    @Option(
        help:
            "Replay one run from its schedule file (a failing mutant's, written by --explore; its seed and fault class come from the file); the one file given is its workload."
    )
    var schedule: String?

    @Option(help: .hidden)
    var worker: String?

    /// A worker of `--explore`: runs the planned runs given on stdin, one JSON line each (see ``SwarmWorkerPool``).
    @Flag(help: .hidden)
    var planStream = false

    func validate() throws {
        if planted == "list" { return }
        if exploreShare != nil, !explore { throw ValidationError("--explore-share \(exploreShare ?? 0): needs --explore") }
        if explore {
            guard shard == nil else {
                throw ValidationError("--explore cannot be split with --shard: its mutants are chosen from all of its runs")
            }
            try commandLine { _ = try SwarmExploration.share(exploreShare) }
        }
        if schedule != nil {
            guard files.count == 1, seeds == nil, !explore, planted == nil, shard == nil, corpus == nil, junit.file == nil, mix == .fixed else {
                throw ValidationError(
                    "--schedule replays one run: it takes its one workload file, --json and --report only (its faults are in the file: no --mix)")
            }
            return
        }
        if let planted {
            _ = try SwarmPlanted(planted)
            guard corpus == nil, shard == nil, junit.file == nil, report.file == nil else {
                throw ValidationError("--planted takes files, --seeds, --faults, --mix, --explore and --json only")
            }
        } else {
            guard !files.isEmpty else { throw ValidationError("expected at least one scenario file (.scn)") }
            guard seeds != nil || planStream else { throw ValidationError("expected --seeds A..B (or one seed)") }
            // A corpus files its seeds by workload and fault class: a seed found with its drawn mix would run again without it.
            guard corpus == nil || mix == .fixed else { throw ValidationError("--corpus keeps the seeds of the fixed mix: it takes no --mix drawn") }
        }
        try commandLine {
            _ = try SeedRange(seeds ?? SwarmPlanted.defaultSeeds)
            _ = try corpus.map { try SwarmCorpus(directory: $0) }
            guard (1...64).contains(jobs) else { throw ValidationError("--jobs \(jobs): expected 1…64") }
            if let shard { _ = try Shard(shard, option: "--shard") }
            if let worker { _ = try Shard(worker, option: "--worker") }
        }
    }

    func run() throws {
        if planted == "list" {
            for entry in Catalog.plantedBugs { print("\(entry.name) (\(entry.system)): \(entry.summary)") }
            return
        }
        if let planted {
            let share: Double? = try explore ? commandLine { try SwarmExploration.share(exploreShare) } : nil
            return try SwarmPlanted(planted).run(
                files: files, seeds: seeds ?? SwarmPlanted.defaultSeeds,
                faults: faults, mix: mix, explore: share, json: json)
        }
        if let schedule { return try SwarmScheduleReplay(file: files[0], schedule: schedule).run(json: json, report: report.file) }
        if planStream {
            let swarm = SwarmRunner(runner: SwarmScripts.runner, options: SwarmOptions(faults: faults, mix: mix))
            return try SwarmWorkerPool.serve(swarm, scripts: try SwarmScripts.load(files))
        }
        guard let seeds else { throw ValidationError("expected --seeds A..B (or one seed)") }
        let swarm = SwarmRunner(runner: SwarmScripts.runner, options: SwarmOptions(faults: faults, mix: mix))
        let scripts = try SwarmScripts.load(files)
        let corpus = try commandLine { try self.corpus.map { try SwarmCorpus(directory: $0) } }
        let reruns = try corpus.map { try SwarmCorpusRun.run($0, swarm: swarm, scripts: scripts) } ?? []
        let started = ContinuousClock.now
        let selected = try commandLine {
            try SeedRange(seeds).seeds(
                shard: shard.map { try Shard($0, option: "--shard") }, worker: worker.map { try Shard($0, option: "--worker") })
        }
        let runs: [SwarmRun]
        var exploration: SwarmResult.Explore?
        let failures = SwarmFailurePrinter(options: swarm.options)
        if explore {
            let workers = jobs > 1 ? try SwarmWorkerPool(files: files, options: swarm.options, count: jobs) : nil
            let explored = try SwarmExplore(swarm: swarm, scripts: scripts, share: exploreShare).run(
                seeds: selected, workers: workers, failures: failures)
            runs = explored.runs
            exploration = explored.spent
        } else if jobs > 1, worker == nil, selected.count > 1 {
            runs = try SwarmWorkers(files: files, seeds: seeds, options: swarm.options, shard: shard).run(count: min(jobs, selected.count))
        } else {
            runs = swarm.run(scripts, seeds: selected) { run in
                if worker == nil, !run.passed { failures.print(run) }
            }
        }
        let wall = ContinuousClock.now - started
        let result = SwarmResult(
            files: files, seeds: seeds, faults: faults, mix: mix, shard: shard, runs: runs,
            wallSeconds: Double(wall.nanosecondsValue) / 1e9, reachPoints: swarm.reachPoints(scripts), requireReach: reach.required,
            explore: exploration)
        if let json { try result.jsonText.write(toFile: json, atomically: true, encoding: .utf8) }
        guard worker == nil else { return }
        if jobs > 1, selected.count > 1 { for run in result.failed { failures.print(run) } }
        try SwarmExplore.writeSchedules(of: result)
        if let corpus {
            let added = try commandLine { try corpus.record(result.runs, faults: faults) }
            if added > 0 { print("corpus \(corpus.directory): \(added) new failing seed\(added == 1 ? "" : "s") kept") }
        }
        if let file = junit.file { try result.junitXML.write(toFile: file, atomically: true, encoding: .utf8) }
        if let file = report.file {
            // The first failing seeds again, with their explicit schedules: the same runs, now with their traces.
            let replays = result.failed.prefix(20).compactMap { swarm.replay($0, scripts: scripts) }
            let page = TimelineReport(results: replays, systemEvents: Catalog.timelineEvents, reach: result.reportReach)
            try page.html.write(toFile: file, atomically: true, encoding: .utf8)
        }
        print(result.reachTable, terminator: "")
        print(result.summary + SwarmCorpusRun.summary(reruns))
        if !result.passed || reruns.contains(where: { !$0.run.passed }) { throw ExitStatus.checkFailed }
    }
}
