import Foundation
import Kernel
import Scenario
import Testing

@testable import Workbench

/// The simulated disk's faults are the world's, named like an actor's points: a scenario names them whatever it
/// starts, they are refused on the live wire when read, and a crash after a lying sync loses what MiG acknowledged
/// without holding MiG to it.
@Suite struct DiskFaultTests {
    func parse(_ text: String) -> (Script, [ScenarioError]) { Catalog.language.parse(file: "t.scn", text: text) }

    @Test func theDisksFaultPointsAreKnownWhenReadAndAMisspeltOneIsRefused() {
        for point in Kernel.diskFaultPoints { #expect(parse("fault \(point) once").1.isEmpty, "\(point)") }
        let errors = parse("fault disk.fsnyc-lie on").1
        #expect(errors.map(\.message) == [errors.first?.message ?? ""] && errors.first?.column == 7)
        #expect(errors.first?.message.contains("did you mean 'disk.fsync-lie'") == true, "\(errors.map(\.message))")
    }

    @Test func theDisksFaultsAreRefusedOnTheLiveWire() throws {
        let (script, errors) = parse("start mig\nlater 1s fault disk.write-error on\nfault mig.busy once")
        try #require(errors.isEmpty)
        for mode in [LiveMode.run, .attached] {
            let refusals = script.statements.compactMap { Catalog.language.liveProblem($0, in: mode) }
            // An attached session also refuses `start`: its actors are the served ones.
            #expect(refusals.map(\.line) == (mode == .run ? [2] : [1, 2]), "\(refusals.map(\.message))")
            let disk = refusals.first { $0.line == 2 }
            #expect(disk?.column == 16)
            #expect(disk?.message.contains("'disk.write-error' is a fault of the simulated disk") == true, "\(refusals.map(\.message))")
        }
    }

    /// Seed 1's crash keeps the database whole and loses the unsynced job (another seed may tear the file instead).
    @Test func aCrashAfterALyingSyncLosesTheJobAndBreaksNoPromise() throws {
        func run(lie: Bool) throws -> ScenarioRunner.Result {
            let text = """
                start mig database=/tmp/disk-fault-tests/mig.db sync-to-disk=true
                fault disk.fsync-lie \(lie ? "on" : "off")
                mig print bytes 10000 name "lied.pdf" hold as lied
                expect ${lied.status} == ok
                crash mig
                fault disk.fsync-lie off
                restart mig
                mig job ${lied.job} as after
                expect ${after.status} == \(lie ? "error" : "ok")
                """
            let (script, errors) = parse(text)
            try #require(errors.isEmpty, "\(errors.map(\.message))")
            return SwarmScripts.runner.run(script, seed: 1) { _ in }
        }
        let lied = try run(lie: true)
        #expect(lied.passed, "\(lied.error ?? "") \(lied.failures.map { $0.failure ?? "" }) \(lied.violations.map(\.message))")
        let honest = try run(lie: false)
        #expect(honest.passed, "\(honest.error ?? "") \(honest.failures.map { $0.failure ?? "" }) \(honest.violations.map(\.message))")
    }

    /// A power cut armed across a `restart` falls among the start's recovery writes: nothing the start did after it
    /// counts, the node crashes once the start ends, and after its downtime the actor is back with what it acknowledged.
    @Test func aPowerCutDuringARestartCrashesItOnceStartedAndItComesBack() throws {
        let text = """
            start mig database=/tmp/disk-fault-tests/cut.db spool=/tmp/disk-fault-tests/cut-spool sync-to-disk=true
            mig print bytes 20000 name "held.pdf" hold as held
            expect ${held.status} == ok
            crash mig at write 1 for 3s
            restart mig
            advance 10s
            mig job ${held.job} as back
            expect ${back.state} == pending-held
            mig print bytes 20000 name "after.pdf" as after
            expect ${after.status} == ok
            """
        let (script, errors) = parse(text)
        try #require(errors.isEmpty, "\(errors.map(\.message))")
        for seed: UInt64 in 1...4 {
            let result = SwarmScripts.runner.run(script, seed: seed) { _ in }
            #expect(
                result.passed, "seed \(seed): \(result.error ?? "") \(result.failures.map { $0.failure ?? "" }) \(result.violations.map(\.message))")
            let events = result.trace.split(separator: "\n").compactMap { line in
                ["power-cut", "crashed", "restarted"].first { line.contains("\"event\":\"\($0)\"") }
            }
            #expect(events == ["power-cut", "restarted", "crashed", "restarted"], "seed \(seed): \(events)")
        }
    }
}
