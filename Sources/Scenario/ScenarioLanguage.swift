import Kernel
import Wire

/// One parsed line of a scenario.
public struct Statement: Sendable {
    public let file: String
    public let line: Int
    public let source: String
    public let directive: String
    let step: any Step
}

/// A parsed scenario file.
public struct Script: Sendable {
    public let file: String
    public let statements: [Statement]
}

/// The scenario language: the directives it knows, and how lines become statements.
///
/// Actor modules add their own directives (`mig print …`) through `extra`; the engine itself holds no
/// protocol logic.
public struct ScenarioLanguage: Sendable {
    public let directives: [Directive]

    /// - parameters:
    ///   - extra: the systems' directives.
    ///   - actorKinds: the kinds `start` can start; given, `start` checks kind and option names when a line is
    ///     parsed, so a typo stops the file before anything runs.
    public init(extra: [Directive] = [], actorKinds: [ActorKind] = []) {
        directives = Directive.script + Directive.world + [Directive.start(actorKinds)] + Directive.clients + Self.control + extra
    }

    /// The directive called `name`.
    public func directive(named name: String) -> Directive? { directives.first { $0.name == name } }

    /// Parses one line; `nil` for blank lines and comments.
    public func parse(line text: String, file: String, lineNumber: Int) throws(ScenarioError) -> Statement? {
        let tokens = try Lexer.tokens(of: text, file: file, lineNumber: lineNumber)
        guard let first = tokens.first else { return nil }
        return try statement(tokens, source: text, file: file, line: lineNumber, column: first.column)
    }

    private func statement(_ tokens: [Token], source: String, file: String, line: Int, column: Int) throws(ScenarioError) -> Statement {
        let head = tokens[0]
        if head.text == "spawn", !head.quoted {
            var args = Arguments(file: file, line: line, directiveColumn: head.column, tokens: Array(tokens.dropFirst()))
            let name = try args.name("a name for the background work")
            guard let inner = args.peek else { throw args.error("expected a directive to run in the background, found end of line") }
            let innerStatement = try statement(args.remaining, source: source, file: file, line: line, column: inner.column)
            return Statement(file: file, line: line, source: source, directive: "spawn",
                             step: SpawnStep(name: name, inner: innerStatement.step, directive: innerStatement.directive))
        }
        if head.text == "later", !head.quoted {
            var args = Arguments(file: file, line: line, directiveColumn: head.column, tokens: Array(tokens.dropFirst()))
            let delay = try args.duration()
            guard let inner = args.peek else { throw args.error("expected a directive to run later, found end of line") }
            guard !inner.quoted, LaterStep.directives.contains(inner.text) else {
                throw ScenarioError(file: file, line: line, column: inner.column,
                                    message: "'later' runs a change to the world (\(LaterStep.directives.joined(separator: ", "))), found '\(inner.text)'")
            }
            let innerStatement = try statement(args.remaining, source: source, file: file, line: line, column: inner.column)
            return Statement(file: file, line: line, source: source, directive: "later",
                             step: LaterStep(delay: delay, inner: innerStatement.step, directive: innerStatement.directive))
        }
        guard !head.quoted, let directive = directive(named: head.text) else {
            let suggestion = directives.map(\.name).min { editDistance($0, head.text) < editDistance($1, head.text) } ?? ""
            throw ScenarioError(file: file, line: line, column: head.column,
                                message: "unknown directive '\(head.text)'; expected one of the directives listed by 'help'"
                                    + (editDistance(suggestion, head.text) <= 2 ? " (did you mean '\(suggestion)'?)" : ""))
        }
        var args = Arguments(file: file, line: line, directiveColumn: head.column, tokens: Array(tokens.dropFirst()))
        let step = try directive.parse(&args)
        try args.end()
        return Statement(file: file, line: line, source: source, directive: directive.name, step: step)
    }

    /// Parses a whole file, collecting every error (so a malformed file runs nothing).
    public func parse(file: String, text: String) -> (Script, [ScenarioError]) {
        var statements: [Statement] = []
        var errors: [ScenarioError] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            do {
                if let statement = try parse(line: String(line), file: file, lineNumber: index + 1) {
                    statements.append(statement)
                }
            } catch {
                errors.append(error)
            }
        }
        return (Script(file: file, statements: statements), errors)
    }

    /// Language-level directives: background work.
    static let control: [Directive] = [
        Directive("join", usage: "join NAME [within DURATION]", summary: "wait for work started with 'spawn NAME …'", keywords: ["within"]) { args throws(ScenarioError) in
            let name = try args.name("the name given to spawn")
            var within: Template?
            if args.accept("within") { within = try args.duration() }
            try args.end()
            let joinLimit = within
            return Run { context in
                guard let pending = context.background.removeValue(forKey: name) else {
                    throw StepError("nothing was spawned as '\(name)'")
                }
                let limit = try joinLimit.map { try parseDuration($0.resolve(context)) } ?? pending.timeout
                context.publish(pending.label, try pending.wait(context, limit))
                return nil
            }
        },
    ]
}

/// `spawn NAME DIRECTIVE…`: starts the directive's work and moves on; `join NAME` collects it.
struct SpawnStep: Step {
    let name: String
    let inner: any Step
    let directive: String

    func run(_ context: ScenarioContext) throws -> Pending? {
        guard context.background[name] == nil else { throw StepError("'\(name)' is already running; join it first") }
        if let pending = try inner.run(context) { context.background[name] = pending }
        return nil
    }
}

/// `later DURATION DIRECTIVE…`: changes the world that much later, in the middle of whatever runs then (a
/// partition that starts 300 ms into an upload). Only directives that act at once may be deferred.
struct LaterStep: Step {
    static let directives = ["partition", "heal", "hold", "release", "reset", "link", "clock", "fault"]
    let delay: Template
    let inner: any Step
    let directive: String

    func run(_ context: ScenarioContext) throws -> Pending? {
        let duration = try parseDuration(delay.resolve(context))
        guard duration >= .zero else { throw StepError("later \(duration.workbenchText): expected a delay of 0 or more") }
        let (inner, directive) = (self.inner, self.directive)
        context.kernel.loop.scheduleTask(in: .nanoseconds(duration.nanosecondsValue)) {
            do {
                _ = try inner.run(context)
            } catch {
                context.kernel.trace.record(actor: "scenario", event: "later-failed", fields: [("directive", directive), ("error", "\(error)")])
            }
        }
        return nil
    }
}

/// Edit distance, for "did you mean".
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
