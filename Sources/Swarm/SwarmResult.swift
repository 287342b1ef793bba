import Foundation

/// What a swarm (or one shard of it) found: every run, how it was asked for, and which reach points its seeds reached.
public struct SwarmResult: Codable, Sendable {
    public let files: [String]
    public let seeds: String
    public let faults: FaultClass
    /// Whether each seed drew its mix (`--mix drawn`).
    public let mix: SwarmMix.Mode
    public let shard: String?
    public let runs: [SwarmRun]
    public let wallSeconds: Double
    /// The reach points the files can reach (reached or not), sorted.
    public let reachPoints: [String]
    /// Whether a point no seed reached fails the swarm (`--require-reach`).
    public let requireReach: Bool
    /// With `--explore`: the share spent on mutants, and how many runs were fresh and how many mutants.
    public let explore: Explore?

    /// How an `--explore` swarm spent its runs.
    public struct Explore: Codable, Equatable, Sendable {
        public let share: Double
        public let freshRuns: Int
        public let mutantRuns: Int

        public init(share: Double, freshRuns: Int, mutantRuns: Int) {
            self.share = share
            self.freshRuns = freshRuns
            self.mutantRuns = mutantRuns
        }

        enum CodingKeys: String, CodingKey {
            case share
            case freshRuns = "fresh_runs"
            case mutantRuns = "mutant_runs"
        }
    }

    public init(
        files: [String], seeds: String, faults: FaultClass, mix: SwarmMix.Mode = .fixed, shard: String?, runs: [SwarmRun],
        wallSeconds: Double, reachPoints: [String] = [], requireReach: Bool = false, explore: Explore? = nil
    ) {
        self.files = files
        self.seeds = seeds
        self.faults = faults
        self.mix = mix
        self.shard = shard
        self.runs = runs
        self.wallSeconds = wallSeconds
        self.reachPoints = reachPoints
        self.requireReach = requireReach
        self.explore = explore
    }

    /// The same result, with `--require-reach` as given (a merge decides it again).
    public func requiringReach(_ require: Bool) -> SwarmResult {
        SwarmResult(
            files: files, seeds: seeds, faults: faults, mix: mix, shard: shard, runs: runs, wallSeconds: wallSeconds,
            reachPoints: reachPoints, requireReach: require, explore: explore)
    }

    /// For every reach point, how many seeds reached it (in any file), sorted by point. With `--explore` it counts
    /// runs instead: mutants run under their parents' seeds, so counting seeds would hide what they reached.
    public var reach: [(point: String, seeds: Int)] {
        var seedsByPoint: [String: Set<String>] = [:]
        for run in runs {
            let key = explore == nil ? String(run.seed) : "\(run.file) \(run.name)"
            for point in run.reached { seedsByPoint[point, default: []].insert(key) }
        }
        return Set(reachPoints).union(seedsByPoint.keys).sorted().map { ($0, seedsByPoint[$0]?.count ?? 0) }
    }

    /// What the reach table counts: seeds, or with `--explore` runs.
    public var reachUnit: String { explore == nil ? "seeds" : "runs" }

    /// How many the reach table counts per point at most: the seeds, or with `--explore` the runs.
    public var reachTotal: Int { explore == nil ? Set(runs.map(\.seed)).count : runs.count }

    /// The points no seed reached.
    public var neverReached: [String] { reach.filter { $0.seeds == 0 }.map(\.point) }

    /// Whether the swarm passed: every run passed and, with ``requireReach``, every point was reached.
    public var passed: Bool { failed.isEmpty && !(requireReach && !neverReached.isEmpty) }

    /// The reach table: a line per point with the seeds that reached it, then the points never reached.
    public var reachTable: String {
        let reach = self.reach
        guard !reach.isEmpty else { return "reach: no reach points (the files start no actor that declares one, and have no 'sometimes')\n" }
        let total = reachTotal
        let width = String(total).count
        var out =
            explore.map {
                "reach: runs (of \(total): \($0.freshRuns) of fresh seeds, \($0.mutantRuns) of mutants) that reached each point "
                    + "(--explore counts runs, not seeds)\n"
            } ?? "reach: seeds (of \(total)) that reached each point\n"
        for (point, seeds) in reach {
            out += "  " + String(repeating: " ", count: max(0, width - String(seeds).count)) + "\(seeds)  \(point)\n"
        }
        let never = neverReached
        out += "never reached (\(never.count) of \(reach.count))" + (never.isEmpty ? ": none\n" : ": \(never.joined(separator: ", "))\n")
        if requireReach, !never.isEmpty {
            out += "FAIL reach: --require-reach, and \(never.count) point\(never.count == 1 ? " was" : "s were") never reached\n"
        }
        return out
    }

    /// The options the runs drew their faults within.
    public var options: SwarmOptions { SwarmOptions(faults: faults, mix: mix) }

    public var failed: [SwarmRun] { runs.filter { !$0.passed } }

    /// The closing line: verdict, seeds × files, failures, how many broke an invariant, and the speed.
    public var summary: String {
        let failed = self.failed
        let seedCount = Set(runs.map(\.seed)).count
        let invariants = failed.filter { $0.failure?.contains("INVARIANT BROKEN") == true }.count
        let rate = wallSeconds > 0 ? Double(explore == nil ? seedCount : runs.count) / wallSeconds * 60 : 0
        let reach = self.reach
        let ran =
            explore.map {
                "\(runs.count) run\(runs.count == 1 ? "" : "s") (--explore: \($0.freshRuns) of fresh seeds, \($0.mutantRuns) of mutants) "
                    + "of \(files.count) file\(files.count == 1 ? "" : "s")"
            } ?? "\(seedCount) seed\(seedCount == 1 ? "" : "s") × \(files.count) file\(files.count == 1 ? "" : "s")"
        return
            "\(passed ? "PASS" : "FAIL") swarm: \(ran), "
            + "\(failed.count) failed (\(invariants) broke an invariant), faults \(faults.rawValue)"
            + (reach.isEmpty ? "" : ", \(reach.count - neverReached.count) of \(reach.count) reach points reached")
            + (shard.map { ", shard \($0)" } ?? "")
            + ", \(String(format: "%.1f", wallSeconds)) s wall, \(Int(rate.rounded())) \(explore == nil ? "seeds" : "runs")/min"
    }

    // MARK: Codable

    /// `reach` (point → seeds) and `never_reached` are written for readers; reading takes the points from `reach`.
    private enum CodingKeys: String, CodingKey {
        case files, seeds, faults, mix, shard, runs, wallSeconds, reach
        case neverReached = "never_reached"
        case requireReach = "require_reach"
        case explore
        case reachCounts = "reach_counts"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        files = try container.decode([String].self, forKey: .files)
        seeds = try container.decode(String.self, forKey: .seeds)
        faults = try container.decode(FaultClass.self, forKey: .faults)
        mix = try container.decodeIfPresent(SwarmMix.Mode.self, forKey: .mix) ?? .fixed
        shard = try container.decodeIfPresent(String.self, forKey: .shard)
        runs = try container.decode([SwarmRun].self, forKey: .runs)
        wallSeconds = try container.decode(Double.self, forKey: .wallSeconds)
        reachPoints = try container.decodeIfPresent([String: Int].self, forKey: .reach)?.keys.sorted() ?? []
        requireReach = try container.decodeIfPresent(Bool.self, forKey: .requireReach) ?? false
        explore = try container.decodeIfPresent(Explore.self, forKey: .explore)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(files, forKey: .files)
        try container.encode(seeds, forKey: .seeds)
        try container.encode(faults, forKey: .faults)
        try container.encode(mix, forKey: .mix)
        try container.encodeIfPresent(shard, forKey: .shard)
        try container.encode(runs, forKey: .runs)
        try container.encode(wallSeconds, forKey: .wallSeconds)
        try container.encode(Dictionary(uniqueKeysWithValues: reach.map { ($0.point, $0.seeds) }), forKey: .reach)
        try container.encode(neverReached, forKey: .neverReached)
        try container.encode(requireReach, forKey: .requireReach)
        try container.encodeIfPresent(explore, forKey: .explore)
        if explore != nil { try container.encode(reachUnit, forKey: .reachCounts) }
    }

    public var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        // Encoding plain strings and numbers cannot fail.
        return (try? encoder.encode(self)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
    }

    /// - throws: ``SwarmError`` (`.resultFile`) naming `source` if `text` is not a swarm result.
    public static func decode(_ text: String, source: String) throws -> SwarmResult {
        do {
            return try JSONDecoder().decode(SwarmResult.self, from: Data(text.utf8))
        } catch {
            throw SwarmError(.resultFile, "\(source): not a swarm result (JSON written by `workbench swarm --json`): \(error)")
        }
    }

    /// Runs in seed order, then in the order the files were given.
    public static func ordered(_ runs: [SwarmRun], files: [String]) -> [SwarmRun] {
        runs.sorted { ($0.seed, files.firstIndex(of: $0.file) ?? 0) < ($1.seed, files.firstIndex(of: $1.file) ?? 0) }
    }
}
