import Kernel
import Wire

/// One parsed line of a scenario.
public struct Statement: Sendable {
    public let file: String
    public let line: Int
    public let source: String
    public let directive: String
    /// The hosts, nodes and fault points the line names (its `later` or `spawn` directive's included).
    public let names: [NameUse]
    /// The result name it binds and the fields it may give (under `spawn`, bound when `join` collects the work).
    public let binding: ResultBinding?
    /// `spawn NAME …`: the work's name; `join NAME`: the work it collects.
    public let spawned: String?
    public let joined: String?
    /// The `${…}` it reads, with their columns.
    public let reads: [VariableUse]
    /// Whether it runs in a live session (its directive's, or under `later`, the deferred one's), and the column of
    /// the directive that decides it.
    public let live: LiveSupport
    let liveColumn: Int
    let step: any Step
}

extension Statement {
    /// The same statement, refused on the live wire for `reason`, at `column`.
    func refusedLive(_ reason: String, column: Int) -> Statement {
        Statement(
            file: file, line: line, source: source, directive: directive, names: names, binding: binding, spawned: spawned, joined: joined,
            reads: reads, live: .refused(reason), liveColumn: column, step: step)
    }

    /// A statement that no line of the language makes: a library caller's own step (WorkbenchKit runs a test's async
    /// code as one, so the executor holds it to every check a line gets). It names nothing and binds nothing.
    package init(file: String, line: Int, source: String, directive: String, step: any Step) {
        self.init(
            file: file, line: line, source: source, directive: directive, names: [], binding: nil, spawned: nil, joined: nil,
            reads: [], live: .runs, liveColumn: 1, step: step)
    }
}

/// A `${NAME}` a line reads, and where.
public struct VariableUse: Sendable, Equatable {
    public let name: String
    public let column: Int
}

/// A parsed scenario file.
public struct Script: Sendable {
    public let file: String
    public let statements: [Statement]

    public init(file: String, statements: [Statement]) {
        (self.file, self.statements) = (file, statements)
    }
}

/// The scenario language: the directives it knows, and how lines become statements.
///
/// Actor modules add their own directives (`mig print …`) through `extra`; the engine itself holds no
/// protocol logic.
public struct ScenarioLanguage: Sendable {
    public let directives: [Directive]
    /// The kinds `start` knows; with none, names that only a catalog defines (fault points) are not checked.
    public let actorKinds: [ActorKind]
    /// The reach points the systems declare: every run watches for them, and `expect reached` may name them.
    public let reachPoints: [ReachPoint]
    /// Every event the systems' actors and clients and the kernel record: what `expect [no] trace` and `wait until
    /// trace` may name, and all a run may record. Empty (a language without a catalog): neither is checked.
    public let traceEvents: Set<String>
    /// Every declaration merged by name: the keys each of `traceEvents` may carry (what a line that looks for the event
    /// may match, `KEY=VALUE`, and all a run may record of it), and the values of the closed ones.
    public let traceVocabulary: TraceVocabulary
    /// What each actor kind's actors may record on their node (its system's events and those of the libraries under
    /// it): what `expect trace EVENT by NODE` is checked against when the file starts only actors of known kinds on NODE.
    let kindTraceEvents: [String: [TraceEventDeclaration]]

    /// - parameters:
    ///   - extra: the systems' directives.
    ///   - actorKinds: the kinds `start` can start; given, `start` checks kind and option names when a line is
    ///     parsed, so a typo stops the file before anything runs.
    ///   - reachPoints: the outcomes the systems declare worth reaching (``ReachPoint``).
    ///   - traceEvents: the events the systems and the kernel record, with their fields' keys and closed values
    ///     (declarations of one name are merged); given, an event name and the keys and values a line looks for are
    ///     checked when the line is parsed, and a run that records another event, key or value fails.
    ///   - kindTraceEvents: what the actors of each kind may record, by kind name: a line that looks for an event `by`
    ///     a node the file starts only such actors on is checked against those of its kinds.
    public init(
        extra: [Directive] = [], actorKinds: [ActorKind] = [], reachPoints: [ReachPoint] = [], traceEvents: [TraceEventDeclaration] = [],
        kindTraceEvents: [String: [TraceEventDeclaration]] = [:]
    ) {
        directives =
            Directive.script + Directive.world + [Directive.start(actorKinds)] + Directive.clients + Self.control + Directive.reach + extra
        self.actorKinds = actorKinds
        self.reachPoints = reachPoints
        traceVocabulary = TraceVocabulary(traceEvents)
        self.traceEvents = traceVocabulary.events
        self.kindTraceEvents = kindTraceEvents
    }

    /// The kinds whose actors check `point`.
    public func owners(ofFaultPoint point: String) -> [ActorKind] { actorKinds.filter { $0.faultPoints.contains(point) } }

    /// Why `point` names no fault point of the catalog (with the nearest one, and the points of the system it
    /// seems to mean), or nil when some actor kind checks it.
    func unknownFaultPoint(_ point: String) -> String? {
        guard !actorKinds.isEmpty, owners(ofFaultPoint: point).isEmpty, !Kernel.diskFaultPoints.contains(point) else { return nil }
        let actors = Set(actorKinds.flatMap(\.faultPoints))
        let all = actors.union(Kernel.diskFaultPoints).sorted()
        let system = point.split(separator: ".").first.map(String.init) ?? point
        let same = all.filter { $0.hasPrefix(system + ".") }
        let systems = Set(actors.compactMap { $0.split(separator: ".").first.map(String.init) }).sorted()
        let list =
            same.isEmpty
            ? "no system's points start with '\(system).'; systems with fault points: \(systems.joined(separator: ", ")), "
                + "and every node's simulated disk: \(Kernel.diskFaultPoints.joined(separator: ", "))"
            : "\(system)'s points: \(same.joined(separator: ", "))"
        return "no fault point '\(point)'\(didYouMean(point, among: all)); \(list) ('help fault' lists them all)"
    }

    /// Why `event` names no event the systems or the kernel record (with the nearest one), or nil when one does or the
    /// language knows no events: `expect no trace` of a misspelt event would pass on nothing, `wait until trace` of one
    /// would wait out its limit.
    func unknownTraceEvent(_ event: String) -> String? {
        guard !traceEvents.isEmpty, !traceEvents.contains(event) else { return nil }
        return "no trace event '\(event)'\(didYouMean(event, among: traceEvents)); expected an event an actor, a client or the "
            + "kernel records ('help expect' lists them all)"
    }

    /// Who a trace check narrowed to the actors on one node names: the node and the kinds it runs (nil: every recorder).
    struct TraceAuthor {
        let node: String
        let kinds: [String]
        var text: String { " by '\(node)' (which runs \(kinds.joined(separator: " and ")))" }
    }

    /// Why `key` is no field of `event` in `vocabulary` (with the nearest of its keys, and all of them), or nil when the
    /// event may carry it or is not there (refused on its own): `expect no trace job-created usr=x` would pass on
    /// nothing, since no `job-created` carries `usr`.
    func unknownTraceField(_ key: String, of event: String, in vocabulary: TraceVocabulary, by author: TraceAuthor? = nil) -> String? {
        guard let keys = vocabulary.fields[event], !keys.contains(key) else { return nil }
        let listed = keys.isEmpty ? "it carries no fields" : "its fields: \(keys.sorted().joined(separator: ", "))"
        return "the trace event '\(event)'\(author?.text ?? "") has no field '\(key)'\(didYouMean(key, among: keys)); \(listed)"
    }

    /// Why `value` is none of the values the closed field `key` of `event` takes in `vocabulary` (with the nearest, and
    /// all of them), or nil when it is one, the field is free or unknown (refused on its own): `expect no trace
    /// mig-client-job-state state=complted` would pass on nothing.
    func unknownTraceValue(
        _ value: String, key: String, of event: String, in vocabulary: TraceVocabulary, by author: TraceAuthor? = nil
    )
        -> String?
    {
        guard let values = vocabulary.entries[event]?.values[key], !values.contains(value) else { return nil }
        return "the trace event '\(event)'\(author?.text ?? "") never carries \(key)=\(value)\(didYouMean(value, among: values)); "
            + "its \(key) values: \(values.sorted().joined(separator: ", "))"
    }

    /// What a run recorded that no declaration covers: an event no system or the kernel declares, else the first
    /// field whose key its event's declaration lacks, or whose value is none of those its closed key takes.
    enum UndeclaredTrace {
        case event(Trace.Event)
        case field(Trace.Event, key: String)
        case value(Trace.Event, key: String, value: String)
    }

    /// The first undeclared event of `events`, else their first undeclared key or value (nil without a catalog), found in
    /// one pass: a run that records any fails, so the names, keys and values `expect trace` is checked against cannot fall
    /// behind what the code records.
    func undeclaredTrace(in events: [Trace.Event]) -> UndeclaredTrace? {
        guard !traceVocabulary.isEmpty else { return nil }
        var firstField: UndeclaredTrace?
        for event in events {
            guard let entry = traceVocabulary.entries[event.event] else { return .event(event) }
            guard firstField == nil else { continue }
            for (key, value) in event.fields {
                if !entry.fields.contains(key) {
                    firstField = .field(event, key: key)
                    break
                }
                if let values = entry.values[key], !values.contains(value) {
                    firstField = .value(event, key: key, value: value)
                    break
                }
            }
        }
        return firstField
    }

    /// The directive called `name`.
    public func directive(named name: String) -> Directive? { directives.first { $0.name == name } }

    /// Parses one line; `nil` for blank lines and comments.
    public func parse(line text: String, file: String, lineNumber: Int) throws(ScenarioError) -> Statement? {
        let tokens = try Lexer.tokens(of: text, file: file, lineNumber: lineNumber)
        guard let first = tokens.first else { return nil }
        let statement = try statement(tokens, source: text, file: file, line: lineNumber, column: first.column)
        for use in statement.names {
            let problem: String? =
                switch use.kind {
                case .faultPoint: unknownFaultPoint(use.name)
                case .traceEvent: unknownTraceEvent(use.name)
                case .traceField(let event): unknownTraceField(use.name, of: event, in: traceVocabulary)
                case .traceValue(let event, let key): unknownTraceValue(use.name, key: key, of: event, in: traceVocabulary)
                case .reachLabel: reachLabelProblem(use.name)
                // Under a system's prefix, only that system's points exist; the file's own labels are checked with the file.
                case .reachPoint where underDeclaredSystem(use.name): unknownReachPoint(use.name, labels: [])
                default: nil
                }
            if let problem { throw ScenarioError(file: file, line: lineNumber, column: use.column, message: problem) }
        }
        if let disk = statement.names.first(where: { $0.kind == .faultPoint && Kernel.diskFaultPoints.contains($0.name) }) {
            return statement.refusedLive(
                "'\(disk.name)' is a fault of the simulated disk: a live actor's files are on the machine's own disk", column: disk.column)
        }
        return statement
    }

    private func statement(_ tokens: [Token], source: String, file: String, line: Int, column: Int) throws(ScenarioError) -> Statement {
        let head = tokens[0]
        if head.text == "spawn", !head.quoted {
            var args = Arguments(file: file, line: line, directiveColumn: head.column, tokens: Array(tokens.dropFirst()))
            let name = try args.name("a name for the background work")
            guard let inner = args.peek else { throw args.error("expected a directive to run in the background, found end of line") }
            let innerStatement = try statement(args.remaining, source: source, file: file, line: line, column: inner.column)
            return Statement(
                file: file, line: line, source: source, directive: "spawn", names: innerStatement.names,
                binding: innerStatement.binding, spawned: name, joined: nil, reads: innerStatement.reads,
                live: innerStatement.live == .runs ? .ownClients : innerStatement.live, liveColumn: head.column,
                step: SpawnStep(name: name, inner: innerStatement.step, directive: innerStatement.directive))
        }
        if head.text == "later", !head.quoted {
            var args = Arguments(file: file, line: line, directiveColumn: head.column, tokens: Array(tokens.dropFirst()))
            let delay = try args.duration()
            guard let inner = args.peek else { throw args.error("expected a directive to run later, found end of line") }
            guard !inner.quoted, LaterStep.directives.contains(inner.text) else {
                throw ScenarioError(
                    file: file, line: line, column: inner.column,
                    message: "'later' runs a change to the world (\(LaterStep.directives.joined(separator: ", "))), found '\(inner.text)'")
            }
            let innerStatement = try statement(args.remaining, source: source, file: file, line: line, column: inner.column)
            return Statement(
                file: file, line: line, source: source, directive: "later", names: innerStatement.names,
                binding: nil, spawned: nil, joined: nil, reads: Self.reads(tokens),
                live: innerStatement.live, liveColumn: innerStatement.liveColumn,
                step: LaterStep(delay: delay, inner: innerStatement.step, directive: innerStatement.directive))
        }
        guard !head.quoted, let directive = directive(named: head.text) else {
            throw ScenarioError(
                file: file, line: line, column: head.column,
                message: "unknown directive '\(head.text)'\(didYouMean(head.text, among: directives.map(\.name) + ["spawn", "later"])); "
                    + "expected one of the directives listed by 'help'")
        }
        var args = Arguments(file: file, line: line, directiveColumn: head.column, tokens: Array(tokens.dropFirst()))
        let step = try directive.parse(&args)
        try args.end()
        return Statement(
            file: file, line: line, source: source, directive: directive.name, names: args.names,
            binding: args.binding, spawned: nil, joined: args.joined, reads: Self.reads(tokens), live: directive.live,
            liveColumn: head.column, step: step)
    }

    /// Why `statement` cannot run on the live wire in `mode`, at the word that decides it, or nil when it can:
    /// checked when the line is read, so nothing of it runs.
    public func liveProblem(_ statement: Statement, in mode: LiveMode) -> ScenarioError? {
        if let why = statement.live.refusal(in: mode) {
            let word = statement.directive == "later" ? "this 'later'" : "'\(statement.directive)'"
            return ScenarioError(
                file: statement.file, line: statement.line, column: statement.liveColumn,
                message: "\(word) does not run on the live wire: \(why)")
        }
        if let point = statement.names.first(where: { $0.kind == .reachPoint }) {
            return ScenarioError(
                file: statement.file, line: statement.line, column: point.column,
                message: "reach points do not run on the live wire: they are counted over a simulated run's whole trace; "
                    + "check what happened with 'expect trace EVENT'")
        }
        return nil
    }

    /// The `${…}` references in `tokens`, at their columns (after a string's opening quote).
    static func reads(_ tokens: [Token]) -> [VariableUse] {
        tokens.flatMap { token -> [VariableUse] in
            var uses: [VariableUse] = []
            var rest = Substring(token.text)
            while let open = rest.range(of: "${"), let close = rest[open.upperBound...].firstIndex(of: "}") {
                let offset = token.text.distance(from: token.text.startIndex, to: open.lowerBound)
                uses.append(VariableUse(name: String(rest[open.upperBound..<close]), column: token.column + offset + (token.quoted ? 1 : 0)))
                rest = rest[rest.index(after: close)...]
            }
            return uses
        }
    }

    /// Checks every `${NAME.FIELD}` against the line that binds NAME before it, in file order: a field that binding
    /// cannot give is an error naming that line (and the earlier one it replaced, if that one gave the field), and so is
    /// a name no line before it binds (`${seed}` and `${now}` excepted).
    /// - parameter bound: results bound before these statements (the console's world), by name with their fields.
    public func checkResults(_ statements: [Statement], bound: [String: (line: Int, source: String, fields: [String])] = [:]) -> [ScenarioError] {
        typealias Bound = (line: Int, source: String, binding: ResultBinding)
        var latest: [String: Bound] = bound.mapValues { ($0.line, $0.source, ResultBinding(label: "", fields: Set($0.fields))) }
        var earlier: [String: Bound] = [:]
        var background: [String: Bound] = [:]
        var errors: [ScenarioError] = []
        for statement in statements {
            let text = String(statement.source.drop { $0 == " " || $0 == "\t" })
            for use in statement.reads {
                let label = latest.keys.filter { use.name == $0 || use.name.hasPrefix($0 + ".") }.max { $0.count < $1.count }
                guard let label else {
                    guard !Self.builtInVariables.contains(use.name) else { continue }
                    errors.append(
                        ScenarioError(
                            file: statement.file, line: statement.line, column: use.column,
                            message: unboundMessage(
                                use.name, bound: latest.keys, spawned: background, statements: statements, after: statement.line)))
                    continue
                }
                guard let binding = latest[label], let fields = binding.binding.fields else { continue }
                let field = use.name == label ? "" : String(use.name.dropFirst(label.count + 1))
                guard !binding.binding.gives(field) else { continue }
                let replaced = earlier[label].flatMap { $0.binding.gives(field) ? ($0.line, $0.source) : nil }
                errors.append(
                    ScenarioError(
                        file: statement.file, line: statement.line, column: use.column,
                        message: missingFieldMessage(
                            use.name, label: label, field: field, line: binding.line, source: binding.source,
                            fields: fields.sorted(), replaced: replaced)))
            }
            let bound: Bound?
            if let spawned = statement.spawned {
                background[spawned] = statement.binding.map { (statement.line, text, $0) }
                bound = nil
            } else if let joined = statement.joined {
                bound = background.removeValue(forKey: joined)
            } else {
                bound = statement.binding.map { (statement.line, text, $0) }
            }
            if let bound {
                if let previous = latest[bound.binding.label] { earlier[bound.binding.label] = previous }
                latest[bound.binding.label] = bound
            }
        }
        return errors
    }

    /// The variables every run defines: `${seed}`, and `${now}`, the virtual time.
    static let builtInVariables: Set<String> = ["seed", "now"]

    /// Why `${name}` has no value: no line before it binds its name (with the nearest bound name, and the later line
    /// that binds it, if one does).
    private func unboundMessage(
        _ name: String, bound: some Collection<String>, spawned: [String: (line: Int, source: String, binding: ResultBinding)],
        statements: [Statement], after line: Int
    ) -> String {
        let label = String(name.prefix { $0 != "." })
        let known = bound.sorted()
        let later = statements.first { $0.line > line && $0.spawned == nil && $0.binding?.label == label }
        let running = spawned.first { $0.value.binding.label == label }
        let when =
            if let running {
                "; line \(running.value.line) binds it when 'join \(running.key)' collects its work"
            } else if let later {
                "; line \(later.line) binds it, after this one"
            } else {
                ""
            }
        return "${\(name)}: no line before this one binds '\(label)'"
            + didYouMean(label, among: known + Self.builtInVariables.sorted()) + when
            + "; bound by then: \(known.isEmpty ? "nothing" : known.joined(separator: ", ")) "
            + "('as NAME' names a line's result, 'let NAME = VALUE' a value)"
    }

    /// Who records trace events besides a scenario's nodes and actors.
    static let kernelTraceAuthors: Set<String> = ["net", "bus", "scenario"]

    /// Checks what the statements name against what the scenario puts in the world: every host a line acts on must
    /// be a node some line of the scenario creates (an actor's host, a client's `from`), or one of `existing`; every
    /// actor a line acts on must be one a `start` line names, or one of `actors` (the console's world so far). Order
    /// does not matter: a partition may be set up before the node starts. Not checked by a language without actor kinds.
    public func checkNames(_ statements: [Statement], existing: Set<String> = [], actors existingActors: Set<String> = []) -> [ScenarioError] {
        // Without a catalog, `start` cannot know the host a kind runs on.
        guard !actorKinds.isEmpty else { return [] }
        let nodes = existing.union(statements.flatMap { $0.names.filter { $0.kind == .node }.map(\.name) })
        let actors = existingActors.union(statements.flatMap { $0.names.filter { $0.kind == .actor }.map(\.name) })
        // A `start` line names its actor and the node it runs on.
        var nodeOfActor: [String: String] = [:]
        for statement in statements where statement.names.contains(where: { $0.kind == .actorKind }) {
            if let actor = statement.names.first(where: { $0.kind == .actor }), let node = statement.names.first(where: { $0.kind == .node }) {
                nodeOfActor[actor.name] = node.name
            }
        }
        var errors: [ScenarioError] = []
        for statement in statements {
            for use in statement.names where use.kind == .actorReference && !actors.contains(use.name) {
                let known = actors.isEmpty ? "no line of the scenario starts one" : "its actors: \(actors.sorted().joined(separator: ", "))"
                errors.append(
                    ScenarioError(
                        file: statement.file, line: statement.line, column: use.column,
                        message: "no actor '\(use.name)'\(didYouMean(use.name, among: actors)); \(known) ('start KIND [as NAME]' starts one)"))
            }
            // A misspelt author would make `expect no trace … by NAME` pass on nothing: events come from the nodes of
            // the scenario (an actor records as its node), and from the kernel's own network, URL bus and scenario runner.
            let authors = nodes.union(Self.kernelTraceAuthors)
            for use in statement.names where use.kind == .traceAuthor && !authors.contains(use.name) {
                let message =
                    actors.contains(use.name)
                    ? "the actor '\(use.name)' records its trace events as its node"
                        + (nodeOfActor[use.name].map { " '\($0)': expected 'by \($0)'" } ?? ": expected 'by' and the node it runs on")
                    : "no node '\(use.name)' records trace events\(didYouMean(use.name, among: authors)); "
                        + "the scenario's: \(authors.sorted().joined(separator: ", "))"
                errors.append(ScenarioError(file: statement.file, line: statement.line, column: use.column, message: message))
            }
            for use in statement.names where use.kind == .host && !nodes.contains(use.name) {
                let known =
                    nodes.isEmpty
                    ? "the scenario has no nodes yet (start an actor, or name a client's node with 'from')"
                    : "its nodes: \(nodes.sorted().joined(separator: ", "))"
                // The phone is every client's default node, but only a client line puts it on the network.
                let phone = use.name == "phone" ? " (the phone is a node once a client line runs on it)" : ""
                errors.append(
                    ScenarioError(
                        file: statement.file, line: statement.line, column: use.column,
                        message: "no node '\(use.name)'\(didYouMean(use.name, among: nodes)); \(known)\(phone)"))
            }
        }
        return errors
    }

    /// Checks that no `start` names an actor already running at that point of the file (started by an earlier line and
    /// not stopped or crashed since, or one of `running`, the console's world): the second start could only fail when it runs.
    public func checkStarts(_ statements: [Statement], running: Set<String> = []) -> [ScenarioError] {
        var started: [String: (line: Int, source: String)?] = Dictionary(uniqueKeysWithValues: running.map { ($0, nil) })
        var errors: [ScenarioError] = []
        for statement in statements {
            if statement.directive == "stop" || statement.directive == "crash" {
                for use in statement.names where use.kind == .actorReference { started[use.name] = nil }
                continue
            }
            guard statement.names.contains(where: { $0.kind == .actorKind }) else { continue }
            for use in statement.names where use.kind == .actor {
                if let earlier = started[use.name] {
                    let by = earlier.map { "line \($0.line) (\($0.source)) started it" } ?? "it is running"
                    errors.append(
                        ScenarioError(
                            file: statement.file, line: statement.line, column: use.column,
                            message: "an actor named '\(use.name)' is already started: \(by); expected 'stop \(use.name)' before, "
                                + "or another name with 'as NAME'"))
                } else {
                    started[use.name] = (statement.line, String(statement.source.drop { $0 == " " || $0 == "\t" }))
                }
            }
        }
        return errors
    }

    /// Checks every `expect reached POINT` against the declared points and the file's own `sometimes` labels
    /// (wherever in the file they are).
    func checkReachPoints(_ statements: [Statement]) -> [ScenarioError] {
        let labels = Set(statements.flatMap { $0.names.filter { $0.kind == .reachLabel }.map(\.name) })
        return statements.flatMap { statement in
            statement.names.filter { $0.kind == .reachPoint }.compactMap { use in
                unknownReachPoint(use.name, labels: labels).map {
                    ScenarioError(file: statement.file, line: statement.line, column: use.column, message: $0)
                }
            }
        }
    }

    /// For `run --strict` and the swarm: the fault points a scenario switches that none of its actors checks, so the
    /// fault could never fire (the actor kind that checks it is never started).
    public func unreachableFaultPoints(_ script: Script) -> [ScenarioError] {
        guard !actorKinds.isEmpty else { return [] }
        let started = Set(script.statements.flatMap { $0.names.filter { $0.kind == .actorKind }.map(\.name) })
        var errors: [ScenarioError] = []
        for statement in script.statements {
            for use in statement.names where use.kind == .faultPoint {
                let owners = owners(ofFaultPoint: use.name)
                guard !owners.isEmpty, !owners.contains(where: { started.contains($0.name) }) else { continue }
                errors.append(
                    ScenarioError(
                        file: statement.file, line: statement.line, column: use.column,
                        message: "fault point '\(use.name)' can never fire: only \(owners.map { "'\($0.name)'" }.joined(separator: " or ")) "
                            + "checks it, and no 'start' of this scenario starts one"))
            }
        }
        return errors
    }

    /// Parses a whole file, collecting every error (so a malformed file runs nothing), then checks the hosts, nodes and
    /// actors its lines name (``checkNames(_:existing:actors:)``) and the result fields they read (``checkResults(_:bound:)``).
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
        errors +=
            checkNames(statements) + checkStarts(statements) + checkResults(statements) + checkReachPoints(statements)
            + checkTraceAuthors(statements)
        errors.sort { ($0.line, $0.column) < ($1.line, $1.column) }
        return (Script(file: file, statements: statements), errors)
    }

    /// Language-level directives: background work.
    static let control: [Directive] = [
        Directive(
            "join", usage: "join NAME [within DURATION]", summary: "wait for work started with 'spawn NAME …'",
            defaults: "within the spawned directive's own limit", keywords: ["within"]
        ) {
            args throws(ScenarioError) in
            let name = try args.name("the name given to spawn")
            var within: Template?
            if args.accept("within") { within = try args.duration() }
            try args.end()
            args.joined = name
            let joinLimit = within
            return Run { context in
                guard let pending = context.background.removeValue(forKey: name) else {
                    throw StepError("nothing was spawned as '\(name)'")
                }
                let limit = try joinLimit.map { try $0.duration(context) } ?? pending.timeout
                context.publish(pending.label, try pending.wait(context, limit), source: pending.origin, declared: pending.declared)
                return nil
            }
        }
    ]
}

/// `spawn NAME DIRECTIVE…`: starts the directive's work and moves on; `join NAME` collects it.
struct SpawnStep: Step {
    let name: String
    let inner: any Step
    let directive: String

    func run(_ context: ScenarioContext) throws -> Pending? {
        guard context.background[name] == nil else { throw StepError("'\(name)' is already running; join it first") }
        if var pending = try inner.run(context) {
            pending.origin = (context.line, context.source)
            pending.declared = context.declared
            context.background[name] = pending
        }
        return nil
    }
}

/// `later DURATION DIRECTIVE…`: changes the world that much later, in the middle of whatever runs then (a
/// partition that starts 300 ms into an upload, a crash between an answer and the write it promised). Only directives
/// that act at once may be deferred (a crash's work runs on as the world's own).
struct LaterStep: Step {
    static let directives = ["partition", "heal", "hold", "release", "reset", "link", "clock", "fault", "crash"]
    let delay: Template
    let inner: any Step
    let directive: String

    func run(_ context: ScenarioContext) throws -> Pending? {
        let duration = try delay.duration(context)
        guard duration >= .zero else { throw StepError("later \(duration.workbenchText): expected a delay of 0 or more") }
        let (inner, directive, epoch) = (self.inner, self.directive, context.healEpoch)
        context.world.schedule(in: duration) {
            // `after heal` ended every fault, those still to come included.
            guard context.healEpoch == epoch else {
                context.world.record(actor: "scenario", event: "later-dropped", fields: [("directive", directive), ("why", "after heal")])
                return
            }
            context.isDeferred = true
            defer { context.isDeferred = false }
            do {
                _ = try inner.run(context)
            } catch {
                context.world.record(actor: "scenario", event: "later-failed", fields: [("directive", directive), ("error", "\(error)")])
            }
        }
        return nil
    }
}

/// ` (did you mean 'X'?)` for the known name nearest to `name`, when one is close enough to be a typo; else "".
public func didYouMean(_ name: String, among known: some Sequence<String>) -> String {
    let nearest = known.min { (editDistance($0, name), $0) < (editDistance($1, name), $1) }
    guard let nearest, editDistance(nearest, name) <= max(2, name.count / 4) else { return "" }
    return " (did you mean '\(nearest)'?)"
}

/// Edit distance, for "did you mean": insertions, deletions, substitutions, and a swap of two neighbouring letters,
/// each one edit (optimal string alignment), so `stauts` is one edit from `status` and two from `state`.
public func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var beforePrevious: [Int] = []
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                current[j] = min(current[j], beforePrevious[j - 2] + 1)
            }
        }
        beforePrevious = previous
        previous = current
    }
    return previous[b.count]
}
