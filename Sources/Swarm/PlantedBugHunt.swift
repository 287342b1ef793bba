import Foundation
import Scenario
import Wire

/// A planted bug as the workbench lists it: the bug, the system it lives in, and what goes wrong, in one line.
public struct PlantedBugEntry: Sendable {
    public let bug: PlantedBug
    public let system: String
    public let summary: String
    /// The workload a hunt runs when none is given, for a bug the default workload cannot expose (one that needs an
    /// actor the swarm may crash); nil: the default.
    public let workload: String?

    public init(_ bug: PlantedBug, system: String, summary: String, workload: String? = nil) {
        self.bug = bug
        self.system = system
        self.summary = summary
        self.workload = workload
    }

    public var name: String { bug.name }
}

/// Measures the swarm's power: for one planted bug, runs the swarm's workloads seed after seed with only that bug on,
/// until a seed fails (a broken invariant or a failed expectation: the checks know nothing of the bug), then shrinks
/// that seed's faults as `workbench shrink` does.
///
/// A seed that also fails with no bug planted shows a weakness of the workload, not the bug: it is reported and the
/// hunt goes on.
public struct PlantedBugHunt: Sendable {
    /// The runner of normal runs (no bug planted); each hunt plants its one bug in a copy.
    public let runner: ScenarioRunner
    public let options: SwarmOptions

    public init(runner: ScenarioRunner, options: SwarmOptions) {
        self.runner = runner
        self.options = options
    }

    /// What one hunt found.
    public struct Finding: Codable, Sendable {
        public let name: String
        public let system: String
        public let found: Bool
        /// The first seed that failed, and how many seeds it took (all of them when none did). With `--explore`, the
        /// seed the failing run ran under and the fresh seeds run until then.
        public let seed: UInt64?
        public let seedsToFind: Int
        /// How many runs it took, mutants included (without `--explore`, one per seed and file), and which run found
        /// it (`seed 12`, `seed 12 mutant 7`).
        public let runsToFind: Int
        public let run: String?
        /// How many faults the seed ran, and how many shrinking kept (the lines kept, before their statements' lines).
        public let faults: Int?
        public let shrunkFaults: Int?
        public let shrunk: [String]?
        public let file: String?
        public let failure: String?
        /// Seeds that failed with the bug and without it, skipped as the workload's own failures: each once, in the order
        /// they failed (a mutant's is its parent's).
        public let failingWithoutBug: [UInt64]

        enum CodingKeys: String, CodingKey {
            case name, system, found, seed, faults, shrunk, file, failure
            case seedsToFind = "seeds_to_find"
            case runsToFind = "runs_to_find"
            case run
            case shrunkFaults = "shrunk_faults"
            case failingWithoutBug = "failing_without_bug"
        }
    }

    /// Hunts `entry`'s bug over `seeds` (in order) and `scripts` (each seed runs every script), calling `progress`
    /// with each seed run. With `explore` (a share of the runs), the runs are those of ``SwarmExploration`` over the
    /// same seeds: the same budget, part of it spent on mutants.
    ///
    /// - throws: ``SwarmError`` (`.argument`) if `explore` is not a share between 0 and 1.
    public func hunt(
        _ entry: PlantedBugEntry, scripts: [Script], seeds: [UInt64], explore: Double? = nil, progress: (UInt64) -> Void = { _ in }
    ) throws -> Finding {
        let planted = ScenarioRunner(
            language: runner.language, catalog: runner.catalog, invariants: runner.invariants, plantedBugs: [entry.bug])
        let buggy = SwarmRunner(runner: planted, options: options)
        let clean = SwarmRunner(runner: runner, options: options)
        var withoutBug: [UInt64] = []
        var runs = 0
        var freshSeeds = Set<UInt64>()
        var found: Finding?
        // Runs one planned run with the bug; true when it found the bug (a failure the run without the bug does not have).
        func hunted(_ plan: SwarmPlanEntry, _ script: Script) -> SwarmRun {
            runs += 1
            if plan.mutation == nil, freshSeeds.insert(plan.seed).inserted { progress(plan.seed) }
            // An exploration's runs keep what their links sent, where their mutants' cuts aim.
            let (result, traffic) = explore == nil ? (buggy.result(plan, script: script), nil) : buggy.tracedResult(plan, script: script)
            let run = SwarmRun(result, mutation: plan.mutation, behaviours: explore != nil, traffic: traffic)
            guard let signature = FailureSignature(result) else { return run }
            if FailureSignature(clean.result(plan, script: script)) != nil {
                if !withoutBug.contains(plan.seed) { withoutBug.append(plan.seed) }
                return run
            }
            let shrunk = Shrinker(swarm: buggy).minimise(
                Shrinker.Failure(signature: signature, faults: result.faults), script: script, seed: plan.seed)
            found = Finding(
                name: entry.name, system: entry.system, found: true, seed: plan.seed, seedsToFind: freshSeeds.count, runsToFind: runs,
                run: run.name, faults: result.faults.count, shrunkFaults: shrunk.kept.count,
                shrunk: shrunk.kept.map { "before line \(script.statements[$0.before].line): \($0.line)" }, file: script.file,
                failure: signature.text, failingWithoutBug: withoutBug)
            return run
        }
        if let explore {
            var exploration = try SwarmExploration(scripts: scripts, seeds: seeds, swarm: buggy, share: explore)
            _ = exploration.explore { batch in
                var done: [SwarmRun] = []
                for plan in batch {
                    guard let script = scripts.first(where: { $0.file == plan.file }) else { continue }
                    done.append(hunted(plan, script))
                    if found != nil { break }
                }
                return done
            }
        } else {
            search: for seed in seeds {
                for script in scripts {
                    _ = hunted(SwarmPlanEntry(file: script.file, seed: seed), script)
                    if found != nil { break search }
                }
            }
        }
        return found
            ?? Finding(
                name: entry.name, system: entry.system, found: false, seed: nil, seedsToFind: freshSeeds.count, runsToFind: runs, run: nil,
                faults: nil, shrunkFaults: nil, shrunk: nil, file: nil, failure: nil, failingWithoutBug: withoutBug)
    }
}

/// What `workbench swarm --planted` reports: a finding per bug, and what the hunts ran.
public struct PlantedBugReport: Codable, Sendable {
    public let planted: [PlantedBugHunt.Finding]
    public let files: [String]
    public let seeds: String
    public let faults: FaultClass
    public let wallSeconds: Double
    /// With `--explore`, the share of the runs spent on mutants.
    public let explore: Double?

    enum CodingKeys: String, CodingKey {
        case planted, files, seeds, faults, explore
        case wallSeconds = "wall_seconds"
    }

    public init(
        planted: [PlantedBugHunt.Finding], files: [String], seeds: String, faults: FaultClass, wallSeconds: Double, explore: Double? = nil
    ) {
        self.planted = planted
        self.files = files
        self.seeds = seeds
        self.faults = faults
        self.wallSeconds = wallSeconds
        self.explore = explore
    }

    /// One line per bug: found or not, by which run, after how many seeds and runs, the faults kept.
    public var table: String {
        let width = max(4, planted.map(\.name.count).max() ?? 0)
        let runWidth = max(5, planted.compactMap { $0.run?.count }.max() ?? 0)
        var lines = [
            "bug".padding(toLength: width, withPad: " ", startingAt: 0) + "  system   found  "
                + "run".padding(toLength: runWidth, withPad: " ", startingAt: 0) + "  seeds to find  runs to find  shrunk faults"
        ]
        for finding in planted {
            lines.append(
                finding.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                    + finding.system.padding(toLength: 7, withPad: " ", startingAt: 0) + "  "
                    + (finding.found ? "yes  " : "NO   ") + "  "
                    + (finding.run ?? "-").padding(toLength: runWidth, withPad: " ", startingAt: 0) + "  "
                    + String(finding.seedsToFind).padding(toLength: 13, withPad: " ", startingAt: 0) + "  "
                    + String(finding.runsToFind).padding(toLength: 12, withPad: " ", startingAt: 0) + "  "
                    + (finding.shrunkFaults.map { "\($0) of \(finding.faults ?? 0)" } ?? "-"))
        }
        return lines.joined(separator: "\n")
    }

    public var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        // Encoding plain strings and numbers cannot fail.
        return (try? encoder.encode(self)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
    }
}
