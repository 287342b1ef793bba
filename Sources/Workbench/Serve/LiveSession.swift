import Foundation
import Kernel
import Scenario
import SystemKit
import Wire

/// Scenario lines on a running serve: what `workbench attach`, the control API and `serve --script` run. The same
/// language and the same ``StatementExecutor`` as `run` and the console; a line whose directive cannot act on the live
/// wire is refused when it is read, with why, and nothing of it runs.
///
/// Every line runs on ``queue``, one at a time (``handle(_:)`` is called there).
final class LiveSession: @unchecked Sendable {
    // @unchecked Sendable: its state is confined to `queue` (see type comment).
    let world: LiveWorld
    /// Where its lines, and the work they schedule, run.
    let queue = DispatchQueue(label: "workbench.live-session")
    let language = Catalog.language
    /// The served actors' kinds, in the order serve started them (each runs on the node named by its kind).
    let served: [(name: String, kind: ActorKind)]
    private let executor: StatementExecutor
    private var lineNumber = 0
    /// What the running line printed; a `later` line's output goes to `log`.
    private var captured: [String]?
    private let log: @Sendable (String) -> Void

    /// What one line did, as the control API answers it.
    struct Reply: Sendable, Equatable {
        var ok: Bool
        var output: String
        var error: String?
        /// The exit status a script would get (``ExitStatus``): 0, 1 (a check failed) or 2 (the line is wrong).
        var exit: Int32
    }

    /// - parameter served: the actors serve started, each with how it started it (so `restart` can do it again).
    init(
        wire: LiveWire, journal: LiveJournal, served: [(actor: any RunningActor, launch: ScenarioContext.Launch)],
        log: @escaping @Sendable (String) -> Void
    ) {
        let world = LiveWorld(wire: wire, journal: journal, queue: queue)
        self.world = world
        self.served = served.map { ($0.launch.node, $0.launch.kind) }
        self.log = log
        let box = OutputBox()
        let context = ScenarioContext(world: world, catalog: Catalog.actorKinds, file: "live") { box.write($0) }
        for (actor, launch) in served { context.adopt(launch.node, actor, launch: launch) }
        executor = StatementExecutor(context: context, language: language, invariants: [], reach: nil)
        box.session = self
    }

    /// The actors running now (call on `queue`).
    var runningActors: [any RunningActor] { executor.context.startedActors.map(\.actor) }

    /// Runs one line; call it on `queue`.
    func handle(_ line: String) -> Reply {
        lineNumber += 1
        captured = []
        defer { captured = nil }
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let first = words.first, !first.hasPrefix("#") else { return Reply(ok: true, output: "", error: nil, exit: 0) }
        switch first {
        case "show": return show(Array(words.dropFirst()))
        case "digest", "rewind", "history":
            return refused("'\(first)' has no meaning on the live wire: its order of events is the machine's, not a seed's", column: 1, line: line)
        default: break
        }
        let statement: Statement
        do {
            guard let parsed = try language.parse(line: line, file: "live", lineNumber: lineNumber) else {
                return Reply(ok: true, output: "", error: nil, exit: 0)
            }
            statement = parsed
        } catch {
            return refused(error.message, column: error.column, line: line)
        }
        if let problem = language.liveProblem(statement, in: .attached) ?? namesProblem(statement)
            ?? language.checkResults(
                [statement], bound: executor.context.results
            ).first
        {
            return refused(problem.message, column: problem.column, line: line)
        }
        let ran = executor.execute(statement)
        var output = captured ?? []
        var failed = false
        for expectation in ran.expectations {
            if let failure = expectation.failure {
                failed = true
                output.append("FAILED \(expectation.text)\n    \(failure)")
            } else {
                output.append("ok \(expectation.text)")
            }
        }
        if let label = statement.binding?.label {
            let values = executor.context.variables.filter { $0.key.hasPrefix(label + ".") || $0.key == label }.sorted { $0.key < $1.key }
            output += values.map { "  ${\($0.key)} = \($0.value)" }
        }
        if let error = ran.stepError ?? ran.error ?? ran.worldProblem {
            return Reply(ok: false, output: output.joined(separator: "\n"), error: error, exit: ExitStatus.checkFailed.rawValue)
        }
        return Reply(
            ok: !failed, output: output.joined(separator: "\n"), error: failed ? "an expectation failed" : nil,
            exit: failed ? ExitStatus.checkFailed.rawValue : 0)
    }

    /// Reads a whole script (`serve --script`) before any of it runs: every problem of every line, as `run` lists a
    /// file's, refused with exit status 2. Returns its lines.
    func check(script text: String, file: String) throws -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var statements: [Statement] = []
        var problems: [ScenarioError] = []
        for (index, line) in lines.enumerated() {
            do {
                guard let statement = try language.parse(line: line, file: file, lineNumber: index + 1) else { continue }
                statements.append(statement)
                if let problem = language.liveProblem(statement, in: .attached) ?? namesProblem(statement) { problems.append(problem) }
            } catch {
                problems.append(error)
            }
        }
        problems += language.checkResults(statements)
        guard problems.isEmpty else {
            for problem in problems.sorted(by: { ($0.line, $0.column) < ($1.line, $1.column) }) { printError(problem.description) }
            throw ExitStatus.scenarioWrong
        }
        return lines
    }

    /// Runs a checked script's lines in order (on `queue`), saying what each did; stops at the first that fails.
    func play(_ lines: [String], say: (String) -> Void) {
        for (index, line) in lines.enumerated() {
            let reply = handle(line)
            if !reply.output.isEmpty { say(reply.output) }
            if let error = reply.error {
                say("error: \(error)")
                say("stopped at line \(index + 1) of the script (exit \(reply.exit)); still serving")
                return
            }
        }
    }

    /// The nodes of a live session: the served actors' and the clients' (named by address, or `phone` for all).
    func namesProblem(_ statement: Statement) -> ScenarioError? {
        let clients = statement.names.filter { $0.kind == .host && Self.isAddress($0.name) }.map(\.name)
        let nodes = Set(served.map(\.name)).union([LiveLinks.everyClient]).union(clients)
        if let problem = language.checkNames([statement], existing: nodes, actors: Set(served.map(\.name))).first { return problem }
        let points = Set(served.flatMap(\.kind.faultPoints))
        if let use = statement.names.first(where: { $0.kind == .faultPoint && !points.contains($0.name) }) {
            return ScenarioError(
                file: statement.file, line: statement.line, column: use.column,
                message: "no served actor checks '\(use.name)': this serve runs \(served.map(\.name).joined(separator: ", "))")
        }
        return nil
    }

    static func isAddress(_ text: String) -> Bool {
        text.contains(":") || (text.split(separator: ".").count == 4 && text.allSatisfy { $0.isNumber || $0 == "." })
    }

    private func refused(_ message: String, column: Int, line: String) -> Reply {
        let caret = String(repeating: " ", count: max(0, column - 1)) + "^"
        return Reply(ok: false, output: "", error: "\(message) (column \(column))\n  \(line)\n  \(caret)", exit: ExitStatus.scenarioWrong.rawValue)
    }

    /// `show faults | links | connections | actors | trace [N] | requests [ACTOR]`.
    func show(_ words: [String]) -> Reply {
        let topics = ["faults", "links", "connections", "actors", "trace", "requests", "misses"]
        let text: String
        switch words.first ?? "" {
        case "faults":
            let points = Set(served.flatMap(\.kind.faultPoints))
            text = world.faults.all.filter { points.contains($0.name) || $0.mode != .off }
                .map { "\($0.name): \($0.mode) (checked \($0.checks), fired \($0.fired))" }.joined(separator: "\n")
        case "links":
            let lines = world.links.linkSummaries
            text = lines.isEmpty ? "every link as the machine gives it (nothing set)" : lines.joined(separator: "\n")
        case "connections":
            let lines = world.links.connectionSummaries
            text = lines.isEmpty ? "no open connections" : lines.joined(separator: "\n")
        case "actors":
            let running = executor.context.startedActors
            text = served.map { entry in
                let actor = running.first { $0.name == entry.name }?.actor
                return "\(entry.name) — \(actor == nil ? "stopped ('restart \(entry.name)' starts it)" : entry.kind.summary)"
                    + (actor?.endpoints ?? []).filter { $0.url.contains("://") }.map { "\n  \($0.label) \($0.url)" }.joined()
            }.joined(separator: "\n")
        case "trace":
            let count = words.dropFirst().first.flatMap { Int($0) } ?? 20
            guard (1...1_000_000).contains(count) else {
                return Reply(ok: false, output: "", error: "show trace N: expected a number of events from 1 to 1000000", exit: 2)
            }
            text = world.events.suffix(count).map(\.canonicalLine).joined(separator: "\n")
        case "requests":
            let requests = JournalRequests.of(world.events, actor: words.dropFirst().first)
            text = requests.isEmpty ? "no requests yet" : requests.map(\.line).joined(separator: "\n")
        case "misses":
            let served = Dictionary(executor.context.startedActors.map { ($0.name, $0.actor.requests) }) { first, _ in first }
            let misses = JournalRequests.misses(world.events, actor: words.dropFirst().first, served: served)
            text = misses.isEmpty ? "no request went unhandled" : misses.joined(separator: "\n")
        default:
            return Reply(
                ok: false, output: "", error: "show what? \(topics.joined(separator: " | "))\(didYouMean(words.first ?? "", among: topics))",
                exit: ExitStatus.scenarioWrong.rawValue)
        }
        return Reply(ok: true, output: text, error: nil, exit: 0)
    }

    fileprivate func emit(_ text: String) {
        if captured != nil { captured?.append(text) } else { log(text) }
    }
}

/// Where the context's `print` and `section` go: the running line's reply (or, for a `later` line, the log).
private final class OutputBox: @unchecked Sendable {
    // @unchecked Sendable: written once before any line runs, then read on the session's queue only.
    weak var session: LiveSession?
    func write(_ text: String) { session?.emit(text) }
}
