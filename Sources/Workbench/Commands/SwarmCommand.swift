import ArgumentParser
import Foundation
import Scenario
import Swarm

/// `workbench swarm`: runs scenario files under many seeds, each with a fault schedule its seed chooses, and
/// reports every seed that broke an expectation or an invariant, with the command that replays it.
struct SwarmCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swarm",
        abstract: "Run scenarios under a range of seeds, each with seed-chosen faults; report the seeds that fail.",
        subcommands: [SwarmRunCommand.self, SwarmMergeCommand.self],
        defaultSubcommand: SwarmRunCommand.self
    )
}

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

    @Option(help: "Run only shard I of N (0-based, I/N): the seeds whose value modulo N is I. Shards of one range never overlap and together cover it.")
    var shard: String?

    @Option(help: "Write a JUnit XML report (a test case per file and seed).")
    var junit: String?

    @Option(help: "Write the results as JSON (for `workbench swarm merge`).")
    var json: String?

    @Option(help: "Write a timeline report (one self-contained HTML page) of the failing seeds, the first 20 of them.")
    var report: String?

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
            try SeedRange(seeds).seeds(shard: shard.map { try Shard($0, option: "--shard") }, worker: worker.map { try Shard($0, option: "--worker") })
        }
        let runs: [SwarmRun]
        if jobs > 1, worker == nil, selected.count > 1 {
            runs = try runInWorkers(count: min(jobs, selected.count))
        } else {
            runs = swarm.run(scripts, seeds: selected) { run in
                if worker == nil, !run.passed { print(run.failureLine(options: swarm.options)) }
            }
        }
        let wall = ContinuousClock.now - started
        let result = SwarmResult(files: files, seeds: seeds, faults: faults, shard: shard, runs: runs,
                                 wallSeconds: Double(wall.nanosecondsValue) / 1e9)
        if let json { try result.jsonText.write(toFile: json, atomically: true, encoding: .utf8) }
        guard worker == nil else { return }
        if jobs > 1, selected.count > 1 { for run in result.failed { print(run.failureLine(options: swarm.options)) } }
        if let junit { try result.junitXML.write(toFile: junit, atomically: true, encoding: .utf8) }
        if let report {
            // The first failing seeds again, with their explicit schedules: the same runs, now with their traces.
            let replays = result.failed.prefix(20).compactMap { swarm.replay($0, scripts: scripts) }
            try TimelineReport(results: replays).html.write(toFile: report, atomically: true, encoding: .utf8)
        }
        print(result.summary)
        if !result.failed.isEmpty { throw ExitStatus.checkFailed }
    }

    /// Splits the selected seeds among worker processes (this executable, `--worker K/J`), each writing JSON.
    private func runInWorkers(count: Int) throws -> [SwarmRun] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workbench-swarm-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var processes: [(Process, String)] = []
        for index in 0..<count {
            let part = directory.appendingPathComponent("part-\(index).json").path
            let process = Process()
            process.executableURL = executable
            process.arguments = ["swarm", "run"] + files + ["--seeds", seeds, "--faults", faults.rawValue, "--jobs", "1",
                                                             "--worker", "\(index)/\(count)", "--json", part]
                + (shard.map { ["--shard", $0] } ?? [])
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            processes.append((process, part))
        }
        var runs: [SwarmRun] = []
        for (process, part) in processes {
            process.waitUntilExit()
            guard process.terminationStatus == 0, let text = try? String(contentsOfFile: part, encoding: .utf8) else {
                throw ValidationError("a swarm worker process failed (exit status \(process.terminationStatus)); run with --jobs 1 to see why")
            }
            runs += try commandLine { try SwarmResult.decode(text, source: part).runs }
        }
        return SwarmResult.ordered(runs, files: files)
    }
}

/// `workbench swarm merge`: one summary (and JUnit/JSON) from the results of several shards.
struct SwarmMergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Combine the JSON results of swarm shards into one summary, JUnit and JSON file.",
        discussion: "Shards must have run the same files with the same faults. A seed present in two shards must have the same digest in both.")

    @Argument(help: "JSON files written by `workbench swarm … --json`.")
    var results: [String]

    @Option(help: "Write the merged JUnit XML report here.")
    var junit: String?

    @Option(help: "Write the merged results as JSON here.")
    var json: String?

    func run() throws {
        var parts: [SwarmResult] = []
        for path in results {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw ExitStatus.inputWrong("\(path): cannot read the file") }
            parts.append(try commandLine { try SwarmResult.decode(text, source: path) })
        }
        let merged = try commandLine { try SwarmResult.merge(parts) }
        for run in merged.failed { print(run.failureLine(options: merged.options)) }
        if let junit { try merged.junitXML.write(toFile: junit, atomically: true, encoding: .utf8) }
        if let json { try merged.jsonText.write(toFile: json, atomically: true, encoding: .utf8) }
        print(merged.summary + " (merged from \(parts.count) result file\(parts.count == 1 ? "" : "s"))")
        if !merged.failed.isEmpty { throw ExitStatus.checkFailed }
    }
}

extension FaultClass: ExpressibleByArgument {}

/// Binding the swarm to the workbench: every system's language, actors and invariants, and files read strictly.
enum SwarmScripts {
    static var runner: ScenarioRunner {
        ScenarioRunner(language: Catalog.language, catalog: Catalog.actorKinds, invariants: Catalog.invariants)
    }

    /// A swarm's workloads, read strictly: a fault point none of its actors checks would make a seed's faults do nothing.
    static func load(_ files: [String]) throws -> [Script] {
        try ScenarioFiles.load(files, strict: true)
    }
}

/// Runs `body`, reporting a ``SwarmError`` as the command line does: an unusable result file as an input error
/// (exit status 2), anything else as a wrong command line (64).
func commandLine<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as SwarmError {
        throw error.kind == .resultFile ? ExitStatus.inputWrong(error.description) : ValidationError(error.description)
    }
}
