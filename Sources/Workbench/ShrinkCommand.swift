import ArgumentParser
import Foundation
import Kernel
import Scenario

/// `workbench shrink`: turns a failing swarm seed into the smallest plain scenario that still fails the same way.
///
/// The seed's fault schedule is made explicit (each fault a scenario line before a statement), then faults are
/// removed by delta debugging (Zeller's ddmin) until every one left is needed: dropping any single one makes the
/// failure go away. The result is the original file with those lines written in, which fails under
/// `workbench run` without the swarm's schedule.
struct ShrinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shrink",
        abstract: "Cut a failing swarm seed's faults down to those needed; write a plain .scn that reproduces the failure.",
        discussion: """
            "The same failure" is the same broken invariant, else the same failed expectation (file and line), else a step \
            error on the same line. Prints each run's verdict count and the faults kept; exit status 1 if the seed does not \
            fail at all.
            """)

    @Argument(help: "The swarm workload (.scn) that failed.")
    var file: String

    @Option(help: "The failing seed.")
    var seed: UInt64

    @Option(help: "The faults the swarm chose from: none, network, actors or all (as in the swarm's replay line).")
    var faults: FaultClass = .all

    @Option(help: "Write the shrunk scenario here (default: print it).")
    var out: String?

    func run() throws {
        guard let script = try SwarmScripts.load([file]).first else { return }
        let runner = SwarmScripts.runner
        let original = runner.run(script, seed: seed, faults: .seeded(faults)) { _ in }
        guard let signature = FailureSignature(original) else {
            print("seed \(seed) of \(file) does not fail with --faults \(faults.rawValue): nothing to shrink")
            throw ExitStatus.checkFailed
        }
        print("seed \(seed) fails: \(signature.text) with \(original.faults.count) fault\(original.faults.count == 1 ? "" : "s")")
        var runs = 1
        let kept = DeltaDebugging.minimise(original.faults) { subset in
            runs += 1
            return FailureSignature(runner.run(script, seed: seed, faults: .explicit(subset)) { _ in }) == signature
        }
        print("kept \(kept.count) of \(original.faults.count) faults after \(runs) runs:")
        for fault in kept { print("  before line \(script.statements[fault.before].line): \(fault.line)") }

        let text = try String(contentsOfFile: file, encoding: .utf8)
        let shrunk = Self.scenario(text, script: script, faults: kept, header: """
            # Shrunk by `workbench shrink \(file) --seed \(seed) --faults \(faults.rawValue)`: \(kept.count) of the seed's \
            \(original.faults.count) faults are needed (\(runs) runs).
            # Fails with: \(signature.text)
            # Reproduce: workbench run \(out ?? "FILE.scn") --seed \(seed)
            """)
        let (parsed, errors) = Catalog.language.parse(file: out ?? "shrunk.scn", text: shrunk)
        guard errors.isEmpty else { throw ValidationError("the shrunk scenario does not parse: \(errors[0].message)") }
        let check = runner.run(parsed, seed: seed) { _ in }
        let reproduces = FailureSignature(check)?.sameFailure(as: signature) == true
        guard reproduces else {
            throw ValidationError("the shrunk scenario does not fail the same way under `workbench run --seed \(seed)`: \(FailureSignature(check)?.text ?? "it passes")")
        }
        // Whether the seed still matters once the faults are explicit (it drives latency samples and chance draws).
        let other: UInt64 = seed == 1 ? 2 : 1
        let elsewhere = FailureSignature(runner.run(parsed, seed: other) { _ in })?.sameFailure(as: signature) == true
        print("the shrunk scenario fails the same way under `workbench run --seed \(seed)`"
              + (elsewhere ? " (and under seed \(other): it no longer needs the seed)" : " (not under seed \(other): keep --seed \(seed))"))
        if let out {
            try shrunk.write(toFile: out, atomically: true, encoding: .utf8)
            print("wrote \(out)")
        } else {
            print(shrunk, terminator: "")
        }
    }

    /// `text` with each fault's line written in before the statement it preceded.
    static func scenario(_ text: String, script: Script, faults: [ScheduledFault], header: String) -> String {
        var before: [Int: [String]] = [:]
        for fault in faults {
            before[script.statements[fault.before].line, default: []].append(fault.line + "   # fault kept by shrink")
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
}

/// What makes two failures "the same" for shrinking: the same invariant, else the same expectation, else the same
/// step error. `key` includes the line (shrinking runs one file); `place` does not (the shrunk file has extra lines).
struct FailureSignature: Equatable {
    let text: String
    private let key: String
    private let place: String

    init?(_ result: ScenarioRunner.Result) {
        if let violation = result.violations.first {
            key = "invariant \(violation.invariant)"
            place = key
            text = "invariant \(violation.invariant) broken (\(violation.message))"
        } else if let expectation = result.failures.first {
            key = "expectation \(expectation.line) \(expectation.text)"
            place = "expectation \(expectation.text)"
            text = "line \(expectation.line): \(expectation.text) (\(expectation.failure ?? ""))"
        } else if let error = result.error {
            // "FILE:LINE: directive: what happened": the part after the location says which step failed and how.
            let parts = error.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            key = "error \(error)"
            place = "error " + (parts.count == 3 ? String(parts[2]) : error)
            text = error
        } else {
            return nil
        }
    }

    static func == (a: FailureSignature, b: FailureSignature) -> Bool { a.key == b.key }

    /// The same failure wherever its line now is.
    func sameFailure(as other: FailureSignature) -> Bool { place == other.place }
}

/// Zeller and Hildebrandt's ddmin: the smallest subset (1-minimal) of `items` for which `fails` holds.
enum DeltaDebugging {
    static func minimise<T>(_ items: [T], fails: ([T]) -> Bool) -> [T] {
        var current = items
        var granularity = 2
        while current.count >= 2 {
            let chunks = split(current, into: granularity)
            var reduced = false
            // A chunk alone fails: keep only it.
            for chunk in chunks where fails(chunk) {
                current = chunk
                granularity = 2
                reduced = true
                break
            }
            if !reduced, granularity > 2 || chunks.count > 2 {
                // Without one chunk it still fails: drop that chunk.
                for index in chunks.indices {
                    let complement = chunks.enumerated().filter { $0.offset != index }.flatMap(\.element)
                    if fails(complement) {
                        current = complement
                        granularity = max(granularity - 1, 2)
                        reduced = true
                        break
                    }
                }
            }
            if !reduced {
                guard granularity < current.count else { break }
                granularity = min(granularity * 2, current.count)
            }
        }
        if current.count == 1, fails([]) { return [] }
        return current
    }

    private static func split<T>(_ items: [T], into parts: Int) -> [[T]] {
        var chunks: [[T]] = []
        var start = 0
        for part in 0..<parts {
            let size = (items.count - start) / (parts - part)
            chunks.append(Array(items[start..<(start + size)]))
            start += size
        }
        return chunks.filter { !$0.isEmpty }
    }
}
