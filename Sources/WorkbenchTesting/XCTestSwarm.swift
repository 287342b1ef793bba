import Foundation
import WorkbenchKit
import XCTest

// The same swarms for a suite written with XCTest: each failing seed is one failure of the test (`XCTFail`), with what
// failed and its virtual time, the drawn changes shrunk, and the command that replays the seed alone.
extension XCTestCase {
    /// Runs `body` in a fresh `Simulation` for each seed of `seeds`, as the swift-testing `swarm(seeds:jobs:_:)` does,
    /// and fails the test once for each seed that failed: what failed (with the virtual time), the world's changes,
    /// and the command that replays that seed alone (`WORKBENCH_SEED=N swift test --filter 'Module.Class/testName'`).
    /// - parameters:
    ///   - seeds: the seeds to run.
    ///   - jobs: how many worlds run at once (each on one thread; default: the machine's cores).
    ///   - file: where the failures are reported (the call's, by default).
    ///   - line: the line of `file`.
    ///   - body: the test's story, run in each world. It must behave the same for the same seed.
    /// - returns: the seeds that ran and those that failed.
    @discardableResult
    public func swarm(
        seeds: ClosedRange<UInt64>, jobs: Int = ProcessInfo.processInfo.activeProcessorCount, file: StaticString = #filePath,
        line: UInt = #line, _ body: @escaping @Sendable (Simulation) throws -> Void
    ) async -> SwarmOutcome {
        await swarm(seeds: seeds, faults: nil, jobs: jobs, environment: ProcessInfo.processInfo.environment, body) {
            XCTFail($0, file: file, line: line)
        }
    }

    /// Runs `body` for each seed in a world that first gets the changes the seed draws from `faults`, and shrinks the
    /// drawn changes of each seed that fails, as the swift-testing `swarm(seeds:faults:jobs:_:)` does; each failing
    /// seed is one failure of the test, whose replay command keeps exactly the changes that still fail
    /// (`WORKBENCH_SEED=7 WORKBENCH_FAULTS=0,3 swift test --filter '…'`).
    /// - parameters:
    ///   - seeds: the seeds to run.
    ///   - faults: the changes each seed draws from, how many and when.
    ///   - jobs: how many worlds run at once (default: the machine's cores); a seed shrinks in its own.
    ///   - file: where the failures are reported (the call's, by default).
    ///   - line: the line of `file`.
    ///   - body: the test's story, run in each world after the drawn changes are applied.
    /// - returns: the seeds that ran and those that failed.
    @discardableResult
    public func swarm(
        seeds: ClosedRange<UInt64>, faults: SwarmFaults, jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
        file: StaticString = #filePath, line: UInt = #line, _ body: @escaping @Sendable (Simulation) throws -> Void
    ) async -> SwarmOutcome {
        await swarm(seeds: seeds, faults: faults, jobs: jobs, environment: ProcessInfo.processInfo.environment, body) {
            XCTFail($0, file: file, line: line)
        }
    }

    /// Runs `body` in a fresh `Simulation` under `seed` and fails the test once for each of its `Simulation.failures`
    /// (after the end-of-run checks), stamped with the seed and the virtual time.
    /// - parameters:
    ///   - seed: the world's seed.
    ///   - file: where the failures are reported (the call's, by default).
    ///   - line: the line of `file`.
    ///   - body: the test's story in that world.
    /// - returns: what `body` returned.
    /// - throws: what `body` threw (the world's failures are reported first).
    public func simulate<T>(seed: UInt64, file: StaticString = #filePath, line: UInt = #line, _ body: (Simulation) throws -> T) rethrows -> T {
        let world = Simulation(seed: seed)
        defer {
            world.finish()
            for failure in world.failures { XCTFail("seed \(seed): \(failure)", file: file, line: line) }
        }
        return try body(world)
    }

    /// Both swarms, with the environment and the recording of a failure passed in (the tests pass their own).
    func swarm(
        seeds: ClosedRange<UInt64>, faults: SwarmFaults?, jobs: Int, environment: [String: String],
        _ body: @escaping @Sendable (Simulation) throws -> Void, record: (String) -> Void
    ) async -> SwarmOutcome {
        let findings = await SwarmFindings(
            seeds: seeds, faults: faults, jobs: jobs, environment: environment, replay: Self.replayCommand(testName: name), body)
        findings.issues.forEach(record)
        return findings.outcome
    }

    /// The command that runs the test called `testName` alone: `Module.Class/testMethod` is what `--filter` matches.
    /// XCTest names a test `Class.testMethod` on Linux and `-[Class testMethod]` on Apple's platforms.
    static func replayCommand(testName: String) -> String {
        let type = String(reflecting: Self.self)
        let words = testName.trimmingCharacters(in: CharacterSet(charactersIn: "-[]")).split(whereSeparator: { $0 == " " || $0 == "." })
        guard let method = words.last, words.count >= 2 else { return "swift test --filter '\(type)'" }
        return "swift test --filter '\(type)/\(method)'"
    }
}
