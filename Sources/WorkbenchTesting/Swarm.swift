import Foundation
import Testing
import Wire
import WorkbenchKit

/// Runs `body` in a fresh `Simulation` for each seed of `seeds`, up to `jobs` worlds at a time, and records one
/// swift-testing issue for each seed that failed: what failed (with the virtual time), the world's changes (the
/// faults), and the command that replays that seed alone.
///
/// A seed fails when `body` throws or when its world's `Simulation.failures` is not empty after the body (the
/// end-of-run checks, `Simulation.finish()`, included): report a failed condition inside the body with
/// `Simulation.check(_:_:fileID:line:)`, which carries the seed and virtual time, rather than `#expect`, which
/// carries neither.
///
/// With `WORKBENCH_SEED=N` in the environment, only seed N runs (whether or not it is in `seeds`): that is the
/// replay command each failing seed's issue gives.
/// - parameters:
///   - seeds: the seeds to run.
///   - jobs: how many worlds run at once (each on one thread; default: the machine's cores).
///   - sourceLocation: where the failing seeds' issues are recorded (the call's, by default).
///   - body: the test's story, run in each world on the thread that made it. It must behave the same for the
///     same seed: everything it varies comes from the world (its nodes' random streams, the seeded fault points).
/// - returns: the seeds that ran and those that failed.
@discardableResult
public func swarm(
    seeds: ClosedRange<UInt64>, jobs: Int = ProcessInfo.processInfo.activeProcessorCount, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable (Simulation) throws -> Void
) async -> SwarmOutcome {
    let chosen = SwarmOutcome.replaySeed.map { [$0] } ?? Array(seeds)
    var failed: [SeedRun] = []
    await withTaskGroup(of: SeedRun.self) { group in
        var pending = chosen.makeIterator()
        for _ in 0..<max(1, jobs) {
            guard let seed = pending.next() else { break }
            group.addTask { SeedRun(seed: seed, body) }
        }
        for await run in group {
            if !run.failures.isEmpty { failed.append(run) }
            if let seed = pending.next() { group.addTask { SeedRun(seed: seed, body) } }
        }
    }
    failed.sort { $0.seed < $1.seed }
    let replay = SwarmOutcome.replayCommand()
    for run in failed {
        Issue.record(Comment(rawValue: run.report(replay: replay)), sourceLocation: sourceLocation)
    }
    return SwarmOutcome(seedsRun: chosen.count, failingSeeds: failed.map(\.seed))
}

/// Runs `body` in a fresh `Simulation` under `seed` and records one swift-testing issue for each of its
/// `Simulation.failures` (after the end-of-run checks), stamped with the seed and the virtual time.
///
/// - returns: what `body` returned.
/// - throws: what `body` threw (the world's failures are recorded first).
public func simulate<T>(seed: UInt64, sourceLocation: SourceLocation = #_sourceLocation, _ body: (Simulation) throws -> T) rethrows -> T {
    let world = Simulation(seed: seed)
    defer {
        world.finish()
        for failure in world.failures {
            Issue.record(Comment(rawValue: "seed \(seed): \(failure)"), sourceLocation: sourceLocation)
        }
    }
    return try body(world)
}

/// What ``swarm(seeds:jobs:sourceLocation:_:)`` ran.
public struct SwarmOutcome: Sendable, Equatable {
    /// How many seeds ran (one, when `WORKBENCH_SEED` chose it).
    public let seedsRun: Int
    /// The seeds that failed, in order (each has its issue).
    public let failingSeeds: [UInt64]

    /// The seed `WORKBENCH_SEED` names, if it names one.
    static var replaySeed: UInt64? { ProcessInfo.processInfo.environment["WORKBENCH_SEED"].flatMap { UInt64($0) } }

    /// The command that runs the current test alone, to be prefixed with the seed's environment.
    static func replayCommand() -> String {
        guard let test = Test.current else { return "swift test" }
        // `--filter` is a regular expression over `Module.Suite/test()`: the parentheses are left off, not escaped, so
        // the command pastes into any shell.
        var components = test.id.nameComponents
        if let last = components.last, let open = last.firstIndex(of: "(") { components[components.count - 1] = String(last[..<open]) }
        return "swift test --filter '\(([test.id.moduleName] + [components.joined(separator: "/")]).joined(separator: "."))'"
    }
}

/// One seed's world, run: what failed in it and the changes it made.
private struct SeedRun: Sendable {
    let seed: UInt64
    let failures: [String]
    let changes: [String]

    init(seed: UInt64, _ body: @Sendable (Simulation) throws -> Void) {
        self.seed = seed
        let world = Simulation(seed: seed)
        var thrown: [String] = []
        do { try body(world) } catch { thrown.append("t=\(world.now.workbenchText) the body threw: \(error)") }
        world.finish()
        failures = world.failures.map(\.description) + thrown
        changes = world.changes
    }

    func report(replay: String) -> String {
        var lines = ["seed \(seed) failed (\(failures.count) failure\(failures.count == 1 ? "" : "s")):"]
        lines += failures.map { "  \($0)" }
        lines.append("  changes to the world: " + (changes.isEmpty ? "none" : changes.joined(separator: "; ")))
        lines.append("  replay: WORKBENCH_SEED=\(seed) \(replay)")
        return lines.joined(separator: "\n")
    }
}
