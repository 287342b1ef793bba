import Foundation
import WorkbenchKit
import XCTest

@testable import WorkbenchTesting

/// The XCTest face of the swarm helper: a failing seed is one failure of the test, with the command that replays it.
final class XCTestSwarmTests: XCTestCase {
    func testEachFailingSeedIsOneFailureWithItsReplayCommand() async {
        var recorded: [String] = []
        let outcome = await swarm(seeds: 1...6, faults: nil, jobs: 2, environment: [:]) { world in
            try world.start("echo")
            try world.run("http GET http://echo/ as r")
            world.check(world.seed != 4, "seed 4 planted")
        } record: {
            recorded.append($0)
        }
        XCTAssertEqual(outcome, SwarmOutcome(seedsRun: 6, failingSeeds: [4]))
        XCTAssertEqual(recorded.count, 1)
        XCTAssertTrue(recorded.first?.hasPrefix("seed 4 failed (1 failure):") == true, "\(recorded)")
        XCTAssertTrue(recorded.first?.contains("seed 4 planted") == true, "\(recorded)")
        let replay =
            "replay: WORKBENCH_SEED=4 swift test --filter 'WorkbenchKitTests.XCTestSwarmTests/testEachFailingSeedIsOneFailureWithItsReplayCommand'"
        XCTAssertTrue(recorded.first?.hasSuffix(replay) == true, "\(recorded)")
    }

    /// Drawn changes are shrunk as in the swift-testing face: a body that fails whatever was drawn keeps none of them,
    /// and the replay says so.
    func testDrawnChangesAreShrunkAndNamedInTheReplay() async {
        let faults = SwarmFaults(
            [.partition("phone", "echo"), .clockSkew(node: "phone", by: .seconds(30))], count: 2...2, within: .zero ... .seconds(1))
        var recorded: [String] = []
        let outcome = await swarm(seeds: 1...3, faults: faults, jobs: 2, environment: ["WORKBENCH_SEED": "2"]) { world in
            try world.start("echo")
            try world.advance(by: .seconds(2))
            world.check(false, "fails whatever was drawn")
        } record: {
            recorded.append($0)
        }
        XCTAssertEqual(outcome, SwarmOutcome(seedsRun: 1, failingSeeds: [2]), "WORKBENCH_SEED chooses one seed")
        XCTAssertEqual(recorded.count, 1)
        let report = recorded.first ?? ""
        XCTAssertTrue(report.contains("drawn changes: [0] at "), report)
        XCTAssertTrue(report.contains("shrunk in 2 more runs to none"), report)
        XCTAssertTrue(report.contains("replay: WORKBENCH_SEED=2 WORKBENCH_FAULTS=none swift test --filter "), report)
    }

    /// A malformed WORKBENCH_SEED is one failure that says what is wrong, and nothing runs.
    func testAMalformedSeedIsOneFailureAndNothingRuns() async {
        var recorded: [String] = []
        let outcome = await swarm(seeds: 1...3, faults: nil, jobs: 1, environment: ["WORKBENCH_SEED": "seven"]) { _ in
            XCTFail("no seed should run")
        } record: {
            recorded.append($0)
        }
        XCTAssertEqual(outcome, SwarmOutcome(seedsRun: 0, failingSeeds: []))
        XCTAssertEqual(recorded, ["WORKBENCH_SEED=seven: expected a seed, a whole number from 0 to \(UInt64.max)"])
    }

    func testAWorldRunsUnderItsSeed() throws {
        let seed = try simulate(seed: 9) { world in
            try world.start("echo")
            try world.run("http GET http://echo/ as r\nexpect ${r.status} == 200")
            return world.seed
        }
        XCTAssertEqual(seed, 9)
    }
}
