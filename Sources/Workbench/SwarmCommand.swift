import ArgumentParser
import Foundation
import Kernel
import MarkupEscaping
import Reports
import Scenario

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
            probability \(FaultClass.injectionRate), one fault among latency distributions, partitions and holds that end by \
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
        _ = try SeedRange(seeds)
        guard (1...64).contains(jobs) else { throw ValidationError("--jobs \(jobs): expected 1…64") }
        if let shard { _ = try Shard(shard, option: "--shard") }
        if let worker { _ = try Shard(worker, option: "--worker") }
    }

    func run() throws {
        let range = try SeedRange(seeds)
        let shard = try self.shard.map { try Shard($0, option: "--shard") }
        let scripts = try SwarmScripts.load(files)
        let started = ContinuousClock.now
        var selected = range.seeds.filter { shard?.contains($0) ?? true }
        if let worker = try worker.map({ try Shard($0, option: "--worker") }) {
            selected = selected.enumerated().filter { worker.contains(UInt64($0.offset)) }.map(\.element)
        }
        let runs: [SwarmRun]
        if jobs > 1, worker == nil, selected.count > 1 {
            runs = try runInWorkers(count: min(jobs, selected.count))
        } else {
            runs = SwarmScripts.run(scripts, seeds: selected, faults: faults) { run in
                if worker == nil, !run.passed { print(run.failureLine(faults: faults)) }
            }
        }
        let wall = ContinuousClock.now - started
        let result = SwarmResult(files: files, seeds: seeds, faults: faults, shard: self.shard, runs: runs,
                                 wallSeconds: Double(wall.nanosecondsValue) / 1e9)
        if let json { try result.jsonText.write(toFile: json, atomically: true, encoding: .utf8) }
        guard worker == nil else { return }
        if jobs > 1, selected.count > 1 { for run in runs where !run.passed { print(run.failureLine(faults: faults)) } }
        if let junit { try result.junitXML.write(toFile: junit, atomically: true, encoding: .utf8) }
        if let report { try writeReport(report, failing: runs.filter { !$0.passed }, scripts: scripts) }
        print(result.summary)
        if runs.contains(where: { !$0.passed }) { throw ExitStatus.checkFailed }
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
            runs += try SwarmResult.decode(text, source: part).runs
        }
        return SwarmResult.ordered(runs, files: files)
    }
}

extension SwarmRunCommand {
    /// Replays the first failing seeds with their explicit schedules (the same runs, digest for digest) and draws them.
    private func writeReport(_ path: String, failing: [SwarmRun], scripts: [Script]) throws {
        let runner = SwarmScripts.runner
        var results: [ScenarioRunner.Result] = []
        for run in failing.prefix(20) {
            guard let script = scripts.first(where: { $0.file == run.file }) else { continue }
            results.append(runner.run(script, seed: run.seed, faults: .explicit(run.faults)) { _ in })
        }
        try TimelineReport(results: results).html.write(toFile: path, atomically: true, encoding: .utf8)
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
            parts.append(try SwarmResult.decode(text, source: path))
        }
        let merged = try SwarmResult.merge(parts)
        for run in merged.runs where !run.passed { print(run.failureLine(faults: merged.faults)) }
        if let junit { try merged.junitXML.write(toFile: junit, atomically: true, encoding: .utf8) }
        if let json { try merged.jsonText.write(toFile: json, atomically: true, encoding: .utf8) }
        print(merged.summary + " (merged from \(parts.count) result file\(parts.count == 1 ? "" : "s"))")
        if merged.runs.contains(where: { !$0.passed }) { throw ExitStatus.checkFailed }
    }
}

extension FaultClass: ExpressibleByArgument {}

/// `A..B` or `N`: an inclusive range of seeds.
struct SeedRange {
    static let maximumCount: UInt64 = 10_000_000
    let lower: UInt64
    let upper: UInt64

    init(_ text: String) throws {
        let parts = text.components(separatedBy: "..")
        guard (1...2).contains(parts.count), let lower = UInt64(parts[0]), let upper = UInt64(parts.last ?? "") else {
            throw ValidationError("--seeds \(text): expected A..B (two unsigned integers, A ≤ B) or one seed")
        }
        guard lower <= upper else { throw ValidationError("--seeds \(text): the first seed is after the last; expected A ≤ B") }
        guard upper - lower < Self.maximumCount else {
            throw ValidationError("--seeds \(text): \(upper - lower) seeds and more; expected at most \(Self.maximumCount) (split with --shard)")
        }
        self.lower = lower
        self.upper = upper
    }

    var seeds: [UInt64] { Array(lower...upper) }
}

/// `I/N`: the part of a set a shard (or a worker) runs, 0-based.
struct Shard {
    let index: UInt64
    let count: UInt64

    init(_ text: String, option: String) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = UInt64(parts[0]), let count = UInt64(parts[1]), count >= 1, count <= 100_000 else {
            throw ValidationError("\(option) \(text): expected I/N with 1 ≤ N ≤ 100000 (e.g. 0/4)")
        }
        guard index < count else { throw ValidationError("\(option) \(text): shards are numbered 0…\(count - 1) (0-based, like JOB_COMPLETION_INDEX)") }
        self.index = index
        self.count = count
    }

    func contains(_ value: UInt64) -> Bool { value % count == index }
}

/// Loading and running swarm workloads.
enum SwarmScripts {
    static var runner: ScenarioRunner {
        ScenarioRunner(language: Catalog.language, catalog: Catalog.actorKinds, invariants: Catalog.invariants)
    }

    /// A swarm's workloads, read strictly: a fault point none of its actors checks would make a seed's faults do nothing.
    static func load(_ files: [String]) throws -> [Script] {
        try ScenarioFiles.load(files, strict: true)
    }

    /// Runs every script under every seed (seed by seed), calling `each` as results come.
    static func run(_ scripts: [Script], seeds: [UInt64], faults: FaultClass, each: (SwarmRun) -> Void) -> [SwarmRun] {
        let runner = self.runner
        var runs: [SwarmRun] = []
        for seed in seeds {
            for script in scripts {
                let run = SwarmRun(runner.run(script, seed: seed, faults: .seeded(faults)) { _ in })
                each(run)
                runs.append(run)
            }
        }
        return runs
    }
}

/// One scenario under one seed, as a swarm reports it.
struct SwarmRun: Codable, Equatable {
    let file: String
    let seed: UInt64
    let passed: Bool
    let digest: String
    /// What failed first: a broken invariant, else a failed expectation, else the step that could not run.
    let failure: String?
    let faults: [ScheduledFault]
    let virtualNanoseconds: Int64
    let traceEvents: Int

    init(_ result: ScenarioRunner.Result) {
        file = result.file
        seed = result.seed
        passed = result.passed
        digest = result.digest
        if let violation = result.violations.first {
            failure = violation.summary(file: result.file)
        } else if let expectation = result.failures.first {
            failure = "\(expectation.file):\(expectation.line): FAILED \(expectation.text): \(expectation.failure ?? "")"
        } else {
            failure = result.error
        }
        faults = result.faults
        virtualNanoseconds = result.virtualTime.nanosecondsValue
        traceEvents = result.traceEvents
    }

    func failureLine(faults classes: FaultClass) -> String {
        "FAIL \(file) seed \(seed) (\(faults.count) fault\(faults.count == 1 ? "" : "s")): \(failure ?? "failed")\n"
            + "    replay: workbench swarm \(file) --seeds \(seed) --faults \(classes.rawValue)\n"
            + "    shrink: workbench shrink \(file) --seed \(seed) --faults \(classes.rawValue) --out \(file.split(separator: "/").last.map { String($0.dropLast(4)) } ?? "swarm")-seed-\(seed).scn"
    }
}

/// What a swarm (or one shard of it) found.
struct SwarmResult: Codable {
    let files: [String]
    let seeds: String
    let faults: FaultClass
    let shard: String?
    let runs: [SwarmRun]
    let wallSeconds: Double

    var summary: String {
        let failed = runs.filter { !$0.passed }
        let seedCount = Set(runs.map(\.seed)).count
        let invariants = failed.filter { $0.failure?.contains("INVARIANT BROKEN") == true }.count
        let rate = wallSeconds > 0 ? Double(seedCount) / wallSeconds * 60 : 0
        return "\(failed.isEmpty ? "PASS" : "FAIL") swarm: \(seedCount) seed\(seedCount == 1 ? "" : "s") × \(files.count) file\(files.count == 1 ? "" : "s"), "
            + "\(failed.count) failed (\(invariants) broke an invariant), faults \(faults.rawValue)"
            + (shard.map { ", shard \($0)" } ?? "")
            + ", \(String(format: "%.1f", wallSeconds)) s wall, \(Int(rate.rounded())) seeds/min"
    }

    var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        // Encoding plain strings and numbers cannot fail.
        return (try? encoder.encode(self)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
    }

    static func decode(_ text: String, source: String) throws -> SwarmResult {
        do {
            return try JSONDecoder().decode(SwarmResult.self, from: Data(text.utf8))
        } catch {
            throw ExitStatus.inputWrong("\(source): not a swarm result (JSON written by `workbench swarm --json`): \(error)")
        }
    }

    /// Runs in seed order, then in the order the files were given.
    static func ordered(_ runs: [SwarmRun], files: [String]) -> [SwarmRun] {
        runs.sorted { ($0.seed, files.firstIndex(of: $0.file) ?? 0) < ($1.seed, files.firstIndex(of: $1.file) ?? 0) }
    }

    static func merge(_ parts: [SwarmResult]) throws -> SwarmResult {
        guard let first = parts.first else { throw ValidationError("expected at least one result file") }
        var byKey: [String: SwarmRun] = [:]
        for part in parts {
            guard part.files.map(baseName) == first.files.map(baseName), part.faults == first.faults else {
                throw ValidationError("the results did not run the same scenarios with the same faults: \(first.files) --faults \(first.faults.rawValue) "
                                      + "vs \(part.files) --faults \(part.faults.rawValue)")
            }
            for run in part.runs {
                let key = "\(baseName(run.file)) \(run.seed)"
                if let earlier = byKey[key], earlier.digest != run.digest {
                    throw ValidationError("seed \(run.seed) of \(run.file) ran twice with different digests (\(earlier.digest.prefix(16)) vs \(run.digest.prefix(16))): "
                                          + "the shards ran different builds or scenario files")
                }
                byKey[key] = run
            }
        }
        return SwarmResult(files: first.files, seeds: parts.map(\.seeds).uniqued().joined(separator: ","), faults: first.faults, shard: nil,
                           runs: ordered(Array(byKey.values), files: first.files), wallSeconds: parts.map(\.wallSeconds).max() ?? 0)
    }

    var junitXML: String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
        for file in files {
            let mine = runs.filter { $0.file == file }
            out += "  <testsuite name=\"swarm \(MarkupText.escaped(file, .attributeSafe))\" tests=\"\(mine.count)\" failures=\"\(mine.filter { !$0.passed }.count)\">\n"
            out += "    <properties><property name=\"faults\" value=\"\(faults.rawValue)\"/></properties>\n"
            for run in mine {
                out += "    <testcase classname=\"\(MarkupText.escaped(file, .attributeSafe))\" name=\"seed \(run.seed)\""
                if run.passed {
                    out += "/>\n"
                } else {
                    out += ">\n      <failure message=\"\(MarkupText.escaped(run.failureLine(faults: faults), .attributeSafe))\"/>\n    </testcase>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }
}

private func baseName(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }

extension Array where Element: Hashable {
    fileprivate func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
