import Foundation
import Kernel
import Scenario
import TestSupport
import Testing
import Wire

@testable import IvantiSystem
@testable import MiGSystem
@testable import Swarm
@testable import SystemKit
@testable import Workbench

/// The swarm's power on the systems' planted bugs (`workbench swarm --planted`), the switch that keeps them off, and
/// the failing-seed corpus (`--corpus`).
@Suite(.serialized) struct PlantedBugTests {
    static let workload = "Simulations/ecosystem-swarm.scn"

    func workload() throws -> Script { try parsed(Self.workload) }

    func parsed(_ file: String) throws -> Script {
        let text = try String(contentsOfFile: Repository.root.appendingPathComponent(file).path, encoding: .utf8)
        let (script, errors) = Catalog.language.parse(file: file, text: text)
        try #require(errors.isEmpty, "\(errors.map(\.message))")
        return script
    }

    /// Each bug, with the few faults it needs (those `--planted` shrank a found seed to), breaks a promise the system
    /// declares — an invariant that knows nothing of the bug — and the same run without the bug keeps every promise.
    @Test func everyPlantedBugIsCaughtByARealCheck() throws {
        let script = try workload()
        let statement = { (prefix: String) in try #require(script.statements.firstIndex { $0.source.hasPrefix(prefix) }) }
        let cases: [(bug: PlantedBug, faults: [ScheduledFault], invariant: String)] = [
            (
                .migStatusIgnored, [ScheduledFault(before: try statement("start mig-proxy"), line: "fault mig.document-format-error times 2")],
                "mig.client-success-was-accepted"
            ),
            (
                .migBusyAfterQueueing, [ScheduledFault(before: try statement("start mig-proxy"), line: "fault mig.busy times 2")],
                "mig.one-print-per-submission"
            ),
            // The print's request goes out whole and the cut lands in its answer (3,500 bytes on from the TLS handshake).
            (
                .migLostAnswerRepeated, [ScheduledFault(before: try statement("mig print url"), line: "reset proxy -> phone after 3500 bytes")],
                "mig.one-print-per-submission"
            ),
            // Two faults in this order: MiG answers the first attempt busy, then the second attempt's answer is cut
            // (counted from 300 ms on, the 6,000th byte MiG's proxy sends the phone is in the second answer).
            (
                .migLostAnswerRepeatedAfterBusy,
                [
                    ScheduledFault(before: try statement("mig print url"), line: "fault mig.busy times 1"),
                    ScheduledFault(before: try statement("mig print url"), line: "later 300ms reset proxy -> phone after 6000 bytes"),
                ],
                "mig.one-print-per-submission"
            ),
            (.scpmsIDFromDevice, [], "scpms.deleted-id-never-reissued"),
            // Needs the internal error at the moment of the delete, twice (the delete and its retry): armed just before it.
            (
                .scpmsDeleteErrorSwallowed,
                [ScheduledFault(before: try statement("scpms delete-registration"), line: "fault scpms.internal-error times 2")],
                "scpms.deleted-registration-refused"
            ),
            (.ivantiCredentialBySerial, [], "ivanti.credential-stays-with-its-app"),
            (
                .imsNotBeforeIgnored, [ScheduledFault(before: try statement("ims start-session"), line: "clock ims skew -525s")],
                "ims.session-inside-token-window"
            ),
            (.sunfireQuotaAnyLeft, [], "sunfire.quota-never-negative"),
        ]
        // A bug that needs a crash of a node whose store is on its disk has a scenario of its own: the workload keeps
        // every store in memory.
        let crashCases: [(bug: PlantedBug, file: String, invariant: String)] = [
            (.migAcknowledgedBeforeDurable, "Simulations/mig-crash-after-acknowledgement.scn", "mig.acknowledged-job-survives-crash"),
            (.migDocumentLeftUnsynced, "Simulations/mig-crash-after-acknowledgement.scn", "mig.acknowledged-job-survives-crash"),
            (
                .scpmsRegisteredBeforeDurable, "Simulations/scpms-crash-after-registration.scn",
                "scpms.acknowledged-registration-survives-crash"
            ),
        ]
        // A race between two clients has a workload of its own: a hold in the middle of the phone's upload makes it
        // overlap the desk's, and the phone is told the desk's job.
        let raceCases: [(bug: PlantedBug, file: String, before: String, fault: String, line: String)] = [
            (
                .migAnswerNamesNewestJob, "Simulations/mig-two-clients-swarm.scn", "advance 3s", "later 1s hold phone -> mig for 3s",
                "expect \"${phonePrint.status}:${phonePrint.job}\" != \"ok:${deskPrint.job}\""
            )
        ]
        // A bug that breaks only liveness is caught by the workload's last part, after every fault has healed: what
        // must work again does not (no invariant is broken on the way).
        let livenessCases: [(bug: PlantedBug, faults: [ScheduledFault], line: String)] = [
            (
                .migStoppedForGood, [ScheduledFault(before: try statement("mig release"), line: "fault mig.media-empty times 2")],
                "expect \"${handoutAfterDone.status}:${handoutAfterDone.state}\" == \"ok:completed\""
            )
        ]
        // A bug only a torn write shows: the power cut during a commit (one that records a job's progress, in the durable
        // workload), over seeds whose crash draws either fate for the file it was writing.
        let tornCases: [(bug: PlantedBug, file: String, before: String, fault: String)] = [
            (.migCommitWithoutJournal, "Simulations/mig-durable-swarm.scn", "advance 20s", "crash mig at write 19 for 17s")
        ]
        #expect(
            Set(cases.map(\.bug) + crashCases.map(\.bug) + livenessCases.map(\.bug) + raceCases.map(\.bug) + tornCases.map(\.bug))
                == Set(Catalog.plantedBugs.map(\.bug)),
            "every declared bug has its case")
        #expect(Set(Catalog.plantedBugs.map(\.system)) == Set(["MiG", "SCPms", "Ivanti", "IMS", "Sunfire"]), "at least one per system")
        let runner = SwarmScripts.runner
        for (bug, faults, invariant) in cases {
            let planted = ScenarioRunner(language: runner.language, catalog: runner.catalog, invariants: runner.invariants, plantedBugs: [bug])
            let failing = planted.run(script, seed: 1, faults: .explicit(faults)) { _ in }
            #expect(failing.violations.first?.invariant == invariant, "\(bug): \(failing.violations.map(\.message)) \(failing.error ?? "")")
            let clean = runner.run(script, seed: 1, faults: .explicit(faults)) { _ in }
            #expect(clean.passed, "\(bug) off: \(clean.error ?? "") \(clean.failures.map { $0.failure ?? "" }) \(clean.violations.map(\.message))")
        }
        // The same two faults in the other order, the first answer lost and then MiG busy: the client reports the
        // print unknown and sends nothing again, so the bug cannot show.
        let reversed = [
            ScheduledFault(before: try statement("mig print url"), line: "reset proxy -> phone after 3500 bytes"),
            ScheduledFault(before: try statement("mig print url"), line: "later 300ms fault mig.busy times 1"),
        ]
        let afterBusy = ScenarioRunner(
            language: runner.language, catalog: runner.catalog, invariants: runner.invariants, plantedBugs: [.migLostAnswerRepeatedAfterBusy])
        let inReverse = afterBusy.run(script, seed: 1, faults: .explicit(reversed)) { _ in }
        #expect(inReverse.passed, "\(inReverse.violations.map(\.message)) \(inReverse.failures.map { $0.failure ?? "" })")
        #expect(inReverse.trace.contains("\"event\":\"mig-client-not-repeated\""), "the first answer was lost")
        for (bug, faults, line) in livenessCases {
            let planted = ScenarioRunner(language: runner.language, catalog: runner.catalog, invariants: runner.invariants, plantedBugs: [bug])
            let failing = planted.run(script, seed: 1, faults: .explicit(faults)) { _ in }
            #expect(failing.violations.isEmpty, "\(bug): \(failing.violations.map(\.message))")
            let failed = failing.failures.filter { $0.failure != nil }
            let expected = script.statements[try statement(line)].line
            #expect(failed.count == 1 && failed.first?.line == expected, "\(bug): \(failed.map { "\($0.line): \($0.text)" })")
            let clean = runner.run(script, seed: 1, faults: .explicit(faults)) { _ in }
            #expect(clean.passed, "\(bug) off: \(clean.error ?? "") \(clean.failures.map { $0.failure ?? "" }) \(clean.violations.map(\.message))")
        }
        for (bug, file, before, fault, line) in raceCases {
            let raceScript = try parsed(file)
            let at = try #require(raceScript.statements.firstIndex { $0.source.hasPrefix(before) })
            let faults = [ScheduledFault(before: at, line: fault)]
            let planted = ScenarioRunner(language: runner.language, catalog: runner.catalog, invariants: runner.invariants, plantedBugs: [bug])
            let failing = planted.run(raceScript, seed: 1, faults: .explicit(faults)) { _ in }
            let failed = failing.failures.filter { $0.failure != nil }
            let expected = try #require(raceScript.statements.first { $0.source == line }).line
            #expect(failed.count == 1 && failed.first?.line == expected, "\(bug): \(failed.map { "\($0.line): \($0.text)" })")
            let clean = runner.run(raceScript, seed: 1, faults: .explicit(faults)) { _ in }
            #expect(clean.passed, "\(bug) off: \(clean.error ?? "") \(clean.failures.map { $0.failure ?? "" }) \(clean.violations.map(\.message))")
            // Without the hold the two uploads do not overlap: the race needs the fault.
            #expect(planted.run(raceScript, seed: 1) { _ in }.passed, "\(bug) shows without a fault")
        }
        for (bug, file, before, fault) in tornCases {
            let tornScript = try parsed(file)
            let at = try #require(tornScript.statements.firstIndex { $0.source.hasPrefix(before) })
            let faults = [ScheduledFault(before: at, line: fault)]
            let planted = ScenarioRunner(language: runner.language, catalog: runner.catalog, invariants: runner.invariants, plantedBugs: [bug])
            var failedTorn = 0
            var passedLost = 0
            for seed: UInt64 in 1...10 {
                let run = planted.run(tornScript, seed: seed, faults: .explicit(faults)) { _ in }
                let crashes = run.trace.split(separator: "\n").filter { $0.contains("\"event\":\"crashed\"") }
                #expect(crashes.count == 1, "\(bug), seed \(seed): the power cut fell")
                let tore = crashes.contains { !$0.contains("\"files-torn\":\"0\"") }
                // A commit lost whole leaves the database as it was: only a tear breaks it.
                #expect(run.passed || tore, "\(bug), seed \(seed): failed without a torn write: \(run.failures.map { $0.failure ?? "" })")
                if tore, !run.passed { failedTorn += 1 }
                if !tore, run.passed { passedLost += 1 }
                let clean = runner.run(tornScript, seed: seed, faults: .explicit(faults)) { _ in }
                #expect(clean.passed, "\(bug) off, seed \(seed): \(clean.failures.map { $0.failure ?? "" }) \(clean.violations.map(\.message))")
            }
            #expect(failedTorn > 0 && passedLost > 0, "\(bug): \(failedTorn) torn runs failed, \(passedLost) lost runs passed")
        }
        for (bug, file, invariant) in crashCases {
            let crashScript = try parsed(file)
            let planted = ScenarioRunner(language: runner.language, catalog: runner.catalog, invariants: runner.invariants, plantedBugs: [bug])
            for seed: UInt64 in [1, 2, 3] {
                let failing = planted.run(crashScript, seed: seed) { _ in }
                #expect(failing.violations.first?.invariant == invariant, "\(bug), seed \(seed): \(failing.violations.map(\.message))")
                let clean = runner.run(crashScript, seed: seed) { _ in }
                #expect(
                    clean.passed, "\(bug) off: \(clean.error ?? "") \(clean.failures.map { $0.failure ?? "" }) \(clean.violations.map(\.message))")
            }
        }
    }

    /// The hunt: seed after seed with the bug on until one fails, then that seed's faults shrunk to those needed.
    @Test func theHuntFindsAFaultDependentBugAndShrinksItsSeed() throws {
        let hunt = PlantedBugHunt(runner: SwarmScripts.runner, options: SwarmOptions(faults: .all))
        let entry = try #require(Catalog.plantedBugs.first { $0.bug == .migBusyAfterQueueing })
        let finding = try hunt.hunt(entry, scripts: [try workload()], seeds: Array(1...150))
        #expect(finding.found && finding.seedsToFind > 1, "it needs a fault: seed 1 has none that shows it")
        #expect(finding.failure?.hasPrefix("invariant mig.one-print-per-submission broken") == true, "\(finding.failure ?? "")")
        #expect(finding.shrunkFaults == 1 && finding.shrunk?.first?.contains("fault mig.busy") == true, "\(finding.shrunk ?? [])")
        #expect((finding.faults ?? 0) > 1)
    }

    /// A bug that only a crash at a moment shows: in its own workload MiG survives crashes, so the swarm draws them
    /// itself, finds the bug and shrinks the seed to that crash (and what placed it just after the answer); no seed
    /// fails without the bug.
    @Test func theSwarmCrashesADurableMiGAndShrinksTheSeedToTheCrash() throws {
        let entry = try #require(Catalog.plantedBugs.first { $0.bug == .migAcknowledgedBeforeDurable })
        let script = try parsed(try #require(entry.workload))
        let hunt = PlantedBugHunt(runner: SwarmScripts.runner, options: SwarmOptions(faults: .all))
        let finding = try hunt.hunt(entry, scripts: [script], seeds: Array(1...60))
        #expect(finding.found && finding.failingWithoutBug.isEmpty, "\(finding.failingWithoutBug)")
        #expect(finding.failure?.hasPrefix("invariant mig.acknowledged-job-survives-crash broken") == true, "\(finding.failure ?? "")")
        let shrunk = finding.shrunk ?? []
        #expect((finding.shrunkFaults ?? 0) <= 2 && shrunk.contains { $0.contains("crash mig for") }, "\(shrunk)")
    }

    /// A bug that only a torn write shows: the swarm cuts MiG's power inside one of its writes (`crash mig at write N`),
    /// and one such cut, inside a commit, whose crash tears the page being written, is the whole failure once shrunk; no
    /// seed fails without the bug.
    @Test func theSwarmCutsPowerInsideACommitAndShrinksTheSeedToTheCut() throws {
        let entry = try #require(Catalog.plantedBugs.first { $0.bug == .migCommitWithoutJournal })
        let script = try parsed(try #require(entry.workload))
        let hunt = PlantedBugHunt(runner: SwarmScripts.runner, options: SwarmOptions(faults: .all))
        let finding = try hunt.hunt(entry, scripts: [script], seeds: Array(1...60))
        #expect(finding.found && finding.failingWithoutBug.isEmpty, "\(finding.failingWithoutBug)")
        let shrunk = finding.shrunk ?? []
        #expect(finding.shrunkFaults == 1 && shrunk.first?.contains("crash mig at write") == true, "\(shrunk)")
    }

    /// The hunt with `--explore`: the same budget (300 runs for 300 seeds), part of it mutants; what found the bug is
    /// named and shrunk the same way.
    @Test func theExploringHuntFindsItWithinTheSameBudget() throws {
        let hunt = PlantedBugHunt(runner: SwarmScripts.runner, options: SwarmOptions(faults: .all))
        let entry = try #require(Catalog.plantedBugs.first { $0.bug == .migBusyAfterQueueing })
        let finding = try hunt.hunt(entry, scripts: [try workload()], seeds: Array(1...300), explore: 0.5)
        #expect(finding.found && finding.runsToFind <= 300 && finding.runsToFind >= finding.seedsToFind, "\(finding)")
        #expect(finding.seedsToFind <= 150, "half the runs are mutants")
        let run = try #require(finding.run)
        #expect(run.hasPrefix("seed \(finding.seed ?? 0)"))
        #expect(finding.failure?.hasPrefix("invariant mig.one-print-per-submission broken") == true, "\(finding.failure ?? "")")
        #expect(finding.shrunkFaults == 1 && finding.shrunk?.first?.contains("fault mig.busy") == true, "\(finding.shrunk ?? [])")
    }

    /// Nothing turns a bug on in a normal run: the kernel, the runners of every command and the scenario language.
    @Test func noBugIsOnByDefault() throws {
        #expect(Kernel(seed: 1).node("mig").plantedBugs == .none)
        #expect(SwarmScripts.runner.plantedBugs == .none)
        #expect(!Kernel(seed: 1).node("phone").planted(.migStatusIgnored))
        // A planted bug's name is no word of the language.
        for entry in Catalog.plantedBugs {
            let (_, errors) = Catalog.language.parse(file: "t.scn", text: "start mig \(entry.name)=true\n")
            #expect(!errors.isEmpty, "\(entry.name)")
        }
        // The workload passes, digest for digest, whether or not the runner was given an empty set.
        let script = try workload()
        let runner = SwarmScripts.runner
        let explicit = ScenarioRunner(language: runner.language, catalog: runner.catalog, invariants: runner.invariants, plantedBugs: .none)
        let a = runner.run(script, seed: 7) { _ in }
        #expect(a.passed, "\(a.error ?? "") \(a.failures.map { $0.failure ?? "" }) \(a.violations.map(\.message))")
        #expect(explicit.run(script, seed: 7) { _ in }.digest == a.digest)
    }

    /// A client module is what an app ships, so it has no branch for a planted bug: the swarm plants a client's bugs
    /// through a policy the client takes (`MiGClient.AnswerPolicy`, `IvantiClient.CredentialLookup`).
    @Test func noClientModuleMentionsPlantedBugs() throws {
        for module in ["MiGClient", "IvantiClient", "SCPmsClient", "IMSSDK", "AppConnect", "SOCPrint"] {
            let folder = Repository.root.appendingPathComponent("Sources/\(module)")
            let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
            #expect(!files.isEmpty, "no sources under \(folder.path)")
            for file in files {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                #expect(!text.lowercased().contains("planted"), "Sources/\(module)/\(file) mentions planted bugs")
            }
        }
    }

    @Test func unknownPlantedBugsAreRefused() throws {
        let typo = try WorkbenchBinary.run(["swarm", "--planted", "mig.status-ignord"])
        #expect(typo.status == 64, "\(typo.output)")
        #expect(typo.stderr.contains("did you mean 'mig.status-ignored'"), "\(typo.stderr)")
        #expect(typo.stderr.contains("ims.not-before-ignored"), "the list of names")
        let list = try WorkbenchBinary.run(["swarm", "--planted", "list"])
        #expect(list.status == 0)
        #expect(list.stdout.split(separator: "\n").count == Catalog.plantedBugs.count, "\(list.stdout)")
        let mixed = try WorkbenchBinary.run(["swarm", "--planted", "all", "--corpus", "/tmp/x"])
        #expect(mixed.status == 64 && mixed.stderr.contains("--planted takes"), "\(mixed.output)")
    }

    /// `--planted NAME --json`: the hunt's figures, in the shape the issue names.
    @Test func plantedReportsInTextAndJSON() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("planted-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("planted.json").path
        let run = try WorkbenchBinary.run(["swarm", "--planted", "scpms.id-from-device", "--seeds", "1..50", "--json", json])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.stdout.contains("scpms.id-from-device (SCPms: "), "\(run.stdout)")
        #expect(run.stdout.contains("PASS planted: 1 of 1 bug found"), "\(run.stdout)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        let planted = try #require(object["planted"] as? [[String: Any]])
        #expect(planted.count == 1)
        #expect(planted[0]["name"] as? String == "scpms.id-from-device")
        #expect(planted[0]["system"] as? String == "SCPms")
        #expect(planted[0]["found"] as? Bool == true)
        #expect(planted[0]["seed"] as? Int != nil && planted[0]["seeds_to_find"] as? Int != nil && planted[0]["shrunk_faults"] as? Int != nil)
        #expect(planted[0]["runs_to_find"] as? Int == planted[0]["seeds_to_find"] as? Int, "one run per seed without --explore")
        #expect(planted[0]["run"] as? String == "seed \(planted[0]["seed"] as? Int ?? 0)")
    }

    /// Seeds that fail without the bug are named once each, ten at most; when every seed did, the line says that nothing
    /// was hunted and how to see why.
    @Test func seedsThatFailWithoutTheBugAreCountedNotListedInFull() {
        let finding = PlantedBugHunt.Finding(
            name: "mig.status-ignored", system: "MiG", found: false, seed: nil, seedsToFind: 12, runsToFind: 12, run: nil, faults: nil,
            shrunkFaults: nil, shrunk: nil, file: nil, failure: nil, failingWithoutBug: Array(1...12))
        let line = SwarmPlanted.line(finding, summary: "s", files: ["w.scn"])
        let skipped = "\n    12 seeds that fail without the bug too (skipped): 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, … (--json lists them all)"
        #expect(line.contains(skipped), "\(line)")
        let why = "\n    every seed failed without the bug, so nothing was hunted: `workbench swarm w.scn --seeds 1` shows why"
        #expect(line.hasSuffix(why), "\(line)")
    }

    /// `--corpus DIR` keeps failing seeds by failure, and the next swarm runs them first: still failing, or now passing.
    @Test func theCorpusKeepsFailingSeedsAndRunsThemFirst() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("corpus-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = SwarmCommandTests.planted
        let first = try WorkbenchBinary.run(["swarm", file, "--seeds", "1..40", "--faults", "actors", "--jobs", "2", "--corpus", directory.path])
        #expect(first.status == 1, "\(first.output)")
        let failing = first.stdout.split(separator: "\n").filter { $0.hasPrefix("FAIL \(file) seed ") }
        #expect(first.stdout.contains("corpus \(directory.path): \(failing.count) new failing seed"), "\(first.stdout)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        #expect(files.count == 1, "one failure, one file: \(files)")
        let entryPath = directory.appendingPathComponent(files[0]).path
        let entry = try JSONDecoder().decode(SwarmCorpus.Entry.self, from: Data(contentsOf: URL(fileURLWithPath: entryPath)))
        #expect(entry.seeds.count == failing.count)
        #expect(entry.signature == "invariant echo.reports-what-it-received")
        #expect(entry.file == "echo-planted-bug.scn" && entry.faults == .actors)

        // A passing seed filed by hand under the same failure reads as now passing; the kept ones still fail.
        var edited = entry
        let passing: UInt64 = try #require((1...40).first { !entry.seeds.contains($0) })
        edited.seeds = [passing] + entry.seeds
        try JSONEncoder().encode(edited).write(to: URL(fileURLWithPath: entryPath))
        let second = try WorkbenchBinary.run(["swarm", file, "--seeds", "41", "--faults", "actors", "--jobs", "1", "--corpus", directory.path])
        let lines = second.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "corpus \(file) seed \(passing): now passing (filed as: invariant echo.reports-what-it-received)", "\(second.stdout)")
        #expect(lines.filter { $0.hasSuffix(": still failing (filed as: invariant echo.reports-what-it-received)") }.count == entry.seeds.count)
        #expect(second.status == 1, "kept seeds that still fail fail the swarm")
        #expect(
            lines.last?.contains("corpus: \(entry.seeds.count + 1) seeds (\(entry.seeds.count) still failing, 0 failing differently, 1 now passing)")
                == true, "\(lines.last ?? "")")
        // Another fault class has its own corpus.
        let other = try WorkbenchBinary.run(["swarm", file, "--seeds", "41", "--faults", "none", "--corpus", directory.path])
        #expect(!other.stdout.contains("corpus \(file) seed"), "\(other.stdout)")
    }
}
