import Foundation
import Scenario
import TestSupport
import Testing

@testable import SystemKit
@testable import Workbench

/// Mistakes a new user makes never run green: each is refused before anything runs (exit 2, with line, column and
/// the nearest real name), or fails the run with its reason (exit 1).
@Suite(.serialized) struct MistakenInputTests {
    /// The exit statuses of docs/scenario-language.md ("Exit statuses"), by case: the scenario text, the status, and what the output must say.
    static let cases: [(name: String, text: String, status: Int32, says: String)] = [
        (
            "fault point typo", "start mig\nfault mig.ofline on\nmig print bytes 1000 as p\n", 2,
            ":2:7: error: no fault point 'mig.ofline' (did you mean 'mig.offline'?)"
        ),
        (
            "unknown node", "start mig\npartition phone <-> printhost\nmig print bytes 1000 as p\n", 2,
            ":2:21: error: no node 'printhost'; its nodes: mig, phone"
        ),
        (
            "negative advance", "start echo\nadvance -5s\n", 2,
            ":2:9: error: expected a duration like 250ms or 2s, found '-5s': a duration cannot be negative"
        ),
        (
            "typos inside later", "start mig\nlater 1s fault mig.ofline on\nlater 2s partition phone <-> mgi for 1s\nmig print bytes 1000 as p\n", 2,
            ":3:30: error: no node 'mgi' (did you mean 'mig'?)"
        ),
        ("unknown system", "start mig\nfault printer.offline on\n", 2, "no system's points start with 'printer.'"),
        (
            "option value", "start ivanti version=curent\n", 2,
            ":1:14: error: ivanti: option version=curent: expected current, old, missing (did you mean 'current'?)"
        ),
        ("missing key file", "start ims-signer key=/no/such/host.key\n", 2, "option key=/no/such/host.key: no readable file at /no/such/host.key"),
        (
            "stale field", "start mig\nmig print bytes 1000 as p\nmig alive as p\nexpect ${p.job} == 1\n", 1,
            "${p.job}: 'p' was last bound by line 3 (mig alive as p), which gives no 'job'"
        ),
        (
            "missing file", "start mig\nmig print file no-such-document.pdf as p\n", 2,
            ":2:16: error: no file 'no-such-document.pdf': looked for \(FileManager.default.temporaryDirectory.standardizedFileURL.path)/no-such-document.pdf and "
        ),
        (
            "keyword typo", "start mig\nmig relase 1\n", 2,
            ":2:5: error: expected one of print, replay, wait, job, cancel, hold, release, alive, found 'relase'"
        ),
        ("keyword typo, did you mean", "start mig\nmig relase 1\n", 2, "found 'relase' (did you mean 'release'?)"),
        (
            "new option's value", "start mig anonymous-discovery=ture\n", 2,
            ":1:11: error: mig: option anonymous-discovery=ture: expected true or false"
        ),
        (
            "hold-by-default's value", "start mig hold-by-default=always\n", 2,
            ":1:11: error: mig: option hold-by-default=always: expected true or false"
        ),
        ("new fault point typo", "start mig\nfault mig.document-format-eror once\n", 2, "(did you mean 'mig.document-format-error'?)"),
        (
            "number-up out of range", "start mig\nmig print bytes 1000 number-up 0 as p\n", 2,
            ":2:32: error: expected pages per side, e.g. 2, a whole number from 1 to 2147483647, found '0'"
        ),
        (
            "document smaller than a PDF", "start mig\nmig print bytes 100 as p\n", 2,
            ":2:17: error: bytes 100: a generated PDF takes at least 806 bytes (bytes 0 sends no document)"
        ),
        (
            "attribute set typo", "start mig\nmig print bytes 1000 attributes orignal as p\n", 2,
            ":2:33: error: expected one of complete, original, found 'orignal' (did you mean 'original'?)"
        ),
        (
            "field typo", "start mig\nmig print bytes 1000 as p\nexpect ${p.jbo} == 1\n", 2,
            ":3:8: error: ${p.jbo}: 'p' was last bound by line 2 (mig print bytes 1000 as p), which gives no 'jbo' (did you mean 'job'?)"
        ),
        ("unknown actor", "start scpms as sap\nscpms add-user alice pw\n", 2, ":2:1: error: no actor 'scpms'; its actors: sap"),
        (
            "scpms field typo", "start scpms\nscpms launch\nscpms start-session user demo password demo as s\nexpect ${s.stauts} == ok\n", 2,
            ":4:8: error: ${s.stauts}: 's' was last bound by line 3 (scpms start-session user demo password demo as s), which gives no 'stauts' "
                + "(did you mean 'status'?)"
        ),
        (
            "ims field typo", "start ims-signer\nstart ims\nims start-session alice as e\nexpect ${e.eror} == \"\"\n", 2,
            ":4:8: error: ${e.eror}: 'e' was last bound by line 3 (ims start-session alice as e), which gives no 'eror' (did you mean 'error'?)"
        ),
        (
            "ims option of another call", "start ims-signer\nstart ims\nims register-certificate token abc\n", 2,
            ":3:26: error: 'token' does not apply to 'ims register-certificate'"
        ),
        (
            "ims result field of another call", "start ims-signer\nstart ims\nims enrol alice as e\nexpect ${e.jti} == x\n", 2,
            ":4:8: error: ${e.jti}: 'e' was last bound by line 3 (ims enrol alice as e), which gives no 'jti'"
        ),
        (
            "ssh field typo", "start sunfire\nssh \"lpq -P psts\" as x\nexpect ${x.exti} == 0\n", 2,
            ":3:8: error: ${x.exti}: 'x' was last bound by line 2 (ssh \"lpq -P psts\" as x), which gives no 'exti' (did you mean 'exit'?)"
        ),
        ("crash of a misspelt actor, later", "start mig\nlater 1s crash mgi for 5s\n", 2, ":2:16: error: no actor 'mgi' (did you mean 'mig'?)"),
        (
            "a power cut without its write", "start mig\ncrash mig at 3\n", 2,
            ":2:14: error: expected 'write' after 'at' (crash NAME at write N), found '3'"
        ),
        (
            "a power cut at a misspelt write", "start mig\ncrash mig at wrte 3\n", 2,
            ":2:14: error: expected 'write' after 'at' (crash NAME at write N), found 'wrte' (did you mean 'write'?)"
        ),
        (
            "a power cut before any write", "start mig\ncrash mig at write 0\n", 2,
            ":2:20: error: expected the disk write the power is cut during, a whole number from 1 to 1000000, found '0'"
        ),
        (
            "a fault that lasts no time", "start mig\ncrash mig for 0s\n", 2,
            ":2:15: error: expected a duration like 250ms or 2s, found '0s': it must last longer than 0s"
        ),
        (
            "a misspelt disk fault", "start mig\nfault disk.fsnyc-lie on\n", 2,
            ":2:7: error: no fault point 'disk.fsnyc-lie' (did you mean 'disk.fsync-lie'?)"
        ),
        (
            "name never bound", "start mig\nmig print bytes 1000 as p\nexpect ${q.status} == ok\n", 2,
            ":3:8: error: ${q.status}: no line before this one binds 'q'"
        ),
        (
            "refused SSH login fills .error", "start sunfire\nssh \"lpq -P psts\" password wrong as s\nexpect ${s.error} == \"\"\n", 1,
            "actual \"sunfire:22 refused the password of demo (check the user and password)\""
        ),
    ]

    @Test(arguments: 0..<cases.count) func isRefusedWithItsReason(_ index: Int) throws {
        let mistake = Self.cases[index]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mistake-\(getpid())-\(index).scn")
        defer { try? FileManager.default.removeItem(at: file) }
        try mistake.text.write(to: file, atomically: true, encoding: .utf8)
        let run = try WorkbenchBinary.run(["run", file.path])
        #expect(run.status == mistake.status, "\(mistake.name): \(run.output)")
        #expect(run.output.contains(mistake.says), "\(mistake.name): \(run.output)")
        if mistake.status == 2 { #expect(run.stdout.contains("nothing was run"), "\(mistake.name)") }
    }

    @Test func aFileIsFoundNextToTheScenarioElseInFixtures() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("paths-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let local = TestDocuments.pdf(pages: 1)
        try Data(local).write(to: folder.appendingPathComponent("local.pdf"))
        try
            "start mig\nmig print file local.pdf as here\nexpect ${here.bytes} == \(local.count)\nsocprint open documents/handout-8.pdf as fixture\nexpect ${fixture.status} == opened\n"
            .write(to: folder.appendingPathComponent("paths.scn"), atomically: true, encoding: .utf8)
        let run = try WorkbenchBinary.run(["run", folder.appendingPathComponent("paths.scn").path])
        #expect(run.status == 0, "\(run.output)")
    }

    @Test func aFaultThatCanNeverFireIsRefusedWithOrWithoutStrict() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("strict-\(getpid()).scn")
        defer { try? FileManager.default.removeItem(at: file) }
        try "start echo\nfault ims.unavailable on\n".write(to: file, atomically: true, encoding: .utf8)
        for flags in [[], ["--strict"]] {
            let run = try WorkbenchBinary.run(["run", file.path] + flags)
            #expect(run.status == 2, "\(flags)")
            #expect(run.stderr.contains(":2:7: error: fault point 'ims.unavailable' can never fire: only 'ims' checks it"), "\(run.output)")
        }
        try "start ims-signer\nstart ims\nfault ims.unavailable on\n".write(to: file, atomically: true, encoding: .utf8)
        #expect(try WorkbenchBinary.run(["run", file.path]).status == 0)
    }

    @Test func aFolderRunsTheScenariosInItInNameOrder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("folder-\(getpid())")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("inner"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["b.scn", "a.scn", "inner/c.scn"] {
            try "advance 1s\n".write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try "not a scenario".write(to: folder.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        let run = try WorkbenchBinary.run(["run", folder.path])
        #expect(run.status == 0, "\(run.output)")
        let ran = run.stdout.split(separator: "\n").filter { $0.hasPrefix("ok ") }.map { $0.split(separator: " ")[1] }
        #expect(ran == ["\(folder.path)/a.scn:", "\(folder.path)/b.scn:"], "\(run.stdout)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("empty"), withIntermediateDirectories: true)
        let none = try WorkbenchBinary.run(["run", folder.appendingPathComponent("empty").path])
        #expect(none.status == 2)
        #expect(none.stderr.contains("empty: error: a folder with no .scn file in it"), "\(none.output)")
    }

    @Test func pipedConsoleStopsAtTheFirstFailingLine() throws {
        let wrong = try WorkbenchBinary.run([], input: "start echo\nbogus line\nprint reached\n")
        #expect(wrong.status == 2)
        #expect(!wrong.stdout.contains("reached"))
        #expect(wrong.stdout.contains("error: unknown directive 'bogus'"))
        #expect(wrong.stderr.contains("stopped at line 2 of the input (exit 2)"))
        let failed = try WorkbenchBinary.run([], input: "start echo\nhttp GET http://echo/ as r\nexpect ${r.status} == 500\nprint reached\n")
        #expect(failed.status == 1)
        #expect(!failed.stdout.contains("reached"))
        let help = try WorkbenchBinary.run([], input: "help advnace\n")
        #expect(help.status == 2)
        #expect(help.stdout.contains("no help for 'advnace' (did you mean 'advance'?)"))
    }

    @Test func serveChecksAnOptionValueBeforeAnythingListens() throws {
        let run = try WorkbenchBinary.run(["serve", "--set", "mig.ppm=0"], timeout: 60)
        #expect(run.status == 64)
        #expect(run.stderr.contains("--set mig.ppm=0: mig: option ppm=0: expected a whole number 1…100000"), "\(run.output)")
    }

    @Test func verifyDeterminismSaysWhatItVerified() throws {
        let run = try WorkbenchBinary.run(["run", "Simulations/kernel-faults.scn", "--verify-determinism"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("deterministic Simulations/kernel-faults.scn: 2 runs, same digest "), "\(run.stdout)")
    }
}

@Suite struct ConsoleChecksTests {
    @Test func theCaretSitsUnderTheColumnWhateverThePrompt() {
        let lines = LinesBox()
        let session = ConsoleSession(seed: 1, write: { lines.append($0) })
        #expect(session.handle("start echo") == .proceed)
        #expect(session.handle("partition phone <-> ecoh") == .failed(ExitStatus.scenarioWrong))
        let shown = lines.all.last ?? ""
        #expect(
            shown
                == "error: no node 'ecoh' (did you mean 'echo'?); its nodes: echo, phone (column 21)\n  partition phone <-> ecoh\n                      ^"
        )
    }

    @Test func laterAndSpawnAreInHelpAndCompletionKnowsPointsAndNodes() throws {
        let session = ConsoleSession(seed: 1, write: { _ in })
        let overview = try session.help(nil).get()
        #expect(overview.contains("  later ") && overview.contains("  spawn "))
        #expect(try session.help("later").get().hasPrefix("later DURATION DIRECTIVE…"))
        #expect(session.complete(line: "fault mig.of", cursor: 12).candidates == ["mig.offline"])
        #expect(session.complete(line: "later 2s fault ims.", cursor: 19).candidates == ["ims.unavailable"])
        _ = session.handle("start echo")
        #expect(session.complete(line: "partition phone <-> ec", cursor: 22).candidates == ["echo"])
        _ = session.handle("http GET http://echo/ as r")
        #expect(session.complete(line: "expect ${r.st", cursor: 13).candidates == ["${r.status}"])
    }

    /// The console refuses a misspelt trace event as a file does; `help expect` lists the events, and completion offers
    /// them after `trace`.
    @Test func traceEventsAreCheckedListedAndCompleted() throws {
        let lines = LinesBox()
        let session = ConsoleSession(seed: 1, write: { lines.append($0) })
        #expect(session.handle("start echo") == .proceed)
        #expect(session.handle("expect no trace job-complete") == .failed(ExitStatus.scenarioWrong))
        #expect((lines.all.last ?? "").hasPrefix("error: no trace event 'job-complete' (did you mean 'job-completed'?); "), "\(lines.all)")
        #expect(session.handle("expect trace started by echo") == .proceed)
        let help = try session.help("expect").get()
        #expect(
            help.contains("trace events and their fields, with the values of closed ones (what 'trace EVENT FIELD=VALUE' may name):")
                && help.contains(" job-completed(job pages)")
                && help.contains(" partition("))
        #expect(session.complete(line: "wait until trace job-comp", cursor: 25).candidates == ["job-completed"])
        #expect(
            session.complete(line: "expect no trace mig-client-job-s", cursor: 32).candidates == ["mig-client-job-state", "mig-client-job-submitted"])
    }

    /// The console refuses a key the event does not carry as a file does, and completion offers the event's keys after it.
    @Test func traceFieldsAreCheckedAndCompleted() {
        let lines = LinesBox()
        let session = ConsoleSession(seed: 1, write: { lines.append($0) })
        #expect(session.handle("start mig") == .proceed)
        #expect(session.handle("expect no trace job-created by mig usr=secure") == .failed(ExitStatus.scenarioWrong))
        #expect(
            (lines.all.last ?? "").hasPrefix(
                "error: the trace event 'job-created' has no field 'usr' (did you mean 'user'?); its fields: format, job, user (column 36)"),
            "\(lines.all)")
        #expect(session.handle("expect no trace job-created by mig user=secure") == .proceed)
        let keys = session.complete(line: "wait until trace job-created ", cursor: 29).candidates.filter { $0.hasSuffix("=") }
        #expect(keys == ["format=", "job=", "user="])
        #expect(session.complete(line: "expect trace http-response st", cursor: 29).candidates == ["status=", "streamed="])
    }

    /// A closed field's value is checked as a file checks it; `help expect` lists the values, completion offers them
    /// after `KEY=`.
    @Test func traceValuesAreCheckedListedAndCompleted() throws {
        let lines = LinesBox()
        let session = ConsoleSession(seed: 1, write: { lines.append($0) })
        #expect(session.handle("expect no trace mig-client-job-state state=complted") == .failed(ExitStatus.scenarioWrong))
        #expect(
            (lines.all.last ?? "").hasPrefix(
                "error: the trace event 'mig-client-job-state' never carries state=complted (did you mean 'completed'?); its state values: "
                    + "aborted, canceled, completed, pending, pending-held, processing, processing-stopped, unknown (column 44)"),
            "\(lines.all)")
        #expect(session.handle("expect no trace mig-client-job-state state=processing-stopped") == .proceed)
        let help = try session.help("expect").get()
        #expect(help.contains(" mig-client-job-state(job-id reasons state=aborted|canceled|completed|pending|"), "\(help)")
        #expect(
            session.complete(line: "wait until trace mig-client-job-state state=p", cursor: 45).candidates == [
                "state=pending", "state=pending-held", "state=processing", "state=processing-stopped",
            ])
        #expect(session.complete(line: "expect trace mig-client-job-state st", cursor: 36).candidates == ["state="])
    }

    /// A file's `expect trace … by NODE` is checked against the kinds it starts on that node: IMS's `started` carries no
    /// `ipp` (MiG's does), and a closed value is checked the same way.
    @Test func traceKeysByAStartedActorAreThoseOfItsKind() {
        func errors(_ text: String) -> [String] {
            Catalog.language.parse(file: "t.scn", text: text).1.map { "\($0.line):\($0.column) \($0.message)" }
        }
        #expect(
            errors("start ims\nexpect no trace started by ims ipp=1") == [
                "2:32 the trace event 'started' by 'ims' (which runs ims) has no field 'ipp'; its fields: certificates, leeway, port, scheme"
            ])
        #expect(errors("start mig\nexpect no trace started by mig ipp=1").isEmpty)
        #expect(
            errors("start ims\nexpect no trace job-created by ims").first?.hasPrefix(
                "2:17 no trace event 'job-created' by 'ims' (which runs ims); its events: ") == true)
        // The phone runs the clients of every system: the merged check.
        #expect(errors("start mig\nhttp GET http://mig:631/ as r\nexpect no trace started by phone ipp=1").isEmpty)
    }

    /// The console holds `by NODE` to the kinds the lines run so far started there, as a file is held to its `start` lines.
    @Test func theConsoleChecksTraceKeysByTheKindsItStarted() {
        let lines = LinesBox()
        let session = ConsoleSession(seed: 1, write: { lines.append($0) })
        #expect(session.handle("start mig") == .proceed)
        #expect(session.handle("expect no trace started by mig ipp=1") == .proceed)
        #expect(session.handle("start ims") == .proceed)
        #expect(session.handle("expect no trace started by ims ipp=1") == .failed(ExitStatus.scenarioWrong))
        #expect(
            (lines.all.last ?? "").hasPrefix(
                "error: the trace event 'started' by 'ims' (which runs ims) has no field 'ipp'; its fields: certificates, leeway, port, scheme (column 32)"
            ),
            "\(lines.all)")
        #expect(session.handle("expect no trace started by ims port=1") == .proceed)
        // An actor records as its node: its own name is refused with the node to write.
        #expect(session.handle("start echo as e1") == .proceed)
        #expect(session.handle("expect no trace stopped by e1") == .failed(ExitStatus.scenarioWrong))
        #expect(
            (lines.all.last ?? "").hasPrefix("error: the actor 'e1' records its trace events as its node 'echo': expected 'by echo' (column 28)"),
            "\(lines.all)")
        #expect(session.handle("expect no trace stopped by echo") == .proceed)
    }
}

/// The fault points a kind declares in the catalog are exactly those its actor checks, so the scenario checks can
/// neither refuse a real point nor accept one that never fires.
@Suite struct CatalogFaultPointTests {
    @Test(arguments: Catalog.actorKinds.map(\.name)) func declaredPointsAreTheActorsOwn(_ kind: String) throws {
        let session = ConsoleSession(seed: 1, write: { _ in })
        let options = ["echo": " planted-bug=true", "stub": " from=Fixtures/recordings/scpms-registration"][kind] ?? ""
        #expect(session.handle("start \(kind)\(options)") == .proceed)
        let declared = Set(session.kernel.faults.all.map(\.name))
        let catalogued = Set(try #require(Catalog.actorKinds.first { $0.name == kind }).faultPoints)
        #expect(declared == catalogued)
    }
}

/// Every directive that fails says why: no result of any scenario under Simulations/ has a failure status with an
/// empty `.error` (the scenarios exercise every directive's failures: refused logins, nil initializers, faults).
@Suite struct FailuresSayWhyTests {
    static let files =
        (try? FileManager.default.contentsOfDirectory(atPath: Repository.root.appendingPathComponent("Simulations").path))?
        .filter { $0.hasSuffix(".scn") }.sorted() ?? []

    @Test func theScenariosExist() { #expect(Self.files.count >= 40) }

    @Test(arguments: files) func everyFailedResultHasAnError(_ name: String) throws {
        let path = Repository.root.appendingPathComponent("Simulations/\(name)").path
        let (script, errors) = Catalog.language.parse(file: path, text: try String(contentsOfFile: path, encoding: .utf8))
        #expect(errors.isEmpty)
        let result = SwarmScripts.runner.run(script, seed: 1) { _ in }
        #expect(result.unexplainedFailures == [], "\(name)")
        #expect(result.undeclaredFields == [], "\(name): fields its directive did not declare")
    }
}
