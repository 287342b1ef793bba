import Foundation
import Scenario
import TestSupport
import Testing

@testable import Workbench

/// The systems' reach points: named under their system, at least three each, each one recognised in a deterministic
/// run that takes its path, and listed by `workbench reach`.
@Suite struct ReachPointTests {
    func run(_ file: String, seed: UInt64 = 1) throws -> ScenarioRunner.Result {
        let text = try String(contentsOfFile: Repository.root.appendingPathComponent(file).path, encoding: .utf8)
        let (script, errors) = Catalog.language.parse(file: file, text: text)
        try #require(errors.isEmpty, "\(errors.map(\.message))")
        return SwarmScripts.runner.run(script, seed: seed) { _ in }
    }

    func run(text: String) throws -> ScenarioRunner.Result {
        let (script, errors) = Catalog.language.parse(file: "t.scn", text: text)
        try #require(errors.isEmpty, "\(errors.map(\.message))")
        return SwarmScripts.runner.run(script, seed: 1) { _ in }
    }

    @Test func everySystemDeclaresAtLeastThreeUnderItsOwnName() {
        let names = Catalog.reachPoints.map(\.name)
        #expect(Set(names).count == names.count, "no name twice")
        for system in Catalog.systems where system.name != "Echo" {
            let prefixes = Set(system.reachPoints.compactMap { $0.name.split(separator: ".").first.map(String.init) })
            #expect(system.reachPoints.count >= 3, "\(system.name) declares \(system.reachPoints.count)")
            #expect(prefixes.count == 1, "\(system.name): \(prefixes)")
            #expect(system.reachPoints.allSatisfy { !Set($0.actorKinds).isDisjoint(with: system.actorKinds.map(\.name)) })
        }
    }

    /// Each system's flagship point, reached by the scenario that takes its path; the runs' digests are the ones they
    /// always had (reaching records nothing).
    @Test(arguments: [
        ("Simulations/mig-held-and-abandoned.scn", "mig.job-held-then-completed"),
        ("Simulations/mig-retries.scn", "mig.busy-then-submitted"),
        ("Simulations/scpms-reregister.scn", "scpms.re-registered-after-server-forgot"),
        ("Simulations/scpms-delete-store-failure.scn", "scpms.delete-retried"),
        ("Simulations/scpms-delete-store-failure.scn", "scpms.delete-failed"),
        ("Simulations/ivanti-renewal.scn", "ivanti.credential-renewed"),
        ("Simulations/sunfire-socprint-failures.scn", "sunfire.upload-failed"),
        // The swarm's workload takes the paths no fault brings about: a held job, a renewal, a pause past a token's life.
        ("Simulations/ecosystem-swarm.scn", "mig.job-held-then-completed"),
        ("Simulations/ecosystem-swarm.scn", "ivanti.credential-renewed"),
        ("Simulations/ecosystem-swarm.scn", "ims.token-refreshed-after-expiry"),
    ])
    func aScenarioThatTakesThePathReachesThePoint(file: String, point: String) throws {
        let result = try run(file)
        #expect(result.passed)
        #expect(result.reached.contains(point), "\(file) reached \(result.reached)")
    }

    @Test func aPointIsNotReachedWhereItsPathIsNotTaken() throws {
        let result = try run("Simulations/mig-happy-path.scn")
        #expect(result.passed && !result.reached.contains("mig.job-held-then-completed") && !result.reached.contains("mig.busy-then-submitted"))
    }

    @Test func anIMSRefreshAfterTheTokenExpiredIsToldFromOneAhead() throws {
        let setup = "start ims-signer\nstart ims\nims enrol 14\nims register-certificate\nims start-session 14\n"
        let late = try run(text: setup + "advance 20m\nims status 14 as s\nexpect ${s.status} == 200\n")
        #expect(late.passed && late.reached.contains("ims.token-refreshed-after-expiry"), "\(late.reached) \(late.failures.map { $0.failure ?? "" })")
        let early = try run("Simulations/ims-refresh-expiry.scn")
        #expect(
            early.trace.contains("\"token-refreshed\"") && !early.reached.contains("ims.token-refreshed-after-expiry"), "refreshed ahead of expiry")
    }

    @Test func reachListsEveryPointWithItsOutcome() throws {
        let listing = try WorkbenchBinary.run(["reach"])
        #expect(listing.status == 0)
        let lines = listing.stdout.split(separator: "\n")
        #expect(lines.count == Catalog.reachPoints.count)
        #expect(lines.contains { $0.hasPrefix("scpms.re-registered-after-server-forgot ") && $0.hasSuffix("(scpms)") })
    }
}
