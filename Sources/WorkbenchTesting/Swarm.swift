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
/// replay command each failing seed's issue gives. A value that is no seed is an issue of the test, and nothing runs.
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
    await swarm(
        seeds: seeds, faults: nil, jobs: jobs, environment: ProcessInfo.processInfo.environment, sourceLocation: sourceLocation, body)
}

/// Runs `body` for each seed as ``swarm(seeds:jobs:sourceLocation:_:)`` does, in a world that first gets the changes
/// the seed draws from `faults` (`SwarmFaults.draw(seed:)`), each at its drawn time; and shrinks the drawn changes of
/// each seed that fails.
///
/// Shrinking runs the failing seed again, in a fresh world each time, with one drawn change left out after another,
/// keeping each one left out as long as the seed still fails the same way (a failure of the same check, invariant or
/// thrown error), until none can be left out. The seed's one issue gives what failed, the plan it drew (each change
/// with its position), the smallest set of changes that still fails and what fails with it, and the command that
/// replays the seed with exactly that set: `WORKBENCH_SEED=7 WORKBENCH_FAULTS=0,3 swift test --filter '…'`.
///
/// `WORKBENCH_FAULTS` lists positions in the plan of the seed `WORKBENCH_SEED` names, separated by commas, or is
/// `none`: that seed runs with only those changes, and is not shrunk. A value that names no drawn change, or comes
/// without `WORKBENCH_SEED`, is an issue of the test that says what is wrong, and nothing runs.
/// - parameters:
///   - seeds: the seeds to run.
///   - faults: the changes each seed draws from, how many and when.
///   - jobs: how many worlds run at once (each on one thread; default: the machine's cores); a seed shrinks in its own.
///   - body: the test's story, run in each world after the drawn changes are applied (at time zero; each happens at
///     its drawn time, in the middle of whatever the body runs then). It starts the actors and makes the nodes the
///     changes act on, and must behave the same for the same seed and the same changes.
///   - sourceLocation: where the issues of failing seeds are recorded (the call, by default).
/// - returns: the seeds that ran and those that failed.
@discardableResult
public func swarm(
    seeds: ClosedRange<UInt64>, faults: SwarmFaults, jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
    sourceLocation: SourceLocation = #_sourceLocation, _ body: @escaping @Sendable (Simulation) throws -> Void
) async -> SwarmOutcome {
    await swarm(
        seeds: seeds, faults: faults, jobs: jobs, environment: ProcessInfo.processInfo.environment, sourceLocation: sourceLocation, body)
}

/// Both swarms, with the environment that may choose a seed and its changes passed in (the tests pass their own).
func swarm(
    seeds: ClosedRange<UInt64>, faults: SwarmFaults?, jobs: Int, environment: [String: String], sourceLocation: SourceLocation,
    _ body: @escaping @Sendable (Simulation) throws -> Void
) async -> SwarmOutcome {
    let findings = await SwarmFindings(
        seeds: seeds, faults: faults, jobs: jobs, environment: environment, replay: SwarmOutcome.replayCommand(), body)
    for issue in findings.issues { Issue.record(Comment(rawValue: issue), sourceLocation: sourceLocation) }
    return findings.outcome
}

/// What a swarm found, before a test framework hears of it: the issues to record (a plan or environment that cannot
/// run, or one report a failing seed) and the outcome. Both faces, swift-testing's and XCTest's, record these.
struct SwarmFindings {
    let issues: [String]
    let outcome: SwarmOutcome

    /// Runs the swarm; `replay` is the command that runs the current test alone, which each failing seed's report
    /// prefixes with its environment.
    init(
        seeds: ClosedRange<UInt64>, faults: SwarmFaults?, jobs: Int, environment: [String: String], replay: String,
        _ body: @escaping @Sendable (Simulation) throws -> Void
    ) async {
        if let problem = faults?.problem {
            (issues, outcome) = ([problem], SwarmOutcome(seedsRun: 0, failingSeeds: []))
            return
        }
        let chosen: SwarmReplay
        do { chosen = try SwarmReplay(environment: environment, faults: faults) } catch {
            (issues, outcome) = ([error.message], SwarmOutcome(seedsRun: 0, failingSeeds: []))
            return
        }
        let run = chosen.seed.map { [$0] } ?? Array(seeds)
        var failed: [FailingSeed] = []
        await withTaskGroup(of: FailingSeed?.self) { group in
            var pending = run.makeIterator()
            for _ in 0..<max(1, jobs) {
                guard let seed = pending.next() else { break }
                group.addTask { FailingSeed(seed: seed, faults: faults, kept: chosen.kept, body) }
            }
            for await failing in group {
                if let failing { failed.append(failing) }
                if let seed = pending.next() { group.addTask { FailingSeed(seed: seed, faults: faults, kept: chosen.kept, body) } }
            }
        }
        failed.sort { $0.seed < $1.seed }
        issues = failed.map { $0.report(replay: replay) }
        outcome = SwarmOutcome(seedsRun: run.count, failingSeeds: failed.map(\.seed))
    }
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

/// What a swarm (``swarm(seeds:jobs:sourceLocation:_:)``, ``swarm(seeds:faults:jobs:sourceLocation:_:)``) ran.
public struct SwarmOutcome: Sendable, Equatable {
    /// How many seeds ran (one, when `WORKBENCH_SEED` chose it).
    public let seedsRun: Int
    /// The seeds that failed, in order (each has its issue).
    public let failingSeeds: [UInt64]

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

/// The seed and drawn changes `WORKBENCH_SEED` and `WORKBENCH_FAULTS` choose, checked against the swarm's faults.
struct SwarmReplay {
    /// The one seed to run, or nil for all.
    let seed: UInt64?
    /// The positions in that seed's plan of the changes to apply, in order, or nil for all of them.
    let kept: [Int]?

    /// Why the environment chooses no seed or no drawn change: what is wrong, and what was expected.
    struct Refusal: Error {
        let message: String
    }

    init(environment: [String: String], faults: SwarmFaults?) throws(Refusal) {
        if let text = environment["WORKBENCH_SEED"] {
            guard let seed = UInt64(text) else {
                throw Refusal(message: "WORKBENCH_SEED=\(text): expected a seed, a whole number from 0 to \(UInt64.max)")
            }
            self.seed = seed
        } else {
            seed = nil
        }
        guard let text = environment["WORKBENCH_FAULTS"] else {
            kept = nil
            return
        }
        let expected = "expected the positions of drawn changes separated by commas, as a failing seed's replay command gives them (0,3), or none"
        guard let seed else {
            throw Refusal(message: "WORKBENCH_FAULTS=\(text): names drawn changes of one seed; expected WORKBENCH_SEED=N with it")
        }
        guard text != "none" else {
            kept = []
            return
        }
        var positions: [Int] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard !item.isEmpty, item.allSatisfy({ "0"..."9" ~= $0 }), let position = Int(item) else {
                throw Refusal(message: "WORKBENCH_FAULTS=\(text): '\(item)' is no position; \(expected)")
            }
            guard !positions.contains(position) else { throw Refusal(message: "WORKBENCH_FAULTS=\(text): position \(position) twice; \(expected)") }
            positions.append(position)
        }
        let drawn = faults?.draw(seed: seed).count ?? 0
        if let beyond = positions.first(where: { $0 >= drawn }) {
            let plan = drawn == 0 ? "draws no change" : "draws \(drawn) change\(drawn == 1 ? "" : "s"), at positions 0 to \(drawn - 1)"
            throw Refusal(message: "WORKBENCH_FAULTS=\(text): there is no position \(beyond): seed \(seed) \(plan)")
        }
        kept = positions.sorted()
    }
}

/// A seed that failed: its first run, with every drawn change (or those `WORKBENCH_FAULTS` kept), and its drawn changes
/// shrunk.
private struct FailingSeed: Sendable {
    let seed: UInt64
    /// The seed's plan, or nil in a swarm that draws no changes.
    let plan: [DrawnChange]?
    let first: SeedRun
    /// The run with the fewest drawn changes that still failed the same way (the first run when none could be left out).
    let smallest: SeedRun
    /// How many runs shrinking took, or nil when `WORKBENCH_FAULTS` chose the changes.
    let shrinkingRuns: Int?

    /// Runs `seed`; nil when it passes.
    init?(seed: UInt64, faults: SwarmFaults?, kept: [Int]?, _ body: @Sendable (Simulation) throws -> Void) {
        let plan = faults?.draw(seed: seed)
        let first = SeedRun(seed: seed, plan: plan ?? [], kept: kept ?? Array((plan ?? []).indices), body)
        guard !first.failures.isEmpty else { return nil }
        (self.seed, self.plan, self.first) = (seed, plan, first)
        guard let plan, kept == nil else {
            (smallest, shrinkingRuns) = (first, nil)
            return
        }
        // Greedy, one change at a time, until a whole pass leaves none out: each left out has been tried against the
        // smallest set so far, and a change needed once may be needed no longer when another goes.
        var smallest = first
        var runs = 0
        var shrinking = true
        while shrinking {
            shrinking = false
            for position in smallest.kept {
                let trial = SeedRun(seed: seed, plan: plan, kept: smallest.kept.filter { $0 != position }, body)
                runs += 1
                if !trial.origins.isDisjoint(with: first.origins) {
                    smallest = trial
                    shrinking = true
                }
            }
        }
        (self.smallest, shrinkingRuns) = (smallest, runs)
    }

    func report(replay: String) -> String {
        var lines = ["seed \(seed) failed (\(first.failures.count) failure\(first.failures.count == 1 ? "" : "s")):"]
        lines += first.failures.map { "  \($0)" }
        var environment = "WORKBENCH_SEED=\(seed)"
        if let plan {
            let kept = smallest.kept.isEmpty ? "none" : smallest.kept.map { "[\($0)]" }.joined(separator: " ")
            lines.append(
                "  drawn changes: " + (plan.isEmpty ? "none" : plan.enumerated().map { "[\($0.offset)] \($0.element)" }.joined(separator: "; ")))
            if let shrinkingRuns {
                if smallest.kept == first.kept {
                    lines.append("  shrunk: no drawn change can be left out (\(shrinkingRuns) more run\(shrinkingRuns == 1 ? "" : "s"))")
                } else {
                    lines.append("  shrunk in \(shrinkingRuns) more runs to \(kept), which fail\(smallest.kept.count == 1 ? "s" : "") with:")
                    lines += smallest.failures.map { "    \($0)" }
                }
            } else {
                lines.append("  kept by WORKBENCH_FAULTS: \(kept)")
            }
            environment += " WORKBENCH_FAULTS=" + (smallest.kept.isEmpty ? "none" : smallest.kept.map(String.init).joined(separator: ","))
        }
        lines.append("  changes to the world: " + (smallest.changes.isEmpty ? "none" : smallest.changes.joined(separator: "; ")))
        lines.append("  replay: \(environment) \(replay)")
        return lines.joined(separator: "\n")
    }
}

/// One seed's world, run with some of its drawn changes: what failed in it and the changes it made.
private struct SeedRun: Sendable {
    /// The positions in the seed's plan of the changes applied.
    let kept: [Int]
    let failures: [String]
    /// Where each failure comes from (a check's place, an invariant, the body's throw): two runs that share one fail the
    /// same way.
    let origins: Set<String>
    let changes: [String]

    init(seed: UInt64, plan: [DrawnChange], kept: [Int], _ body: @Sendable (Simulation) throws -> Void) {
        self.kept = kept
        let world = Simulation(seed: seed)
        var thrown: [(origin: String, text: String)] = []
        do { try world.apply(kept.map { plan[$0] }) } catch {
            thrown.append(("plan", "t=\(world.now.workbenchText) the drawn changes could not be applied: \(error)"))
        }
        if thrown.isEmpty {
            do { try body(world) } catch { thrown.append(("body", "t=\(world.now.workbenchText) the body threw: \(error)")) }
        }
        world.finish()
        failures = world.failures.map(\.description) + thrown.map(\.text)
        origins = Set(world.failures.map(\.origin) + thrown.map(\.origin))
        changes = world.changes
    }
}
