import Foundation
import TestSupport
import Testing

@testable import Workbench

@Suite(.serialized) struct WorkbenchCommandTests {
    @Test func runGivesTheSameDigestFromTwoProcesses() throws {
        let files = ["run", "Simulations/tour.scn", "Simulations/kernel-faults.scn", "--seed", "9"]
        let first = try WorkbenchBinary.run(files)
        let second = try WorkbenchBinary.run(files)
        #expect(first.status == 0 && second.status == 0, "\(first.output)\n\(second.output)")
        let last1 = first.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last1.hasPrefix("PASS 2 scenarios"))
        #expect(last1.contains("digest "))
        #expect(last1 == second.stdout.split(separator: "\n").last.map(String.init))
    }

    @Test func malformedScenarioRunsNothingAndNamesTheColumn() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(getpid()).scn")
        try "start echo\nlink phone -> echo latency soon\n".write(to: file, atomically: true, encoding: .utf8)
        let run = try WorkbenchBinary.run(["run", file.path])
        #expect(run.status == 2)
        #expect(run.stderr.contains("\(file.path):2:28: error: expected a delay like 20ms from 0 to 24h, found 'soon'"), "\(run.stderr)")
    }

    @Test func failingScenarioPrintsTheReproducingCommand() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fail-\(getpid()).scn")
        try "start echo\nhttp GET http://echo/ as r\nexpect ${r.status} == 500\n".write(to: file, atomically: true, encoding: .utf8)
        let run = try WorkbenchBinary.run(["run", file.path, "--seed", "4"])
        #expect(run.status == 1)
        #expect(run.stdout.contains("reproduce: workbench run \(file.path) --seed 4"))
        #expect(run.stdout.split(separator: "\n").last?.hasPrefix("FAIL 1 scenario, 1 expectations (1 failed), seed 4, digest ") == true)
    }

    @Test func theReadmeShowsItsHeadlineScenarioWhole() throws {
        let readme = try String(contentsOf: Repository.root.appendingPathComponent("README.md"), encoding: .utf8)
        let file = try String(contentsOf: Repository.root.appendingPathComponent("Simulations/readme-day.scn"), encoding: .utf8)
        #expect(readme.contains("```text\n" + file + "```\n"), "README.md must show Simulations/readme-day.scn exactly (CI runs the file)")
    }

    @Test func consoleReadsPipedInput() throws {
        let run = try WorkbenchBinary.run([], input: "start echo\nhttp GET http://echo/ as r\nexpect ${r.status} == 200\nhelp advance\n")
        #expect(run.status == 0)
        #expect(run.stdout.contains("ok expect ${r.status} == 200"))
        #expect(run.stdout.contains("advance DURATION"))
        #expect(try WorkbenchBinary.run([], input: "expect 1 == 2\n").status == 1)
    }
}

@Suite struct ConsoleSessionTests {
    @Test func completionOffersDirectivesThenKeywordsAndKinds() {
        let session = ConsoleSession(seed: 1, write: { _ in })
        #expect(session.complete(line: "adv", cursor: 3).candidates == ["advance"])
        #expect(session.complete(line: "start ", cursor: 6).candidates.contains("echo"))
        #expect(session.complete(line: "link a -", cursor: 8).candidates.contains("->"))
    }

    @Test func syntaxErrorsPointAtTheColumn() {
        let lines = LinesBox()
        let session = ConsoleSession(seed: 1, write: { lines.append($0) })
        _ = session.handle("advance soon")
        #expect(
            lines.all.contains { $0.contains("error: expected a duration like 250ms or 2s, found 'soon' (at most 87600h, ten years) (column 9)") })
    }
}

final class LinesBox: @unchecked Sendable {
    // @unchecked Sendable: written and read from the test's one thread.
    var all: [String] = []
    func append(_ line: String) { all.append(line) }
}
