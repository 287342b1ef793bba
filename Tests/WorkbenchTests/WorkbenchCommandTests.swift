import Foundation
import Scenario
import TestSupport
import Testing

@testable import SystemKit
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
        #expect(readme.contains("```scn\n" + file + "```\n"), "README.md must show Simulations/readme-day.scn exactly (CI runs the file)")
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

    /// The console runs lines through the runner's executor, so it makes the runner's checks too: here the recovery
    /// deadline of `after heal`, which the console used to skip.
    @Test func theConsoleHoldsTheWorldToTheRecoveryDeadlineAsRunDoes() {
        let lines = LinesBox()
        let session = ConsoleSession(seed: 1, write: { lines.append($0) })
        #expect(session.handle("after heal within 1s") == .proceed)
        #expect(session.handle("advance 500ms") == .proceed)
        #expect(session.handle("advance 1s") == .failed(ExitStatus.checkFailed))
        #expect(
            lines.all.last
                == "error: the world did not recover: this step ended more than 1s after 'after heal' (line 1), "
                + "the virtual time the rest of the run was given")
    }

    @Test func aStoppedActorIsRestartedOnItsNodeWithItsOptions() {
        let lines = LinesBox()
        let session = ConsoleSession(seed: 1, write: { lines.append($0) })
        for line in [
            "start echo", "stop echo", "restart echo", "http GET http://echo/ as r", "expect ${r.status} == 200", "expect trace restarted actor=echo",
        ] {
            #expect(session.handle(line) == .proceed, "\(line): \(lines.all.last ?? "")")
        }
        #expect(session.handle("restart nobody") == .failed(ExitStatus.scenarioWrong))
    }

    @Test func expectRequestsCountsWhatAnActorAnswered() {
        let lines = LinesBox()
        let session = ConsoleSession(seed: 1, write: { lines.append($0) })
        for line in [
            "start echo", "http GET http://echo/ as r", "expect requests echo \"GET /\" count == 1", "expect requests echo status 200 count >= 1",
        ] {
            #expect(session.handle(line) == .proceed, "\(line): \(lines.all.last ?? "")")
        }
        #expect(session.handle("expect requests echo POST count >= 1") == .failed(ExitStatus.checkFailed))
        #expect(lines.all.last?.contains("expected echo POST count >= 1, found 0") == true, "\(lines.all.last ?? "")")
    }

    @Test func syntaxErrorsPointAtTheColumn() {
        let lines = LinesBox()
        let session = ConsoleSession(seed: 1, write: { lines.append($0) })
        _ = session.handle("advance soon")
        #expect(
            lines.all.contains { $0.contains("error: expected a duration like 250ms or 2s, found 'soon' (at most 87600h, ten years) (column 9)") })
    }

    @Test func aUnitPeopleWriteSuggestsTheLanguagesOwn() {
        let lines = LinesBox()
        let session = ConsoleSession(seed: 1, write: { lines.append($0) })
        #expect(session.handle("advance 5min") == .failed(ExitStatus.scenarioWrong))
        #expect(lines.all.last?.hasPrefix("error: expected a duration like 250ms or 2s, found '5min' (did you mean '5m'?) (column 9)") == true)
        #expect(DurationParser.suggestion(for: "1hour30mins") == "1h30m")
        #expect(DurationParser.suggestion(for: "5m") == nil, "a duration needs no suggestion")
        #expect(DurationParser.suggestion(for: "soon") == nil)
    }

    @Test func showActorsListsTheStartedOnesWithKindAndHost() {
        let lines = LinesBox()
        let session = ConsoleSession(seed: 1, write: { lines.append($0) })
        #expect(session.handle("show actors") == .proceed)
        #expect(lines.all.last == "no actor started yet ('start KIND' starts one; 'help start' lists the kinds)")
        #expect(session.handle("start echo") == .proceed)
        #expect(session.handle("start echo as mirror on backup") == .proceed)
        #expect(session.handle("show actors") == .proceed)
        #expect(lines.all.last == "echo    echo  on echo\nmirror  echo  on backup")
        #expect(session.handle("stop mirror") == .proceed)
        #expect(session.handle("show actors") == .proceed)
        #expect(lines.all.last == "echo  echo  on echo")
    }

    @Test func aSecondStartOfARunningActorIsRefusedBeforeItRuns() {
        let lines = LinesBox()
        let session = ConsoleSession(seed: 1, write: { lines.append($0) })
        #expect(session.handle("start echo") == .proceed)
        #expect(session.handle("start echo") == .failed(ExitStatus.scenarioWrong))
        #expect(lines.all.last?.hasPrefix("error: an actor named 'echo' is already started: it is running; expected 'stop echo' before") == true)
    }
}

final class LinesBox: @unchecked Sendable {
    // @unchecked Sendable: written and read from the test's one thread.
    var all: [String] = []
    func append(_ line: String) { all.append(line) }
}

/// `rewind` goes back by replaying the lines so far under the same seed; `history` lists what it replays.
@Suite struct ConsoleRewindTests {
    static let session = [
        "start echo", "link phone <-> echo latency 40ms", "http GET http://echo/ as r", "advance 1h",
        "fault echo.unavailable once", "http GET http://echo/ as r2",
    ]

    /// A console that has run `lines`, and what it printed.
    static func console(_ lines: [String]) -> (ConsoleSession, LinesBox) {
        let printed = LinesBox()
        let session = ConsoleSession(seed: 7, write: { printed.append($0) })
        for line in lines { #expect(session.handle(line) == .proceed, "\(line): \(printed.all.last ?? "")") }
        return (session, printed)
    }

    @Test func rewindingToAnEventGivesTheWorldAsItWasThen() {
        let (before, _) = Self.console(Array(Self.session.prefix(3)))
        let (session, printed) = Self.console(Self.session)
        #expect(session.kernel.trace.count > before.kernel.trace.count)
        #expect(session.handle("rewind \(before.kernel.trace.count)") == .proceed)
        #expect(session.kernel.trace.digest == before.kernel.trace.digest)
        #expect(session.kernel.now == before.kernel.now)
        #expect(session.played.map(\.text) == Array(Self.session.prefix(3)))
        #expect(printed.all.last?.hasPrefix("rewound to t=160ms, event #\(before.kernel.trace.count): replayed 3") == true)
        // The world goes on from there: the fault of line 5 is gone, so the echo answers.
        #expect(session.handle("http GET http://echo/ as again") == .proceed)
        #expect(session.context.variables["again.status"] == "200")
    }

    @Test func anEventInsideALineGoesBackToJustBeforeIt() {
        let (session, printed) = Self.console(Self.session)
        let inside = session.played[2]
        #expect(inside.lastEvent > inside.firstEvent)
        #expect(session.handle("rewind \(inside.firstEvent + 1)") == .proceed)
        #expect(session.played.count == 2)
        #expect(printed.all.contains { $0.contains("was recorded during line 3 (http GET http://echo/ as r)") })
    }

    @Test func rewindingToATimeReplaysFinishedLinesThenAdvances() {
        let (session, printed) = Self.console(Self.session)
        #expect(session.handle("rewind to 30m") == .proceed)
        #expect(session.kernel.now == .seconds(1800))
        #expect(session.played.map(\.text) == Array(Self.session.prefix(3)) + ["advance 29m59.84s"])
        #expect(printed.all.last?.contains("then advance 29m59.84s") == true)
        // A branch is replayable too: going back within it reaches the same world again.
        #expect(session.handle("http GET http://echo/ as branch") == .proceed)
        let branch = (session.kernel.trace.digest, session.kernel.trace.count)
        #expect(session.handle("rewind \(branch.1)") == .proceed)
        #expect(session.kernel.trace.digest == branch.0)
        #expect(!printed.all.contains { $0.contains("diverged") })
    }

    @Test func historyListsTheLinesThatActedWithTheirEvents() {
        let (session, printed) = Self.console(Self.session + ["help rewind", "show trace 2", "digest"])
        #expect(session.handle("history") == .proceed)
        let history = printed.all.last ?? ""
        #expect(history.split(separator: "\n").count == Self.session.count, "help, show and digest are not replayed: \(history)")
        #expect(history.contains("line 4  t=160ms–1h0m0.16s  event #"))
        #expect(printed.all.contains { $0.hasPrefix("#\(session.kernel.trace.count - 1) {") }, "show trace numbers its events")
    }

    @Test func historyNumbersLinesAsTypedAndSaysWhatTheConsoleWroteForOne() {
        let (session, printed) = Self.console(Self.session)
        #expect(session.handle("rewind to 30m") == .proceed)
        #expect(session.handle("history") == .proceed)
        let history = (printed.all.last ?? "").split(separator: "\n").map(String.init)
        #expect(history.map { $0.split(separator: " ").dropFirst().first.map(String.init) ?? "" } == ["1", "2", "3", "7"], "\(history)")
        #expect(history.last?.hasSuffix("advance 29m59.84s  (for 'rewind to 30m')") == true, "\(history)")
    }

    /// A line's number is its place in the input: console commands, comments, blank and refused lines count too,
    /// though only the lines that acted on the world are listed.
    @Test func historyNumbersEachLineByWhenItWasTyped() {
        let printed = LinesBox()
        let session = ConsoleSession(seed: 7, write: { printed.append($0) })
        let typed: [(String, ConsoleSession.Outcome)] = [
            ("help", .proceed), ("bogus line", .failed(ExitStatus.scenarioWrong)), ("start echo", .proceed), ("", .proceed),
            ("# a note", .proceed), ("show vars", .proceed), ("http GET http://echo/ as r", .proceed), ("digest", .proceed),
            ("advance 1s", .proceed),
        ]
        for (line, outcome) in typed { #expect(session.handle(line) == outcome, "\(line): \(printed.all.last ?? "")") }
        #expect(session.handle("history") == .proceed)
        let numbers = (printed.all.last ?? "").split(separator: "\n").map { $0.split(separator: " ").dropFirst().first.map(String.init) ?? "" }
        #expect(numbers == ["3", "7", "9"], "\(printed.all.last ?? "")")
        #expect(printed.all.last?.split(separator: "\n").first?.hasSuffix("start echo") == true)
    }

    @Test func aWrongRewindIsRefusedAndChangesNothing() {
        let (session, printed) = Self.console(Self.session)
        let digest = session.kernel.trace.digest
        for (line, message) in [
            ("rewind", "usage: rewind N"), ("rewind soon", "expected an event number"), ("rewind 99999", "there is no event #99999"),
            ("rewind to 5h", "is after now"), ("rewind to later", "expected a virtual time"),
        ] {
            #expect(session.handle(line) == .failed(ExitStatus.scenarioWrong))
            #expect(printed.all.last?.contains(message) == true, "\(line): \(printed.all.last ?? "")")
        }
        #expect(session.kernel.trace.digest == digest)
    }
}
