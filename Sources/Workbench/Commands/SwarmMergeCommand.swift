import ArgumentParser
import Foundation
import Swarm
import SystemKit

/// `workbench swarm merge`: one summary (and JUnit/JSON) from the results of several shards.
struct SwarmMergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Combine the JSON results of swarm shards into one summary, JUnit and JSON file.",
        discussion: "Shards must have run the same files with the same faults. A seed present in two shards must have the same digest in both.")

    @Argument(help: "JSON files written by `workbench swarm … --json`.")
    var results: [String]

    @OptionGroup var junit: JUnitOption

    @Option(help: "Write the merged results as JSON here.")
    var json: String?

    @OptionGroup var reach: RequireReachOption

    func run() throws {
        var parts: [SwarmResult] = []
        for path in results {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw ExitStatus.inputWrong("\(path): cannot read the file") }
            parts.append(try commandLine { try SwarmResult.decode(text, source: path) })
        }
        let merged = try commandLine { try SwarmResult.merge(parts) }.requiringReach(reach.required)
        let failures = SwarmFailurePrinter(options: merged.options)
        for run in merged.failed { failures.print(run) }
        if let file = junit.file { try merged.junitXML.write(toFile: file, atomically: true, encoding: .utf8) }
        if let json { try merged.jsonText.write(toFile: json, atomically: true, encoding: .utf8) }
        print(merged.reachTable, terminator: "")
        print(merged.summary + " (merged from \(parts.count) result file\(parts.count == 1 ? "" : "s"))")
        if !merged.passed { throw ExitStatus.checkFailed }
    }
}
