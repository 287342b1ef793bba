import Foundation
import Kernel
import Scenario

/// A folder of the failing seeds swarms found, kept so later swarms run them first (`workbench swarm --corpus DIR`):
/// one JSON file per failure (workload file, fault class and ``FailureSignature/identity``), listing every seed that
/// failed that way. A seed that passes again stays in the corpus: it guards against the failure coming back.
public struct SwarmCorpus: Sendable {
    public let directory: String

    /// One failure and the seeds that showed it.
    public struct Entry: Codable, Sendable, Equatable {
        /// The workload's file name (without its folder: shards and machines may keep it elsewhere).
        public let file: String
        public let faults: FaultClass
        /// The failure, as ``FailureSignature/identity`` says it (without its line).
        public let signature: String
        /// The first failure's line as a person reads it (replay command included).
        public let example: String
        public var seeds: [UInt64]
    }

    /// How a corpus seed fared when run again.
    public struct Rerun: Sendable {
        public let entry: Entry
        public let run: SwarmRun

        /// The same failure as before.
        public var stillFailing: Bool { run.signature == entry.signature }

        /// The line a swarm prints for it.
        public var line: String {
            let verdict =
                run.passed ? "now passing" : stillFailing ? "still failing" : "fails differently: \(run.failure ?? "failed")"
            return "corpus \(run.file) seed \(run.seed): \(verdict) (filed as: \(entry.signature))"
        }
    }

    /// - throws: ``SwarmError`` (`.argument`) if `directory` exists and is not a folder.
    public init(directory: String) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), !isFolder.boolValue {
            throw SwarmError(.argument, "--corpus \(directory): not a folder; expected a folder (it is made if missing)")
        }
        self.directory = directory
    }

    /// Every entry filed for `files` (by file name) and `faults`, in file-name order.
    ///
    /// - throws: ``SwarmError`` (`.resultFile`) naming a file of the folder that is no corpus entry.
    public func entries(files: [String], faults: FaultClass) throws -> [Entry] {
        let names = Set(files.map(Self.baseName))
        return try all().filter { names.contains($0.file) && $0.faults == faults }
    }

    /// Runs again every seed kept for `scripts` and `swarm`'s fault class, in the corpus's order, calling `each` as the
    /// runs come.
    public func rerun(_ scripts: [Script], swarm: SwarmRunner, each: (Rerun) -> Void = { _ in }) throws -> [Rerun] {
        var reruns: [Rerun] = []
        for entry in try entries(files: scripts.map(\.file), faults: swarm.options.faults) {
            guard let script = scripts.first(where: { Self.baseName($0.file) == entry.file }) else { continue }
            for seed in entry.seeds {
                let rerun = Rerun(entry: entry, run: SwarmRun(swarm.run(script, seed: seed)))
                each(rerun)
                reruns.append(rerun)
            }
        }
        return reruns
    }

    /// Files the failing runs of `runs` (seeds added to their failure's entry, made if new); returns how many seeds
    /// were new to the corpus. A failing mutant of `--explore` is not a seed (its seed alone runs other faults): its
    /// schedule file keeps it instead.
    @discardableResult
    public func record(_ runs: [SwarmRun], faults: FaultClass) throws -> Int {
        var added = 0
        for run in runs where !run.passed && run.mutant == nil {
            let signature = run.signature ?? run.failure ?? "failed"
            let file = Self.baseName(run.file)
            let path = self.path(file: file, faults: faults, signature: signature)
            var entry =
                try read(path)
                ?? Entry(file: file, faults: faults, signature: signature, example: run.failureLine(faults: faults), seeds: [])
            guard !entry.seeds.contains(run.seed) else { continue }
            entry.seeds = (entry.seeds + [run.seed]).sorted()
            try write(entry, to: path)
            added += 1
        }
        return added
    }

    // MARK: Files

    private func all() throws -> [Entry] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return try names.filter { $0.hasSuffix(".json") }.sorted().compactMap { try read("\(directory)/\($0)") }
    }

    private func read(_ path: String) throws -> Entry? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        do {
            return try JSONDecoder().decode(Entry.self, from: data)
        } catch {
            throw SwarmError(.resultFile, "\(path): not a swarm corpus entry (written by `workbench swarm --corpus`): \(error)")
        }
    }

    private func write(_ entry: Entry, to path: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try encoder.encode(entry).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// `FILE-FAULTS-DIGEST.json`: readable, and one per failure (the digest of the signature tells them apart).
    private func path(file: String, faults: FaultClass, signature: String) -> String {
        let stem = file.hasSuffix(".scn") ? String(file.dropLast(4)) : file
        return "\(directory)/\(stem)-\(faults.rawValue)-\(Trace.digest(of: signature).prefix(16)).json"
    }

    static func baseName(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }
}
