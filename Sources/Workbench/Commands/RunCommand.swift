import ArgumentParser
import Foundation
import Kernel
import Reports
import Scenario
import SystemKit
import WireHTTP

/// `workbench run FILE…`: runs scenarios on the simulated wire and says whether every expectation held.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run scenario files on the simulated wire (or, with --live, on real sockets).",
        discussion: """
            Every file is read and checked before anything runs: a line that does not parse or names something that does \
            not exist (a fault point, a node, an actor option or its value), or switches a fault point no actor it starts \
            checks, is listed with file, line and column, and the \
            command exits 2 without running anything. Then exit status 0 only when every expectation held and every \
            invariant kept (else 1). The last line names the result and the trace digest.

            With --live the same files run on the live wire: the actors they start listen on loopback (ports the system \
            picks), the workbench's clients connect to them over real TCP (and TLS), each client node from its own loopback \
            address so links, partitions and holds act on its connections alone; faults and network conditions go through \
            the live wire's fault points and link layer, and `advance` moves every node's clock forward without waiting \
            (sockets' own time-outs stay real). A line that cannot run live (`digest`, reach points, `address`) is refused \
            before anything runs. A live run has no digest and checks no invariants (its order of events is the machine's).
            """
    )

    @Argument(help: "Scenario files (.scn), or folders: a folder runs the .scn files in it, in name order.")
    var files: [String]

    @OptionGroup var seed: SeedOption

    @OptionGroup var trace: TraceOption

    @OptionGroup var junit: JUnitOption

    @OptionGroup var report: ReportOption

    @Flag(help: "Run each scenario twice and fail if the trace digests differ.")
    var verifyDeterminism = false

    @Flag(help: "Run on the live wire: real sockets on loopback, the machine's time (see above).")
    var live = false

    @OptionGroup var target: TargetOption

    @Option(
        help: ArgumentHelp(
            "With --live, what the apps' clients that offer a choice send their HTTP through: nio (the project's client, as under "
                + "simulation) or urlsession (Foundation's URLSession on libcurl, the apps' own stack; it trusts only the system's CA "
                + "roots, so HTTPS to the actors is refused: give them plain HTTP; docs/urlsession.md names the clients).",
            valueName: "nio|urlsession"))
    var http: HTTPStack = .nio

    @Flag(
        help: """
            Kept for scripts that pass it: a scenario that switches a fault point none of its actors checks (the fault could \
            never fire) is now always refused.
            """)
    var strict = false

    @Flag(name: .shortAndLong, help: "Print every expectation, not only failures.")
    var verbose = false

    func validate() throws {
        if !target.texts.isEmpty, !live {
            throw ValidationError("--target: an outside server is on real sockets; add --live (the rest of the world runs live with it)")
        }
        _ = try target.targets()
        if http != .nio, !live {
            throw ValidationError("--http \(http.rawValue): URLSession opens real sockets; add --live (the simulated network carries only nio)")
        }
        if live, verifyDeterminism {
            throw ValidationError("--verify-determinism compares digests, and a live run has none (its order of events is the machine's)")
        }
    }

    func run() throws {
        let runner = ScenarioRunner(language: Catalog.language, catalog: Catalog.actorKinds, invariants: Catalog.invariants)
        let targets = try target.targets()
        let scripts = try ScenarioFiles.load(files, live: live ? .run : nil, targets: targets)
        for target in targets { print("target \(target.kind) \(target.shown)") }

        var results: [ScenarioRunner.Result] = []
        var mismatches: [String] = []
        for script in scripts {
            let started = ContinuousClock.now
            let result =
                live
                ? runner.runLive(script, seed: seed.value, targets: targets, httpStack: http) { print($0) }
                : runner.run(script, seed: seed.value) { print($0) }
            let wall = ContinuousClock.now - started
            var verified: String?
            if verifyDeterminism {
                let again = runner.run(script, seed: seed.value) { _ in }
                if again.digest != result.digest {
                    mismatches.append(script.file)
                    printError(
                        "\(script.file): NOT DETERMINISTIC: digest \(result.digest) then \(again.digest); first difference: \(firstDifference(result.trace, again.trace))"
                    )
                } else {
                    verified = "deterministic \(script.file): 2 runs, same digest \(result.digest.prefix(16)) over \(result.traceEvents) trace events"
                }
            }
            printResult(result, wall: wall)
            if let verified { print(verified) }
            results.append(result)
        }

        let digest = Trace.combinedDigest(results.map(\.digest))
        if let file = trace.file { try results.map(\.trace).joined().write(toFile: file, atomically: true, encoding: .utf8) }
        if let file = junit.file { try JUnitReport(results: results).xml.write(toFile: file, atomically: true, encoding: .utf8) }
        if let file = report.file {
            try TimelineReport(results: results, systemEvents: Catalog.timelineEvents).html.write(toFile: file, atomically: true, encoding: .utf8)
        }

        let failed = results.filter { !$0.passed }
        let expectations = results.reduce(0) { $0 + $1.expectations.count }
        let failedExpectations = results.reduce(0) { $0 + $1.failures.count }
        let brokenInvariants = results.reduce(0) { $0 + $1.violations.count }
        let ok = failed.isEmpty && mismatches.isEmpty
        if !ok {
            let command =
                (["workbench", "run"] + (live ? ["--live"] : []) + (http == .nio ? [] : ["--http", http.rawValue])
                + targets.map { "--target \($0.kind)=\($0.shown)" } + failed.map(\.file) + mismatches
                + ["--seed", String(seed.value)]
                + (verifyDeterminism ? ["--verify-determinism"] : [])).joined(separator: " ")
            print("reproduce: \(command)")
            for target in targets where target.account != nil {
                let variables = Target.credentialVariables(of: target.kind)
                print(
                    "  with the \(target.kind) account (never printed) in \(variables.user) and \(variables.password), or USER:PASSWORD@ in the URL")
            }
        }
        print(
            "\(ok ? "PASS" : "FAIL") \(results.count) scenario\(results.count == 1 ? "" : "s"), \(expectations) expectations"
                + (failedExpectations > 0 ? " (\(failedExpectations) failed)" : "")
                + (brokenInvariants > 0 ? ", \(brokenInvariants) invariant\(brokenInvariants == 1 ? "" : "s") broken" : "")
                + (mismatches.isEmpty ? "" : ", \(mismatches.count) not deterministic")
                + ", seed \(seed.value), " + (live ? "live wire (no digest)" : "digest \(digest)"))
        if !ok { throw ExitStatus.checkFailed }
    }

    private func printResult(_ result: ScenarioRunner.Result, wall: Duration) {
        for expectation in result.expectations {
            if let failure = expectation.failure {
                printError("\(expectation.file):\(expectation.line): FAILED \(expectation.text)\n    \(failure)")
            } else if verbose {
                print("\(expectation.file):\(expectation.line): ok \(expectation.text)")
            }
        }
        for violation in result.violations {
            printError(violation.summary(file: result.file))
        }
        if let error = result.error { printError("\(error)") }
        print(
            "\(result.passed ? "ok" : "FAILED") \(result.file): \(result.expectations.count - result.failures.count)/\(result.expectations.count) expectations, "
                + (result.violations.isEmpty ? "" : "\(result.violations.count) invariant\(result.violations.count == 1 ? "" : "s") broken, ")
                + (live
                    ? "\(wall.workbenchText) on the live wire, \(result.traceEvents) trace events"
                    : "\(result.virtualTime.workbenchText) virtual in \(wall.workbenchText) wall, \(result.traceEvents) trace events, digest \(result.digest.prefix(16))")
        )
    }

    private func firstDifference(_ a: String, _ b: String) -> String {
        let left = a.split(separator: "\n")
        let right = b.split(separator: "\n")
        for (index, (x, y)) in zip(left, right).enumerated() where x != y {
            return "event \(index + 1): \(x) vs \(y)"
        }
        return "one trace is longer (\(left.count) vs \(right.count) events)"
    }
}

extension HTTPStack: ExpressibleByArgument {}
