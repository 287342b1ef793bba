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
            editor.prompt = "workbench \(session.kernel.now.workbenchText)> "
            if session.handle(line) == .quit { break }
        }
        if session.failedExpectations > 0 { throw ExitCode(1) }
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
    private var lineNumber = 0
    private let write: @Sendable (String) -> Void
    private(set) var failedExpectations = 0

    enum Outcome { case proceed, quit }

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
            write(help(words.dropFirst().first))
            return .proceed
        case "digest":
            write("\(kernel.trace.digest) (\(kernel.trace.count) events, t=\(kernel.now.workbenchText))")
            return .proceed
        case "show":
            write(show(Array(words.dropFirst())))
            return .proceed
        default:
            break
        }
        do {
            guard let statement = try language.parse(line: line, file: "console", lineNumber: lineNumber) else { return .proceed }
            let before = context.expectations.count
            try runner.execute(statement, in: context)
            for expectation in context.expectations[before...] {
                if let failure = expectation.failure {
                    failedExpectations += 1
                    write("FAILED \(expectation.text)\n    \(failure)")
                } else {
                    write("ok \(expectation.text)")
                }
            }
            for violation in watch.check(context, line: lineNumber) {
                failedExpectations += 1
                write(violation.summary(file: "console"))
            }
            let results = summary(of: statement)
            if !results.isEmpty { write(results) }
        } catch let error as ScenarioError {
            write(String(repeating: " ", count: max(0, error.column - 1 + "workbench> ".count)) + "^")
            write("error: \(error.message) (column \(error.column))")
        } catch {
            write("error: \(error)")
        }
        return .proceed
    }

    /// The values a line published: `${NAME.…}` for `… as NAME`, else under the directive's default label
    /// (`start KIND`, `connect NAME`, `http`). Empty when the line published nothing.
    private func summary(of statement: Statement) -> String {
        let named = statement.source.components(separatedBy: " as ").dropFirst().last?.split(separator: " ").first.map(String.init)
        let first = statement.source.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        let label: String
        switch (named, statement.directive) {
        case (let name?, _): label = name
        case (nil, "http"): label = "http"
        case (nil, "start"), (nil, "connect"): label = first
        default: return ""
        }
        let values = context.variables.filter { $0.key.hasPrefix(label + ".") }.sorted { $0.key < $1.key }
        return values.map { "  ${\($0.key)} = \(preview($0.value))" }.joined(separator: "\n")
    }

    private func preview(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: "\\n")
        return flat.count > 80 ? String(flat.prefix(80)) + "…" : flat
    }

    /// `help` lists the language; `help WORD` shows one directive.
    func help(_ word: String?) -> String {
        if let word, let directive = language.directive(named: word) {
            var text = "\(directive.usage)\n  \(directive.summary)"
            if directive.name == "start" {
                text += "\n  actor kinds:" + Catalog.actorKinds.map { kind in
                    "\n    \(kind.name) — \(kind.summary) (host \(kind.defaultHost))"
                        + kind.options.map { "\n      \($0.name)=…  \($0.meaning)" }.joined()
                }.joined()
            }
            return text
        }
        var lines = ["Scenario language (the same words work in .scn files):"]
        let width = (language.directives.map(\.name.count).max() ?? 8) + 2
        for directive in language.directives {
            lines.append("  " + directive.name.padding(toLength: width, withPad: " ", startingAt: 0) + directive.summary)
        }
        lines.append("  " + "spawn".padding(toLength: width, withPad: " ", startingAt: 0) + "spawn NAME DIRECTIVE… — run a directive in the background; 'join NAME' waits for it")
        lines.append("Console only: show trace [N] | vars | connections | faults | actors, digest, help WORD, quit")
        lines.append("Variables: ${name}; ${now} is the virtual time; results land in ${NAME.field} (see 'help http').")
        return lines.joined(separator: "\n")
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
            let directive = words[0] == "spawn" && words.count > 2 ? words[2] : words[0]
            vocabulary = language.directive(named: directive)?.keywords ?? []
            switch directive {
            case "start", "help": vocabulary += Catalog.actorKinds.map(\.name) + language.directives.map(\.name)
            case "fault": vocabulary += kernel.faults.all.map(\.name)
            case "show": vocabulary += ["trace", "vars", "connections", "faults", "actors"]
            default: break
            }
            vocabulary += context.variables.keys.map { "${\($0)}" }
        }
        return Completion.words(Set(vocabulary).sorted(), line: line, cursor: cursor)
    }
}
