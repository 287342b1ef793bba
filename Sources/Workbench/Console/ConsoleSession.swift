import ArgumentParser
import Foundation
import Kernel
import Scenario
import Wire

/// The console's world and its command handling (separate from the terminal so it can be tested).
final class ConsoleSession: @unchecked Sendable {
    // @unchecked Sendable: used from the console's one thread; the completer is called on it too.
    let kernel: Kernel
    let language = Catalog.language
    let context: ScenarioContext
    let runner: ScenarioRunner
    /// The systems' invariants, checked after every line, as a run checks them after every statement.
    let watch: InvariantWatch
    private(set) var lineNumber = 0
    private let write: @Sendable (String) -> Void
    private(set) var failedExpectations = 0
    /// The nodes lines entered so far put on the network (a client's `from`, an actor's host), so a later line may
    /// act on them before the world has made them.
    private var declaredNodes: Set<String> = []

    /// The nodes a line may act on: those of the world, those earlier lines named, and the phone, every client's
    /// default node (a console user sets its link up before its first request).
    var knownNodes: Set<String> { declaredNodes.union(kernel.network.hostNames).union(["phone"]) }

    /// What a line did: the console goes on, leaves, or the line failed with the exit status a script would get
    /// (``ExitStatus``: the line was wrong, or a check did not hold).
    enum Outcome: Equatable {
        case proceed, quit
        case failed(ExitCode)
    }

    static let commands = ["help", "show", "digest", "quit", "exit"]

    init(seed: UInt64, write: @escaping @Sendable (String) -> Void = { print($0) }) {
        kernel = Kernel(seed: seed)
        self.write = write
        context = ScenarioContext(kernel: kernel, catalog: Catalog.actorKinds, file: "console", output: write)
        runner = ScenarioRunner(language: language, catalog: Catalog.actorKinds)
        watch = InvariantWatch(Catalog.invariants)
        context.reach = ReachWatch(Catalog.reachPoints)
    }

    /// Handles one line typed (or piped) into the console.
    func handle(_ line: String) -> Outcome {
        lineNumber += 1
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let first = words.first, !first.hasPrefix("#") else { return .proceed }
        switch first {
        case "quit", "exit":
            return .quit
        case "help":
            switch help(words.dropFirst().first) {
            case .success(let text):
                write(text)
                return .proceed
            case .failure(let error):
                write("error: \(error.description)")
                return .failed(ExitStatus.scenarioWrong)
            }
        case "digest":
            write("\(kernel.trace.digest) (\(kernel.trace.count) events, t=\(kernel.now.workbenchText))")
            return .proceed
        case "show":
            write(show(Array(words.dropFirst())))
            return .proceed
        default:
            break
        }
        var outcome = Outcome.proceed
        do {
            guard let statement = try language.parse(line: line, file: "console", lineNumber: lineNumber) else { return .proceed }
            let actors = Set(context.startedActors.map(\.name))
            if let problem =
                (language.checkNames([statement], existing: knownNodes, actors: actors)
                + language.checkResults([statement], bound: context.results)).first
            {
                throw problem
            }
            declaredNodes.formUnion(statement.names.filter { $0.kind == .node }.map(\.name))
            let before = context.expectations.count
            let reachedBefore = context.reached
            try runner.execute(statement, in: context)
            context.reach?.check(context)
            for expectation in context.expectations[before...] {
                if let failure = expectation.failure {
                    failedExpectations += 1
                    outcome = .failed(ExitStatus.checkFailed)
                    write("FAILED \(expectation.text)\n    \(failure)")
                } else {
                    write("ok \(expectation.text)")
                }
            }
            for violation in watch.check(context, line: lineNumber) {
                failedExpectations += 1
                outcome = .failed(ExitStatus.checkFailed)
                write(violation.summary(file: "console"))
            }
            for point in context.reached.subtracting(reachedBefore).sorted() { write("reached \(point)") }
            let results = summary(of: statement)
            if !results.isEmpty { write(results) }
        } catch let error as ScenarioError {
            // The line again with a caret under the column: right whatever the prompt was (it grows with the time).
            let shown = line.replacingOccurrences(of: "\t", with: " ")
            write("error: \(error.message) (column \(error.column))\n  \(shown)\n  " + String(repeating: " ", count: max(0, error.column - 1)) + "^")
            return .failed(ExitStatus.scenarioWrong)
        } catch {
            write("error: \(error)")
            return .failed(ExitStatus.checkFailed)
        }
        return outcome
    }

    /// The values a line published: `${NAME.…}` for the name it binds (`as NAME`, or its directive's default). Empty
    /// when the line published nothing (`spawn` publishes at its `join`).
    private func summary(of statement: Statement) -> String {
        guard statement.spawned == nil, let label = statement.binding?.label else { return "" }
        let values = context.variables.filter { $0.key.hasPrefix(label + ".") }.sorted { $0.key < $1.key }
        return values.map { "  ${\($0.key)} = \(preview($0.value))" }.joined(separator: "\n")
    }

    func preview(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: "\\n")
        return flat.count > 80 ? String(flat.prefix(80)) + "…" : flat
    }
}
