import Scenario

/// Turns a failing swarm seed into the smallest plain scenario that still fails the same way.
///
/// The seed's fault schedule is made explicit (each fault a scenario line before a statement), then faults are
/// removed by delta debugging until every one left is needed: dropping any single one makes the failure go away.
/// The result is the original file with those lines written in, which fails without the swarm's schedule.
public struct Shrinker: Sendable {
    public let swarm: SwarmRunner

    public init(swarm: SwarmRunner) {
        self.swarm = swarm
    }

    /// How a seed fails, and the faults its schedule ran.
    public struct Failure: Sendable {
        public let signature: FailureSignature
        public let faults: [ScheduledFault]
    }

    /// The faults a failure needs.
    public struct Shrunk: Sendable {
        public let kept: [ScheduledFault]
        /// How many runs it took, the seed's first run included.
        public let runs: Int
    }

    /// Whether the shrunk scenario also fails without the seed.
    public struct Reproduction: Sendable {
        /// Another seed the shrunk scenario was run under.
        public let otherSeed: UInt64
        /// Whether it fails the same way under `otherSeed` too: the seed then only drives what no longer matters.
        public let failsUnderOtherSeed: Bool
    }

    /// `script`'s failure under `seed` with the seed's faults; nil if it passes.
    public func failure(of script: Script, seed: UInt64) -> Failure? {
        let original = swarm.run(script, seed: seed)
        return FailureSignature(original).map { Failure(signature: $0, faults: original.faults) }
    }

    /// `script`'s failure under `seed` with exactly `faults` (a written schedule's); nil if it passes.
    public func failure(of script: Script, seed: UInt64, faults: [ScheduledFault]) -> Failure? {
        let original = swarm.run(script, seed: seed, faults: faults)
        return FailureSignature(original).map { Failure(signature: $0, faults: original.faults) }
    }

    /// The fewest of `failure`'s faults that still make `script` fail the same way under `seed`: whole sites first
    /// (all the faults one link, clock, point or swizzle fired), then single faults of the sites left, so a swizzle
    /// can lose a link and keep the order of its other clogs and unclogs.
    public func minimise(_ failure: Failure, script: Script, seed: UInt64) -> Shrunk {
        var runs = 1
        func fails(_ subset: [ScheduledFault]) -> Bool {
            runs += 1
            return FailureSignature(swarm.runner.run(script, seed: seed, faults: .explicit(subset)) { _ in }) == failure.signature
        }
        var order: [String] = []
        for (index, fault) in failure.faults.enumerated() where !order.contains(fault.site ?? "fault \(index)") {
            order.append(fault.site ?? "fault \(index)")
        }
        let sites = DeltaDebugging.minimise(order) { kept in fails(Self.faults(failure.faults, of: Set(kept))) }
        let survivors = Self.faults(failure.faults, of: Set(sites))
        let kept = survivors.count > 1 ? DeltaDebugging.minimise(survivors, fails: fails) : survivors
        return Shrunk(kept: kept, runs: runs)
    }

    /// The faults of `all` whose site is one of `sites` (a fault without a site is its own, `fault INDEX`), in order.
    private static func faults(_ all: [ScheduledFault], of sites: Set<String>) -> [ScheduledFault] {
        all.enumerated().filter { sites.contains($0.element.site ?? "fault \($0.offset)") }.map(\.element)
    }

    /// `text` (the file `script` was parsed from) with each fault's line written in before the statement it
    /// preceded, under `header`.
    public static func scenario(_ text: String, script: Script, faults: [ScheduledFault], header: String) -> String {
        var before: [Int: [String]] = [:]
        for fault in faults {
            before[script.statements[fault.before].line, default: []].append(
                fault.line + "   # fault kept by shrink" + (fault.site.map { " (site \($0))" } ?? ""))
        }
        var lines = [header]
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            lines += before[index + 1] ?? []
            lines.append(String(line))
        }
        var result = lines.joined(separator: "\n")
        if !result.hasSuffix("\n") { result += "\n" }
        return result
    }

    /// Runs the shrunk scenario as a plain run under `seed` and under another seed.
    ///
    /// - throws: ``SwarmError`` (`.shrinking`) if it does not parse or does not fail the same way under `seed`.
    public func reproduce(_ shrunk: String, file: String, seed: UInt64, signature: FailureSignature) throws -> Reproduction {
        let (parsed, errors) = swarm.runner.language.parse(file: file, text: shrunk)
        guard errors.isEmpty else { throw SwarmError(.shrinking, "the shrunk scenario does not parse: \(errors[0].message)") }
        let check = FailureSignature(swarm.runner.run(parsed, seed: seed) { _ in })
        guard check?.sameFailure(as: signature) == true else {
            throw SwarmError(
                .shrinking, "the shrunk scenario does not fail the same way under `workbench run --seed \(seed)`: \(check?.text ?? "it passes")")
        }
        // Whether the seed still matters once the faults are explicit (it drives latency samples and chance draws).
        let other: UInt64 = seed == 1 ? 2 : 1
        let elsewhere = FailureSignature(swarm.runner.run(parsed, seed: other) { _ in })?.sameFailure(as: signature) == true
        return Reproduction(otherSeed: other, failsUnderOtherSeed: elsewhere)
    }
}
