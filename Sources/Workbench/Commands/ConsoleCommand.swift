import ArgumentParser
import Foundation
import Kernel
import LineEditor
import Scenario
import Wire

/// `workbench` (no arguments): the console. The same language as scenario files, one line at a time, on
/// a live simulated world: line editing, persistent history, tab completion, `help`. Reads piped input too.
struct ConsoleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Interactive console on the simulated wire (the default command)."
    )

    @Option(help: "The seed of the console's simulated world.")
    var seed: UInt64 = 1

    @Option(help: "History file (default: $XDG_STATE_HOME/workbench/history or ~/.workbench_history).")
    var history: String?

    func run() throws {
        let session = ConsoleSession(seed: seed)
        let interactive = isatty(STDIN_FILENO) == 1
        let store = History()
        if interactive { try? store.load(from: history ?? History.defaultPath()) }
        let editor = LineEditor(prompt: "workbench> ", history: store) { line, cursor in
            session.complete(line: line, cursor: cursor)
        }
        if interactive {
            print("Workbench console — simulated wire, seed \(seed). 'help' lists the language; 'quit' leaves.")
        }
        while let line = editor.readLine() {
            let outcome = session.handle(line)
            // The prompt shows the virtual time the line left the world at.
            editor.prompt = "workbench \(session.kernel.now.workbenchText)> "
            if outcome == .quit { break }
            if case .failed(let code) = outcome, !interactive {
                // Piped or redirected input is a script: it stops at the first line that fails, as `sqlite3 -bail`.
                printError("stopped at line \(session.lineNumber) of the input (exit \(code.rawValue))")
                throw code
            }
        }
        if session.failedExpectations > 0 { throw ExitStatus.checkFailed }
    }
}

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
    private var knownNodes: Set<String> { declaredNodes.union(kernel.network.hostNames).union(["phone"]) }

    /// What a line did: the console goes on, leaves, or the line failed with the exit status a script would get
    /// (``ExitStatus``: the line was wrong, or a check did not hold).
    enum Outcome: Equatable { case proceed, quit, failed(ExitCode) }

    static let commands = ["help", "show", "digest", "quit", "exit"]

    init(seed: UInt64, write: @escaping @Sendable (String) -> Void = { print($0) }) {
        kernel = Kernel(seed: seed)
        self.write = write
        context = ScenarioContext(kernel: kernel, catalog: Catalog.actorKinds, file: "console", output: write)
        runner = ScenarioRunner(language: language, catalog: Catalog.actorKinds)
        watch = InvariantWatch(Catalog.invariants)
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
            if let problem = (language.checkNames([statement], existing: knownNodes, actors: actors)
                + language.checkResults([statement], bound: context.results)).first {
                throw problem
            }
            declaredNodes.formUnion(statement.names.filter { $0.kind == .node }.map(\.name))
            let before = context.expectations.count
            try runner.execute(statement, in: context)
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

    private func preview(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: "\\n")
        return flat.count > 80 ? String(flat.prefix(80)) + "…" : flat
    }

    /// The words the language reads in front of a directive (they are not directives themselves), with their help.
    static let prefixes: [(name: String, usage: String, summary: String)] = [
        ("spawn", "spawn NAME DIRECTIVE…", "run a directive in the background; 'join NAME' waits for it and publishes its results"),
        ("later", "later DURATION DIRECTIVE…", "run a change to the world (partition, heal, hold, release, reset, link, clock, fault) that much "
            + "virtual time later, in the middle of whatever runs then"),
    ]

    /// `help` lists the language; `help WORD` shows one directive (or `spawn`, `later`, an actor kind); an unknown
    /// word is an error with the nearest known one.
    func help(_ word: String?) -> Result<String, CatalogError> {
        guard let word else {
            var lines = ["Scenario language (the same words work in .scn files):"]
            let entries = language.directives.map { ($0.name, $0.summary) } + Self.prefixes.map { ($0.name, $0.summary) }
            let width = (entries.map(\.0.count).max() ?? 8) + 2
            for (name, summary) in entries {
                lines.append("  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + summary)
            }
            lines.append("Console only: show trace [N] | vars | connections | faults | actors, digest, help WORD, quit")
            lines.append("Variables: ${name}; ${now} is the virtual time; results land in ${NAME.field} (see 'help http').")
            return .success(lines.joined(separator: "\n"))
        }
        if let directive = language.directive(named: word) {
            var text = "\(directive.usage)\n  \(directive.summary)"
            if directive.name == "start" {
                text += "\n  actor kinds:" + Catalog.actorKinds.map { kind in
                    "\n    \(kind.name) — \(kind.summary) (host \(kind.defaultHost))"
                        + kind.options.map { "\n      \($0.name)=…  \($0.meaning)" }.joined()
                }.joined()
            }
            if directive.name == "fault" {
                text += "\n  fault points:" + Catalog.actorKinds.filter { !$0.faultPoints.isEmpty }.map { kind in
                    "\n    \(kind.name): \(kind.faultPoints.joined(separator: ", "))"
                }.joined()
            }
            return .success(text)
        }
        if let prefix = Self.prefixes.first(where: { $0.name == word }) { return .success("\(prefix.usage)\n  \(prefix.summary)") }
        if let kind = Catalog.actorKinds.first(where: { $0.name == word }) {
            return .success("start \(kind.name) [as NAME] [on HOST] [OPTION=VALUE]…\n  \(kind.summary) (host \(kind.defaultHost))"
                            + kind.options.map { "\n    \($0.name)=…  \($0.meaning)" }.joined())
        }
        let topics = language.directives.map(\.name) + Self.prefixes.map(\.name) + Catalog.actorKinds.map(\.name) + Self.commands
        return .failure(CatalogError("no help for '\(word)'\(didYouMean(word, among: topics)); 'help' lists the directives"))
    }

    private func show(_ words: [String]) -> String {
        switch words.first ?? "" {
        case "trace":
            let text = words.dropFirst().first ?? "20"
            guard let count = Int(text), (1...1_000_000).contains(count) else {
                return "show trace N: expected a number of events from 1 to 1000000, found '\(text)'"
            }
            return kernel.trace.all.suffix(count).map(\.canonicalLine).joined(separator: "\n")
        case "vars":
            return context.variables.sorted { $0.key < $1.key }.map { "\($0.key) = \(preview($0.value))" }.joined(separator: "\n")
        case "connections":
            let lines = kernel.network.connectionSummaries
            return lines.isEmpty ? "no open connections" : lines.joined(separator: "\n")
        case "faults":
            let points = kernel.faults.all
            return points.isEmpty ? "no fault points declared yet (start an actor)"
                : points.map { "\($0.name): \($0.mode) (checked \($0.checks), fired \($0.fired))" }.joined(separator: "\n")
        case "actors":
            return Catalog.actorKinds.map { "\($0.name) — \($0.summary)" }.joined(separator: "\n")
        default:
            return "show what? trace [N] | vars | connections | faults | actors"
        }
    }

    /// Tab completion: directive names first, then the directive's keywords, actor kinds, fault points,
    /// connection names and variables.
    func complete(line: String, cursor: Int) -> Completion {
        let before = String(line.prefix(cursor))
        let words = before.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let startingWord = before.isEmpty || before.hasSuffix(" ")
        let isFirst = words.isEmpty || (words.count == 1 && !startingWord)
        var vocabulary: [String]
        if isFirst {
            vocabulary = language.directives.map(\.name) + ["spawn"] + Self.commands
        } else {
            // `spawn NAME DIRECTIVE…` and `later DURATION DIRECTIVE…`: the directive is the third word.
            let directive = ["spawn", "later"].contains(words[0]) && words.count > 2 ? words[2] : words[0]
            vocabulary = language.directive(named: directive)?.keywords ?? []
            switch directive {
            case "start", "help": vocabulary += Catalog.actorKinds.map(\.name) + language.directives.map(\.name) + Self.prefixes.map(\.name)
            case "fault": vocabulary += Catalog.actorKinds.flatMap(\.faultPoints)
            case "partition", "heal", "hold", "release", "reset", "link", "clock", "address":
                vocabulary += knownNodes
            case "show": vocabulary += ["trace", "vars", "connections", "faults", "actors"]
            default: break
            }
            vocabulary += context.variables.keys.map { "${\($0)}" }
        }
        return Completion.words(Set(vocabulary).sorted(), line: line, cursor: cursor)
    }
}
