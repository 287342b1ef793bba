import Foundation
import Testing
@testable import Workbench

/// Paths of the built `workbench` binary and the repository, found from the test bundle and this file.
enum Paths {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("workbench")

    /// Runs the binary; returns exit status and standard output.
    static func run(_ arguments: [String], input: String? = nil) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = repository
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

@Suite(.serialized) struct WorkbenchCommandTests {
    @Test func runGivesTheSameDigestFromTwoProcesses() throws {
        let files = ["run", "Simulations/tour.scn", "Simulations/kernel-faults.scn", "--seed", "9"]
        let (status1, out1) = try Paths.run(files)
        let (status2, out2) = try Paths.run(files)
        #expect(status1 == 0 && status2 == 0)
        let last1 = out1.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last1.hasPrefix("PASS 2 scenarios"))
        #expect(last1.contains("digest "))
        #expect(last1 == out2.split(separator: "\n").last.map(String.init))
    }

    @Test func malformedScenarioRunsNothingAndNamesTheColumn() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(getpid()).scn")
        try "start echo\nlink phone -> echo latency soon\n".write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = Paths.binary
        process.arguments = ["run", file.path]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2)
        #expect(text.contains("\(file.path):2:28: error: expected a delay like 20ms from 0 to 24h, found 'soon'"))
    }

    @Test func failingScenarioPrintsTheReproducingCommand() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fail-\(getpid()).scn")
        try "start echo\nhttp GET http://echo/ as r\nexpect ${r.status} == 500\n".write(to: file, atomically: true, encoding: .utf8)
        let (status, out) = try Paths.run(["run", file.path, "--seed", "4"])
        #expect(status == 1)
        #expect(out.contains("reproduce: workbench run \(file.path) --seed 4"))
        #expect(out.split(separator: "\n").last?.hasPrefix("FAIL 1 scenario, 1 expectations (1 failed), seed 4, digest ") == true)
    }

    @Test func consoleReadsPipedInput() throws {
        let (status, out) = try Paths.run([], input: "start echo\nhttp GET http://echo/ as r\nexpect ${r.status} == 200\nhelp advance\n")
        #expect(status == 0)
        #expect(out.contains("ok expect ${r.status} == 200"))
        #expect(out.contains("advance DURATION"))
        let (failed, _) = try Paths.run([], input: "expect 1 == 2\n")
        #expect(failed == 1)
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
        #expect(lines.all.contains { $0.contains("error: expected a duration like 250ms or 2s, found 'soon' (at most 87600h, ten years) (column 9)") })
    }
}

final class LinesBox: @unchecked Sendable {
    // @unchecked Sendable: written and read from the test's one thread.
    var all: [String] = []
    func append(_ line: String) { all.append(line) }
}
