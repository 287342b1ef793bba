import ArgumentParser
import Foundation
import Reports
import Scenario
import Swarm
import SystemKit

/// `workbench swarm FILE --schedule F.json`: one run again from its written faults (a failing mutant of
/// `--explore`), checked against the digest it had.
struct SwarmScheduleReplay {
    let file: String
    let schedule: String

    func run(json: String?, report: String?) throws {
        guard let script = try SwarmScripts.load([file]).first else { return }
        let written = try commandLine { try SwarmSchedule.read(schedule, for: file) }
        let swarm = SwarmRunner(runner: SwarmScripts.runner, options: SwarmOptions(faults: written.faultClass))
        let result = swarm.run(script, seed: written.seed, faults: written.faults)
        let run = SwarmRun(result)
        let name = "seed \(written.seed)" + (written.mutant.map { " mutant \($0.number)" } ?? "")
        if let json {
            let out = SwarmResult(files: [file], seeds: String(written.seed), faults: written.faultClass, shard: nil, runs: [run], wallSeconds: 0)
            try out.jsonText.write(toFile: json, atomically: true, encoding: .utf8)
        }
        if let report {
            try TimelineReport(results: [result], systemEvents: Catalog.timelineEvents).html.write(toFile: report, atomically: true, encoding: .utf8)
        }
        let same = run.digest == written.digest
        let verdict =
            same
            ? "the same as the swarm's run" : "the swarm's run had \(written.digest.prefix(16))…: the code or the file changed since"
        print(
            "\(!run.passed ? "FAIL" : same ? "PASS" : "NOT REPRODUCED") \(file) \(name) replayed from \(schedule) (\(written.faults.count) fault\(written.faults.count == 1 ? "" : "s")): "
                + (run.failure ?? "passed") + ", digest \(run.digest.prefix(16))… (\(verdict))")
        if let mutant = written.mutant { print("    " + mutant.origin) }
        print("    swarm options: \(swarm.options)")
        if !run.passed || !same { throw ExitStatus.checkFailed }
    }
}
