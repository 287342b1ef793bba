import ArgumentParser
import Foundation
import Scenario
import Swarm
import SystemKit

/// `workbench swarm --planted NAME|all`: the swarm's power measured on the bugs the systems can be made to have
/// (``Catalog/plantedBugs``), each hunted alone by ``PlantedBugHunt``.
struct SwarmPlanted {
    /// The workload `--planted` runs when no file is given.
    static let defaultWorkload = "Simulations/ecosystem-swarm.scn"
    /// The seeds `--planted` tries when no `--seeds` is given: a bug not found within them is a failure of the swarm.
    static let defaultSeeds = "1..2000"

    let entries: [PlantedBugEntry]

    /// - parameter name: a planted bug's name, or `all`.
    /// - throws: `ValidationError` naming the unknown bug, the nearest name and every name.
    init(_ name: String) throws {
        let all = Catalog.plantedBugs
        if name == "all" {
            entries = all
        } else if let entry = all.first(where: { $0.name == name }) {
            entries = [entry]
        } else {
            throw ValidationError(
                "--planted \(name): no such planted bug\(didYouMean(name, among: all.map(\.name))); expected all, list or one of: "
                    + all.map(\.name).joined(separator: ", "))
        }
    }

    /// A workload of the repository (`Simulations/…`), found beside the `Fixtures/` folder, or as given when not found.
    static func workloadPath(_ workload: String) -> String {
        guard let fixtures = Fixtures.directory else { return workload }
        let path = URL(fileURLWithPath: fixtures).deletingLastPathComponent().appendingPathComponent(workload).path
        return FileManager.default.fileExists(atPath: path) ? path : workload
    }

    /// Hunts every bug over `seeds` of `files` (with `explore`, a share of the runs spent on mutants), printing a line
    /// per bug and the table; exit status 1 if one was not found. Without files, each bug's hunt runs its own workload
    /// (``PlantedBugEntry/workload``), or the default one.
    func run(files given: [String], seeds: String, faults: FaultClass, mix: SwarmMix.Mode = .fixed, explore: Double?, json: String?) throws {
        func files(of entry: PlantedBugEntry) -> [String] { given.isEmpty ? [Self.workloadPath(entry.workload ?? Self.defaultWorkload)] : given }
        var loaded: [[String]: [Script]] = [:]
        let range = try commandLine { try SeedRange(seeds) }
        let hunt = PlantedBugHunt(runner: SwarmScripts.runner, options: SwarmOptions(faults: faults, mix: mix))
        let started = ContinuousClock.now
        var findings: [PlantedBugHunt.Finding] = []
        var used: [String] = []
        for entry in entries {
            let files = files(of: entry)
            let scripts = try loaded[files] ?? SwarmScripts.load(files)
            loaded[files] = scripts
            used += files.filter { !used.contains($0) }
            let finding = try commandLine { try hunt.hunt(entry, scripts: scripts, seeds: range.seeds, explore: explore) }
            print(Self.line(finding, summary: entry.summary, files: files))
            findings.append(finding)
        }
        let wall = ContinuousClock.now - started
        let report = PlantedBugReport(
            planted: findings, files: used, seeds: seeds, faults: faults, wallSeconds: Double(wall.nanosecondsValue) / 1e9,
            explore: explore)
        if let json { try report.jsonText.write(toFile: json, atomically: true, encoding: .utf8) }
        print(report.table)
        let missed = findings.filter { !$0.found }
        print(
            "\(missed.isEmpty ? "PASS" : "FAIL") planted: \(findings.count - missed.count) of \(findings.count) bug\(findings.count == 1 ? "" : "s") found "
                + "within seeds \(seeds)" + (explore.map { " (--explore, share \($0): as many runs, part of them mutants)" } ?? "")
                + ", faults \(faults.rawValue)\(mix == .drawn ? ", each seed drawing its mix" : ""), \(String(format: "%.1f", report.wallSeconds)) s wall"
        )
        if !missed.isEmpty { throw ExitStatus.checkFailed }
    }

    /// How many of the seeds that failed without the bug a hunt's line names.
    static let skippedShown = 10

    /// What one hunt found, with the faults that shrinking kept.
    static func line(_ finding: PlantedBugHunt.Finding, summary: String, files: [String]) -> String {
        var text = "\(finding.name) (\(finding.system): \(summary)): "
        if finding.found {
            text +=
                "found by \(finding.run ?? "-") (\(finding.seedsToFind) seed\(finding.seedsToFind == 1 ? "" : "s"), "
                + "\(finding.runsToFind) run\(finding.runsToFind == 1 ? "" : "s")): \(finding.failure ?? "")"
            text += "\n    shrunk to \(finding.shrunkFaults ?? 0) of \(finding.faults ?? 0) faults"
            for line in finding.shrunk ?? [] { text += "\n      \(line)" }
        } else {
            text += "NOT FOUND in \(finding.seedsToFind) seeds (\(finding.runsToFind) runs)"
        }
        let skipped = finding.failingWithoutBug
        if !skipped.isEmpty {
            let shown = skipped.prefix(Self.skippedShown).map(String.init).joined(separator: ", ")
            text +=
                "\n    \(skipped.count) seed\(skipped.count == 1 ? "" : "s") that fail without the bug too (skipped): \(shown)"
                + (skipped.count > Self.skippedShown ? ", … (--json lists them all)" : "")
            // Every run failed on its own: no hunt took place, and the reason is the workload's, not the bug's.
            if !finding.found, skipped.count == finding.seedsToFind {
                text +=
                    "\n    every seed failed without the bug, so nothing was hunted: "
                    + (Fixtures.directory == nil
                        ? "no Fixtures/ folder (with tls/ca.pem) was found for the actors' keys: run from the repository, or set WORKBENCH_FIXTURES"
                        : "`workbench swarm \(files.joined(separator: " ")) --seeds \(skipped[0])` shows why")
            }
        }
        return text
    }
}
