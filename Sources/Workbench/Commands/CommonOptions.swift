import ArgumentParser
import Foundation
import Recordings
import Scenario
import SystemKit

// The options several commands take, declared once each: one spelling, one help text (swift-argument-parser's
// `@OptionGroup`). A command names the group for what it holds (`seed.value`, `junit.file`).

/// `--seed` (run, console, fuzz-scenario): where every random choice comes from; 1 unless given.
struct SeedOption: ParsableArguments {
    static let help = ArgumentHelp(
        "The seed every random draw derives from (latencies, seeded faults, generated lines): "
            + "the same seed replays the same run.")

    @Option(name: .customLong("seed"), help: help)
    var value: UInt64 = 1
}

/// `--trace` (run): the canonical trace the digest is computed from.
struct TraceOption: ParsableArguments {
    @Option(name: .customLong("trace"), help: "Write the canonical trace (JSON Lines) to this file.")
    var file: String?
}

/// `--junit` (run, swarm run, swarm merge).
struct JUnitOption: ParsableArguments {
    @Option(name: .customLong("junit"), help: "Write a JUnit XML report to this file (a test case per scenario file; in a swarm, per file and seed).")
    var file: String?
}

/// `--report` (run, swarm run): the timeline report.
struct ReportOption: ParsableArguments {
    @Option(
        name: .customLong("report"),
        help: ArgumentHelp(
            "Write a timeline report to this file: one self-contained HTML page, "
                + "a sequence diagram per scenario run (in a swarm, of the first 20 failing seeds)."))
    var file: String?
}

/// `--require-reach` (swarm run, swarm merge): a reach point no seed reached fails the swarm.
struct RequireReachOption: ParsableArguments {
    @Flag(
        name: .customLong("require-reach"),
        help: ArgumentHelp(
            "Fail (exit status 1) if a reach point the files can reach was reached by no seed: a declared point of an actor "
                + "they start, or a 'sometimes' line of theirs. Without it, the points never reached are listed and the swarm passes."))
    var required = false
}

/// `--state-dir` (serve, attach): where a serve keeps its databases, spools and control file.
struct StateDirectoryOption: ParsableArguments {
    @Option(
        name: .customLong("state-dir"),
        help:
            "Where actors keep their databases and spools, and serve its control.json (default: $XDG_STATE_HOME/workbench or ~/.local/state/workbench)."
    )
    var path: String?

    /// The state folder: what a client was told succeeded is kept there across restarts.
    var directory: String {
        if let path { return path }
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_STATE_HOME"], !xdg.isEmpty { return "\(xdg)/workbench" }
        return "\(environment["HOME"] ?? ".")/.local/state/workbench"
    }
}

/// `--target SYSTEM=URL` (run --live, compare): an outside server stands in for a system's actor.
struct TargetOption: ParsableArguments {
    @Option(
        name: .customLong("target"),
        help: ArgumentHelp(
            "An outside server for a system's clients instead of its actor, e.g. \(Target.example(Catalog.actorKinds)) (systems that take "
                + "one: \(Catalog.actorKinds.filter { !$0.targetSchemes.isEmpty }.map(\.name).joined(separator: ", "))); repeatable. Lines "
                + "that need the actor's inside (its fault points, its trace, links to it) are refused. The account comes from the URL (USER:PASSWORD@) or WORKBENCH_TARGET_SYSTEM_USER and _PASSWORD, stands in "
                + "where a line gives the actor's demo account, and is never printed.",
            valueName: "SYSTEM=URL"))
    var texts: [String] = []

    /// The targets, checked against the catalog.
    func targets() throws -> [Target] {
        var targets: [Target] = []
        for text in texts {
            do {
                let target = try Target(text, catalog: Catalog.actorKinds)
                guard !targets.contains(where: { $0.kind == target.kind }) else {
                    throw ValidationError("--target \(target.kind)=… is given twice")
                }
                targets.append(target)
            } catch let error as TargetError {
                throw ValidationError("--target \(error)")
            }
        }
        return targets
    }
}

/// `--sign-in` of `diff` and `record --to-scenario`: a recording of a server that asked for no credentials (CUPS'
/// ippeveprinter), replayed against an actor that asks every request for Basic credentials.
struct SignInOption: ParsableArguments {
    @Flag(
        name: .customLong("sign-in"),
        help: "Send the actor's demo account (Basic) with every request that carried no credentials: the recorded server asked for none.")
    var signIn = false
}

/// `--map-path FROM=TO`, for `diff` and `record --to-scenario`: the recorded server's resource where the actor keeps it.
struct PathMapOption: ParsableArguments {
    @Option(
        name: .customLong("map-path"),
        help: ArgumentHelp(
            "Replay requests recorded under the path FROM under TO (repeatable), e.g. /printers/office=/ipp/print for a CUPS queue "
                + "replayed against an actor that prints at /ipp/print; an IPP request's printer-uri and job-uri move too.",
            valueName: "from=to"))
    var texts: [String] = []

    func validate() throws {
        for text in texts where PathMapping(text) == nil {
            throw ValidationError("--map-path \(text): expected FROM=TO, two paths that start with / (no spaces, query or fragment)")
        }
    }

    /// The mappings, each checked against `recording`: one that no recorded request's target is under refers to nothing.
    func mappings(for recording: Recording) throws -> [PathMapping] {
        let mappings = texts.compactMap(PathMapping.init)
        for mapping in mappings where !recording.exchanges.contains(where: { mapping.moved(RecordingScenario.path($0.request.target)) != nil }) {
            let targets = Set(recording.exchanges.map { RecordingScenario.path($0.request.target) }).sorted().prefix(5)
            throw ExitStatus.inputWrong(
                "--map-path \(mapping): no recorded request is under \(mapping.from); the recording's targets: \(targets.joined(separator: ", "))")
        }
        return mappings
    }
}
