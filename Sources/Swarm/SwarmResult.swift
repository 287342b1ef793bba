import Foundation

/// What a swarm (or one shard of it) found: every run, and how it was asked for.
public struct SwarmResult: Codable, Sendable {
    public let files: [String]
    public let seeds: String
    public let faults: FaultClass
    public let shard: String?
    public let runs: [SwarmRun]
    public let wallSeconds: Double

    public init(files: [String], seeds: String, faults: FaultClass, shard: String?, runs: [SwarmRun], wallSeconds: Double) {
        self.files = files
        self.seeds = seeds
        self.faults = faults
        self.shard = shard
        self.runs = runs
        self.wallSeconds = wallSeconds
    }

    /// The options the runs drew their faults within.
    public var options: SwarmOptions { SwarmOptions(faults: faults) }

    public var failed: [SwarmRun] { runs.filter { !$0.passed } }

    /// The closing line: verdict, seeds × files, failures, how many broke an invariant, and the speed.
    public var summary: String {
        let failed = self.failed
        let seedCount = Set(runs.map(\.seed)).count
        let invariants = failed.filter { $0.failure?.contains("INVARIANT BROKEN") == true }.count
        let rate = wallSeconds > 0 ? Double(seedCount) / wallSeconds * 60 : 0
        return
            "\(failed.isEmpty ? "PASS" : "FAIL") swarm: \(seedCount) seed\(seedCount == 1 ? "" : "s") × \(files.count) file\(files.count == 1 ? "" : "s"), "
            + "\(failed.count) failed (\(invariants) broke an invariant), faults \(faults.rawValue)"
            + (shard.map { ", shard \($0)" } ?? "")
            + ", \(String(format: "%.1f", wallSeconds)) s wall, \(Int(rate.rounded())) seeds/min"
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
