import Foundation
import Scenario
import TestSupport
import Testing

@testable import IvantiSystem
@testable import Swarm
@testable import SystemKit
@testable import Workbench

/// Invariants, `swarm`, `shrink` and shards, on the echo actor's planted bug and on MiG's lost answer.
@Suite(.serialized) struct SwarmCommandTests {
    static let planted = "Fixtures/swarm/echo-planted-bug.scn"

    func script(_ text: String, file: String = "test.scn") throws -> Script {
        let (script, errors) = Catalog.language.parse(file: file, text: text)
        try #require(errors.isEmpty, "\(errors.map(\.message))")
        return script
    }

    func plantedScript() throws -> Script {
        try script(String(contentsOfFile: Repository.root.appendingPathComponent(Self.planted).path, encoding: .utf8), file: Self.planted)
    }

    /// A planned run keeps what each direction of its links sent (where its mutants' cuts aim: a retry's answer the run
    /// without faults never sent is there), recording changes nothing of the run, it travels with the run between
    /// processes (`--jobs`), and a finished exploration's runs drop it.
    @Test func aPlannedRunKeepsWhatItsLinksSent() throws {
        let script = try plantedScript()
        let swarm = SwarmRunner(runner: SwarmScripts.runner, options: SwarmOptions(faults: .network))
        for seed: UInt64 in [4, 5] {
            let entry = SwarmPlanEntry(file: script.file, seed: seed)
            let run = swarm.run(entry, script: script)
            #expect(run.digest == swarm.result(entry, script: script).digest, "recording draws nothing")
            let traffic = try #require(run.traffic)
            let sent = traffic.sent.values.flatMap { $0 }
            #expect(!sent.isEmpty && sent.allSatisfy { $0.bytes > 0 && script.statements.indices.contains($0.statement) })
            #expect(LinkForecast(traffic).sent == traffic.sent)
            #expect(try JSONDecoder().decode(SwarmRun.self, from: JSONEncoder().encode(run)) == run)
            #expect(run.withoutBehaviours.traffic == nil && run.withoutBehaviours.behaviours == nil)
        }
        #expect(SwarmRun(swarm.run(script, seed: 4)).traffic == nil, "a plain swarm's runs keep none")
    }

    @Test func aBrokenInvariantFailsTheRunWithItsNameAndPlace() throws {
        let faults = [
            ScheduledFault(before: 3, line: "fault echo.planted-arm once"), ScheduledFault(before: 5, line: "fault echo.planted-miscount once"),
        ]
        let result = SwarmScripts.runner.run(try plantedScript(), seed: 3, faults: .explicit(faults)) { _ in }
        #expect(!result.passed)
        #expect(result.failures.isEmpty, "the workload's own expectations accept the outcome")
        let violation = try #require(result.violations.first)
        #expect(violation.invariant == "echo.reports-what-it-received")
        #expect(violation.message == "echo received 3 bytes and answered that it got 4")
        #expect(violation.line == 10, "the statement that ran when it broke: the second POST")
        let events = result.trace.split(separator: "\n")
        #expect(violation.traceIndex > 0 && violation.traceIndex <= events.count)
        #expect(events[violation.traceIndex - 1].contains("\"reported\":\"4\""), "the position names the event that broke it")
    }

    @Test func thePlantedBugNeedsBothFaultsInOrder() throws {
        let runner = SwarmScripts.runner
        let script = try plantedScript()
        let reversed = [
            ScheduledFault(before: 3, line: "fault echo.planted-miscount once"), ScheduledFault(before: 5, line: "fault echo.planted-arm once"),
        ]
        #expect(runner.run(script, seed: 3, faults: .explicit(reversed)) { _ in }.passed)
        #expect(runner.run(script, seed: 3, faults: .explicit([ScheduledFault(before: 3, line: "fault echo.planted-arm on")])) { _ in }.passed)
        #expect(runner.run(script, seed: 3) { _ in }.passed)
    }

    @Test func aLostAnswerIsNotPrintedTwice() throws {
        let run = SwarmScripts.runner.run(
            try script(
                """
                start mig
                link phone <-> mig latency 5ms bandwidth 1MB/s
                reset mig -> phone after 100 bytes
                mig print bytes 10000 as p
                expect ${p.code} == answer-lost
                """), seed: 1
        ) { _ in }
        #expect(run.violations.isEmpty, "\(run.violations.map(\.message))")
        #expect(run.error == nil, "\(run.error ?? "")")
        #expect(run.passed, "\(run.failures.map { $0.failure ?? "" })")
        #expect(run.trace.components(separatedBy: "\"event\":\"job-created\"").count == 2, "one job, not two")
        #expect(run.trace.contains("\"event\":\"mig-client-retry\"") == false)
        #expect(run.trace.contains("\"event\":\"mig-client-not-repeated\""), "the client says it did not send the print again")
        #expect(run.reached.contains("mig.lost-answer-not-repeated"))
    }

    @Test func theConsoleChecksInvariantsAfterEveryLine() throws {
        let run = try WorkbenchBinary.run(
            [],
            input: """
                start echo planted-bug=true
                fault echo.planted-arm once
                fault echo.planted-miscount once
                http POST http://echo/x body "abc" as r
                """)
        #expect(run.status == 1)
        #expect(run.stdout.contains("console:4: INVARIANT BROKEN echo.reports-what-it-received at trace event "), "\(run.stdout)")
    }

    @Test func expectInAcceptsOnlyTheNamedOutcomes() throws {
        let result = SwarmScripts.runner.run(
            try script(
                """
                start echo
                http GET http://echo/ as r
                expect ${r.status} in 200 503
                expect ${r.status} in 404 error
                """), seed: 1
        ) { _ in }
        #expect(result.expectations.map { $0.failure == nil } == [true, false])
        #expect(result.expectations[1].failure == "expected ${r.status} in \"404\" \"error\", actual \"200\"")
    }

    @Test func aSeedsScheduleIsTheSameEveryTime() throws {
        let runner = SwarmScripts.runner
        let script = try plantedScript()
        let swarm = SwarmRunner(runner: runner, options: SwarmOptions(faults: .all))
        for seed: UInt64 in [4, 10, 77] {
            let first = SwarmRun(swarm.run(script, seed: seed))
            let second = SwarmRun(swarm.run(script, seed: seed))
            #expect(first == second)
            // The explicit schedule replays the same run.
            let replay = runner.run(script, seed: seed, faults: .explicit(first.faults)) { _ in }
            #expect(replay.digest == first.digest)
        }
    }

    /// `--explore` aims its cuts at the messages a workload sends, learnt from its run without faults: a cut falls
    /// inside one, where one drawn as a seed draws it (octave by octave up to 300,000 bytes) mostly falls past the end
    /// of a short exchange and never fires.
    @Test func aMutantsCutFallsInAMessageTheWorkloadSends() throws {
        let script = try script(
            """
            start scpms
            scpms launch
            scpms start-session user demo password password within 1m as r
            expect ${r.status} in ok error
            advance 1s
            """ + "\n")
        let swarm = SwarmRunner(runner: SwarmScripts.runner, options: SwarmOptions(faults: .network))
        var exploration = try SwarmExploration(scripts: [script], seeds: Array(1...80), swarm: swarm)
        let runs = exploration.explore { swarm.run($0, scripts: [script]) }
        let cutting = runs.filter { $0.mutant?.edits.contains { $0.hasPrefix("cut '") } == true }
        var fired = 0
        for run in cutting {
            let replay = try #require(swarm.replay(run, scripts: [script]))
            #expect(replay.digest == run.digest, "\(run.name) replays from its faults")
            if replay.trace.contains("reset fault after bytes") { fired += 1 }
        }
        // The seeds' own cuts, for comparison.
        let seeded = runs.filter { $0.mutant == nil && $0.faults.contains { $0.line.hasSuffix(" bytes") } }
        let seededFired = try seeded.filter { try #require(swarm.replay($0, scripts: [script])).trace.contains("reset fault after bytes") }.count
        #expect(cutting.count >= 5, "\(cutting.count) mutants cut a message")
        #expect(fired * 10 >= cutting.count * 8, "\(fired) of \(cutting.count) aimed cuts fired")
        #expect(fired * seeded.count > seededFired * cutting.count, "aimed \(fired)/\(cutting.count), seeded \(seededFired)/\(seeded.count)")
    }

    @Test func aPrivateKeyInClearIsFoundInAnyEncoding() throws {
        let keys = PrivateKeyWatch.fixtureKeys
        let (name, der) = try #require(keys.first { $0.name == "tls-client.key.der" })
        let watch = PrivateKeyWatch(keys: keys)
        let hex = der.map { String(format: "%02x", $0) }.joined()
        for shift in 0..<3 {
            // Inside a larger blob at every alignment, in base64 and base64url.
            let blob = Data([UInt8](repeating: 7, count: shift + 5) + der + [1, 2, 3]).base64EncodedString()
            #expect(watch.find(in: "appconnectdc://store?payload=" + blob) == name)
            let url = blob.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            #expect(watch.find(in: url) == name)
        }
        #expect(watch.find(in: "x" + hex) == name)
        #expect(watch.find(in: "-----BEGIN PRIVATE KEY-----\nMIIE") == "PEM")
        #expect(watch.find(in: Data(try #require(keys.first { $0.name == "tls-client.key.der" }).der.reversed()).base64EncodedString()) == nil)
        #expect(watch.find(in: "an ordinary trace field with enough characters to be looked at") == nil)
    }

    @Test func swarmFindsThePlantedBugAndShrinkCutsItToTwoFaults() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swarm-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let swarm = try WorkbenchBinary.run(["swarm", Self.planted, "--seeds", "1..40", "--faults", "actors", "--jobs", "2"])
        #expect(swarm.status == 1, "\(swarm.output)")
        let lines = swarm.stdout.split(separator: "\n").map(String.init)
        let summary = try #require(lines.last)
        #expect(summary.hasPrefix("FAIL swarm: 40 seeds × 1 file, "), "\(summary)")
        let failing = lines.filter { $0.hasPrefix("FAIL \(Self.planted) seed ") }
        #expect(!failing.isEmpty)
        #expect(failing.allSatisfy { $0.contains("INVARIANT BROKEN echo.reports-what-it-received") })
        let seed = try #require(failing.first?.split(separator: " ")[3])
        #expect(lines.contains("    replay: workbench swarm \(Self.planted) --seeds \(seed) --faults actors"))
        #expect(lines.filter { $0.contains("swarm options: ") } == ["swarm options: \(SwarmOptions(faults: .actors))"], "once, not per seed")

        let replay = try WorkbenchBinary.run(["swarm", Self.planted, "--seeds", String(seed), "--faults", "actors"])
        #expect(replay.status == 1)
        #expect(replay.stdout.contains("FAIL \(Self.planted) seed \(seed) "))

        let out = directory.appendingPathComponent("shrunk.scn").path
        let shrink = try WorkbenchBinary.run(["shrink", Self.planted, "--seed", String(seed), "--faults", "actors", "--out", out])
        #expect(shrink.status == 0, "\(shrink.output)")
        #expect(shrink.stdout.contains("kept 2 of "), "\(shrink.stdout)")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        let kept = text.split(separator: "\n").filter { $0.contains("# fault kept by shrink (site point echo.planted-") }
        #expect(kept.count == 2)
        #expect(kept[0].contains("echo.planted-arm") || kept[0].contains("echo.planted-miscount"))
        #expect(!text.contains("echo.unavailable"))
        let rerun = try WorkbenchBinary.run(["run", out, "--seed", String(seed)])
        #expect(rerun.status == 1)
        #expect(rerun.stderr.contains("INVARIANT BROKEN echo.reports-what-it-received"), "\(rerun.output)")
    }

    /// Run in one process, the failing seeds are printed as they end, the swarm options once above the first.
    @Test func theSwarmOptionsArePrintedOnceAboveTheFailingSeeds() throws {
        let swarm = try WorkbenchBinary.run(["swarm", Self.planted, "--seeds", "1..40", "--faults", "actors", "--jobs", "1"])
        #expect(swarm.status == 1, "\(swarm.output)")
        let lines = swarm.stdout.split(separator: "\n").map(String.init)
        let failing = lines.indices.filter { lines[$0].hasPrefix("FAIL \(Self.planted) seed ") }
        #expect(failing.count >= 2, "\(swarm.stdout)")
        let options = lines.indices.filter { lines[$0].contains("swarm options: ") }
        #expect(options.count == 1, "\(swarm.stdout)")
        #expect(options.first.map { lines[$0] } == "swarm options: \(SwarmOptions(faults: .actors))")
        #expect(options.first == failing.first.map { $0 - 1 }, "just above the first failing seed")
    }

    /// The union of the shards is the unsharded run, seed for seed; merge makes one summary and JUnit of them.
    @Test func shardsTogetherAreTheWholeSwarm() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shards-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let whole = directory.appendingPathComponent("whole.json").path
        let arguments = ["swarm", Self.planted, "Simulations/kernel-seeded-faults.scn", "--seeds", "5..34", "--faults", "all"]
        _ = try WorkbenchBinary.run(arguments + ["--jobs", "2", "--json", whole])
        // The shards run as the Kubernetes Indexed Job runs them: tools/swarm/run-shard.sh with JOB_COMPLETION_INDEX.
        var parts: [String] = []
        for index in 0..<3 {
            let shard = try ExternalProcess.run(
                Repository.root.appendingPathComponent("tools/swarm/run-shard.sh").path, [],
                environment: [
                    "JOB_COMPLETION_INDEX": String(index), "SHARD_COUNT": "3", "SEEDS": "5..34", "FAULTS": "all", "JOBS": "1",
                    "FILES": "\(Self.planted) Simulations/kernel-seeded-faults.scn", "OUT": directory.path,
                    "WORKBENCH": Repository.workbenchBinary.path,
                ], currentDirectory: Repository.root.path, timeout: 300)
            #expect(shard.status == 0, "a shard's failing seeds are results, not a failed pod: \(shard.output)")
            parts.append(directory.appendingPathComponent("shard-\(index).json").path)
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("shard-\(index).xml").path))
        }
        let decode = { (path: String) in try SwarmResult.decode(String(contentsOfFile: path, encoding: .utf8), source: path) }
        let unsharded = try decode(whole)
        #expect(unsharded.runs.count == 60)
        let shards = try parts.map(decode)
        for (index, shard) in shards.enumerated() {
            #expect(shard.runs.allSatisfy { $0.seed % 3 == UInt64(index) })
        }
        let union = SwarmResult.ordered(shards.flatMap(\.runs), files: unsharded.files)
        #expect(union == unsharded.runs, "seed for seed: file, verdict, digest, failure and fault schedule")

        let junit = directory.appendingPathComponent("merged.xml").path
        let merge = try WorkbenchBinary.run(["swarm", "merge"] + parts + ["--junit", junit])
        let mergedSummary = merge.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let failed = unsharded.runs.filter { !$0.passed }.count
        #expect(mergedSummary.contains("30 seeds × 2 files, \(failed) failed"), "\(merge.output)")
        #expect(merge.status == (failed == 0 ? 0 : 1))
        #expect(merge.stdout.components(separatedBy: "swarm options: ").count - 1 == (failed == 0 ? 0 : 1), "\(merge.stdout)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == 60)
        #expect(xml.components(separatedBy: "<failure ").count - 1 == failed)

        // A shard from another build (a different digest for the same seed) is refused.
        let tampered = directory.appendingPathComponent("tampered.json").path
        try String(contentsOfFile: parts[0], encoding: .utf8).replacingOccurrences(
            of: shards[0].runs[0].digest, with: String(repeating: "0", count: 64)
        )
        .write(toFile: tampered, atomically: true, encoding: .utf8)
        let refused = try WorkbenchBinary.run(["swarm", "merge", parts[0], tampered])
        #expect(refused.status != 0 && refused.stderr.contains("ran twice with different digests"), "\(refused.output)")
    }

    /// The whole-ecosystem workload keeps every promise under the faults its seeds choose (a sample of the 10,000
    /// seeds `workbench swarm` is run with; any failing seed here is a finding, with its replay command).
    @Test func theEcosystemWorkloadHoldsUnderSeededFaults() throws {
        let file = "Simulations/ecosystem-swarm.scn"
        let script = try script(String(contentsOfFile: Repository.root.appendingPathComponent(file).path, encoding: .utf8), file: file)
        let swarm = SwarmRunner(runner: SwarmScripts.runner, options: SwarmOptions(faults: .all))
        let runs = swarm.run([script], seeds: Array(1...12)) { _ in }
        #expect(runs.count == 12)
        #expect(runs.reduce(0) { $0 + $1.faults.count } > 12, "the seeds chose faults")
        for run in runs where !run.passed { Issue.record("\(run.failureLine(faults: .all))") }
    }

    /// Found by the 10,000-seed swarm (seed 260, shrunk to this one fault): a poll held up by a partition stretched
    /// `mig wait … within 15s` past its limit. A poll now never runs past the wait's deadline.
    @Test func aPartitionDuringMigWaitStaysWithinItsLimit() throws {
        let file = "Simulations/ecosystem-swarm.scn"
        let script = try script(String(contentsOfFile: Repository.root.appendingPathComponent(file).path, encoding: .utf8), file: file)
        let wait = try #require(script.statements.firstIndex { $0.source.hasPrefix("mig wait") })
        let result = SwarmScripts.runner.run(
            script, seed: 260, faults: .explicit([ScheduledFault(before: wait, line: "partition proxy -> phone for 21s")])
        ) { _ in }
        #expect(result.error == nil, "\(result.error ?? "")")
        #expect(result.failures.isEmpty && result.violations.isEmpty)
        // Seed 4405, shrunk to two faults: bytes trickling after a hold kept the idle timer alive past the deadline;
        // a poll now has a limit on the whole exchange too.
        let statement = { (prefix: String) in try #require(script.statements.firstIndex { $0.source.hasPrefix(prefix) }) }
        let trickle = SwarmScripts.runner.run(
            script, seed: 4405,
            faults: .explicit([
                ScheduledFault(before: try statement("section \"SAP Mobile Services"), line: "later 2666ms partition proxy <-> mig for 16s"),
                ScheduledFault(before: try statement("expect ${catalogue.status} in"), line: "later 1206ms hold proxy -> phone for 10s"),
            ])
        ) { _ in }
        #expect(trickle.error == nil, "\(trickle.error ?? "")")
        #expect(trickle.failures.isEmpty && trickle.violations.isEmpty)
    }

    @Test func badSwarmArgumentsAreRefused() throws {
        for (arguments, message) in [
            (["--seeds", "9..3"], "the first seed is after the last"),
            (["--seeds", "1..x"], "expected A..B"),
            (["--seeds", "1..2", "--shard", "3/3"], "shards are numbered 0…2"),
            (["--seeds", "1..2", "--jobs", "0"], "--jobs 0: expected 1…64"),
            (["--seeds", "1..2", "--faults", "some"], "some"),
            (["--seeds", "1..2", "--explore-share", "0.5"], "--explore-share 0.5: needs --explore"),
            (["--seeds", "1..2", "--explore", "--explore-share", "1"], "expected a share of the runs between 0 and 1"),
            (["--seeds", "1..2", "--explore", "--explore-share", "half"], "half"),
            (["--seeds", "1..2", "--explore", "--shard", "0/2"], "--explore cannot be split with --shard"),
            (["--seeds", "1..2", "--schedule", "x.json"], "--schedule replays one run"),
            (["--schedule", "no-such-schedule.json"], "--schedule no-such-schedule.json: no such file"),
            (["--seeds", "1..2", "--mix", "random"], "random"),
            (["--seeds", "1..2", "--mix", "drawn", "--corpus", "corpus"], "--corpus keeps the seeds of the fixed mix"),
            (["--schedule", "x.json", "--mix", "drawn"], "its faults are in the file: no --mix"),
        ] {
            let run = try WorkbenchBinary.run(["swarm", Self.planted] + arguments)
            #expect(run.status != 0 && run.stderr.contains(message), "\(arguments): \(run.output)")
        }
        let both = try WorkbenchBinary.run(["shrink", Self.planted, "--seed", "3", "--schedule", "x.json"])
        #expect(both.status == 64 && both.stderr.contains("expected --seed N"), "\(both.output)")
        let faultsToo = try WorkbenchBinary.run(["shrink", Self.planted, "--schedule", "x.json", "--faults", "all"])
        #expect(faultsToo.status == 64 && faultsToo.stderr.contains("names its own fault class"), "\(faultsToo.output)")
        let mixToo = try WorkbenchBinary.run(["shrink", Self.planted, "--schedule", "x.json", "--mix", "drawn"])
        #expect(mixToo.status == 64 && mixToo.stderr.contains("holds its faults themselves"), "\(mixToo.output)")
    }

    /// `--mix drawn`: the same swarm in one process and in two workers (the workers are told the mix), its JSON says so,
    /// and it differs from the fixed mix's swarm over the same seeds.
    @Test func aDrawnMixIsTheSameForAnyJobsAndNamedInTheJSON() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mix-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func swarm(_ jobs: Int, _ mix: String) throws -> (output: String, json: String) {
            let json = directory.appendingPathComponent("\(jobs)-\(mix).json").path
            let run = try WorkbenchBinary.run([
                "swarm", Self.planted, "--seeds", "1..6", "--jobs", "\(jobs)", "--mix", mix, "--json", json,
            ])
            #expect(run.status == 0 || run.status == 1, "\(run.output)")
            return (run.stdout, try String(contentsOfFile: json, encoding: .utf8))
        }
        let one = try swarm(1, "drawn")
        let two = try swarm(2, "drawn")
        let digests = { (json: String) in json.split(separator: "\n").filter { $0.contains("\"digest\"") } }
        #expect(digests(one.json) == digests(two.json))
        #expect(one.json.contains(#""mix" : "drawn""#), "\(one.json.prefix(400))")
        #expect(digests(one.json) != digests(try swarm(1, "fixed").json))
    }

    /// `--explore` makes the same runs for any --jobs (workers take a batch's runs one at a time, and the runs are put back
    /// in the plan's order); a failing
    /// mutant's faults are written out, replay to the swarm's digest and shrink, as a failing seed does.
    @Test func anExploredSwarmIsTheSameForAnyJobsAndAFailingMutantReplays() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("explore-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = Repository.root.appendingPathComponent(Self.planted).path
        // In a folder of its own: a failing mutant's schedule is written to the current folder.
        let workbench = { (arguments: [String]) in
            try ExternalProcess.run(Repository.workbenchBinary.path, arguments, currentDirectory: directory.path, timeout: 300)
        }
        var results: [SwarmResult] = []
        var outputs: [String] = []
        for jobs in ["1", "2"] {
            let json = directory.appendingPathComponent("jobs-\(jobs).json").path
            let run = try workbench(["swarm", file, "--seeds", "1..40", "--faults", "actors", "--explore", "--jobs", jobs, "--json", json])
            results.append(try SwarmResult.decode(String(contentsOfFile: json, encoding: .utf8), source: json))
            outputs.append(run.stdout)
        }
        #expect(results[0].runs == results[1].runs, "the same runs, digest for digest, for --jobs 1 and 2")
        #expect(results[0].explore == SwarmResult.Explore(share: 0.5, freshRuns: 20, mutantRuns: 20))
        #expect(outputs[0].contains("40 runs (--explore: 20 of fresh seeds, 20 of mutants) of 1 file"), "\(outputs[0])")
        let failing = try #require(results[0].runs.first { !$0.passed && $0.mutant != nil }, "a mutant found the planted bug: \(outputs[0])")
        let schedule = SwarmSchedule.fileName(of: failing)
        #expect(outputs[0].contains("replay: workbench swarm \(file) --schedule \(schedule)"))
        let replay = try workbench(["swarm", file, "--schedule", schedule])
        #expect(replay.status == 1 && replay.stdout.contains("(the same as the swarm's run)"), "\(replay.output)")
        #expect(replay.stdout.contains(failing.digest.prefix(16)))
        // A run whose digest does not come back is not reproduced, though it passed: the leading word says so.
        let passing = try #require(results[0].runs.first { $0.passed }, "a run passed: \(outputs[0])")
        let tampered = directory.appendingPathComponent("tampered.json").path
        try SwarmSchedule(passing, faultClass: .actors).jsonText
            .replacingOccurrences(of: passing.digest, with: String(repeating: "0", count: 64))
            .write(toFile: tampered, atomically: true, encoding: .utf8)
        let moved = try workbench(["swarm", file, "--schedule", tampered])
        #expect(
            moved.status == 1 && moved.stdout.hasPrefix("NOT REPRODUCED ")
                && moved.stdout.contains("(the swarm's run had 0000000000000000…: the code or the file changed since)"),
            "\(moved.output)")
        let shrink = try workbench(["shrink", file, "--schedule", schedule, "--out", "shrunk.scn"])
        #expect(shrink.status == 0 && shrink.stdout.contains("the shrunk scenario fails the same way"), "\(shrink.output)")
    }
}
