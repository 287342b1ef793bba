import ArgumentParser
import Foundation
import Kernel
import Scenario
import SystemKit
import Wire

/// The console's world and its command handling (separate from the terminal so it can be tested).
final class ConsoleSession: @unchecked Sendable {
    // @unchecked Sendable: used from the console's one thread; the completer is called on it too.
    let seed: UInt64
    private(set) var kernel: Kernel
    let language = Catalog.language
    /// Runs each line with every check a run makes after a statement (the systems' invariants among them).
    private(set) var executor: StatementExecutor
    var context: ScenarioContext { executor.context }
    private(set) var lineNumber = 0
    private let output: ConsoleOutput
    private(set) var failedExpectations = 0
    /// The nodes lines entered so far put on the network (a client's `from`, an actor's host), so a later line may
    /// act on them before the world has made them.
    private var declaredNodes: Set<String> = []
    /// Every line that acted on the world, in order, with where it left it: what `history` lists and `rewind`
    /// replays. Lines refused before they ran (a typo, an unknown name) and console commands are not in it.
    private(set) var played: [PlayedLine] = []

    /// A line that ran, and the world it left.
    struct PlayedLine {
        let text: String
        /// Its line number in the console's input.
        let number: Int
        let startedAt: Duration
        let endedAt: Duration
        /// The trace events it recorded are numbers `firstEvent ... lastEvent` (1-based, as `show trace` numbers
        /// them); none when `lastEvent < firstEvent`.
        let firstEvent: Int
        let lastEvent: Int
        /// The trace digest after it: a replay must reach the same one.
        let digest: String
        /// What was typed as line `number` when the console wrote `text` for it (the `advance` of a `rewind to`).
        let typed: String?

        /// A line to replay that has not run yet (the `advance` a `rewind to` adds, for the line `typed`).
        init(text: String, number: Int, typed: String? = nil) {
            self.init(text: text, number: number, startedAt: .zero, endedAt: .zero, firstEvent: 0, lastEvent: 0, digest: "", typed: typed)
        }

        init(
            text: String, number: Int, startedAt: Duration, endedAt: Duration, firstEvent: Int, lastEvent: Int, digest: String,
            typed: String? = nil
        ) {
            (self.text, self.number, self.startedAt, self.endedAt) = (text, number, startedAt, endedAt)
            (self.firstEvent, self.lastEvent, self.digest, self.typed) = (firstEvent, lastEvent, digest, typed)
        }
    }

    /// What is wrong with the names `statement` uses, given the world so far. A line with `by NODE` is checked with the
    /// lines run before it, as a file is checked whole: an actor's own name there is refused with the node it records
    /// as (after `start KIND as NAME`), and NODE is held to the kinds those lines started on it (a key only another
    /// kind's event carries is refused).
    private func namesProblems(_ statement: Statement, actors: Set<String>) -> [ScenarioError] {
        guard statement.names.contains(where: { $0.kind == .traceAuthor }) else {
            return language.checkNames([statement], existing: knownNodes, actors: actors)
        }
        let lines = played.compactMap { try? language.parse(line: $0.text, file: "console", lineNumber: $0.number) } + [statement]
        return (language.checkNames(lines, existing: knownNodes, actors: actors) + language.checkTraceAuthors(lines))
            .filter { $0.line == statement.line }
    }

    /// The nodes a line may act on: those of the world, those earlier lines named, and the phone, every client's
    /// default node (a console user sets its link up before its first request).
    var knownNodes: Set<String> { declaredNodes.union(kernel.network.hostNames).union(["phone"]) }

    /// What a line did: the console goes on, leaves, or the line failed with the exit status a script would get
    /// (``ExitStatus``: the line was wrong, or a check did not hold).
    enum Outcome: Equatable {
        case proceed, quit
        case failed(ExitCode)
    }

    static let commands = ["help", "show", "digest", "history", "rewind", "quit", "exit"]

    init(seed: UInt64, write: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.seed = seed
        output = ConsoleOutput(write)
        (kernel, executor) = Self.world(seed: seed, output: output, language: language)
    }

    /// A new world under `seed`, before any line.
    private static func world(seed: UInt64, output: ConsoleOutput, language: ScenarioLanguage) -> (Kernel, StatementExecutor) {
        let kernel = Kernel(seed: seed)
        let context = ScenarioContext(kernel: kernel, catalog: Catalog.actorKinds, file: "console", output: output.emit)
        let executor = StatementExecutor(
            context: context, language: language, invariants: Catalog.invariants, reach: ReachWatch(Catalog.reachPoints))
        return (kernel, executor)
    }

    func write(_ text: String) { output.emit(text) }

    /// A new world under the same seed, before any line (`rewind` then replays lines into it).
    func resetWorld() {
        (kernel, executor) = Self.world(seed: seed, output: output, language: language)
        declaredNodes = []
        played = []
    }

    /// Runs a line already played once, without showing its output again.
    func replayLine(_ line: PlayedLine) -> Outcome {
        output.muted = true
        defer { output.muted = false }
        return play(line.text, number: line.number, typed: line.typed)
    }

    /// Handles one line typed (or piped) into the console.
    func handle(_ line: String) -> Outcome {
        lineNumber += 1
        return play(line, number: lineNumber)
    }

    /// Handles `line` as input line `number` (its own number again when `rewind` replays it); `typed`, what was typed
    /// as that line when the console wrote `line` for it.
    private func play(_ line: String, number lineNumber: Int, typed: String? = nil) -> Outcome {
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
        case "history":
            write(history())
            return .proceed
        case "rewind":
            return rewind(line)
        default:
            break
        }
        var outcome = Outcome.proceed
        do {
            guard let statement = try language.parse(line: line, file: "console", lineNumber: lineNumber) else { return .proceed }
            let actors = context.launchedActors
            if let problem =
                (namesProblems(statement, actors: actors) + language.checkStarts([statement], running: actors)
                + language.checkResults([statement], bound: context.results)).first
            {
                throw problem
            }
            declaredNodes.formUnion(statement.names.filter { $0.kind == .node }.map(\.name))
            let (startedAt, firstEvent) = (kernel.now, kernel.trace.count + 1)
            // From here the line acts on the world, whether it succeeds or not: a replay must run it again.
            defer {
                played.append(
                    PlayedLine(
                        text: line, number: lineNumber, startedAt: startedAt, endedAt: kernel.now, firstEvent: firstEvent,
                        lastEvent: kernel.trace.count, digest: kernel.trace.digest, typed: typed))
            }
            let ran = executor.execute(statement)
            if let error = ran.stepError ?? ran.error {
                write("error: \(error)")
                return .failed(ExitStatus.checkFailed)
            }
            for expectation in ran.expectations {
                if let failure = expectation.failure {
                    if !output.muted { failedExpectations += 1 }
                    outcome = .failed(ExitStatus.checkFailed)
                    write("FAILED \(expectation.text)\n    \(failure)")
                } else {
                    write("ok \(expectation.text)")
                }
            }
            for violation in ran.violations {
                if !output.muted { failedExpectations += 1 }
                outcome = .failed(ExitStatus.checkFailed)
                write(violation.summary(file: "console"))
            }
            for point in ran.reached { write("reached \(point)") }
            let results = summary(of: statement)
            if !results.isEmpty { write(results) }
            if let problem = ran.worldProblem {
                write("error: \(problem)")
                outcome = .failed(ExitStatus.checkFailed)
            }
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

/// Where the console's text goes; muted while `rewind` replays lines already shown.
final class ConsoleOutput: @unchecked Sendable {
    // @unchecked Sendable: used from the console's one thread.
    private let write: @Sendable (String) -> Void
    var muted = false

    init(_ write: @escaping @Sendable (String) -> Void) { self.write = write }

    func emit(_ text: String) {
        if !muted { write(text) }
    }
}
