import Foundation
import Kernel
import Wire
import WireHTTP

/// Everything a running scenario holds: the kernel, variables, started actors, open connections,
/// background work, and the expectations checked so far.
///
/// Confined to the thread that runs the scenario (which is also the kernel's driving thread).
public final class ScenarioContext: @unchecked Sendable {
    // @unchecked Sendable: confined to the scenario's thread (see type comment).

    /// The outcome of one `expect`.
    public struct Expectation: Sendable {
        public let file: String
        public let line: Int
        public let text: String
        public let failure: String?
        /// How many trace events had been recorded when it was checked (its place in the trace), and when.
        public let traceIndex: Int
        public let nanoseconds: Int64
    }

    /// A promise a system keeps (an ``Invariant``) found broken: which, what broke, and where in the run.
    public struct Violation: Sendable {
        public let invariant: String
        public let message: String
        /// The statement after which it was found (0: at the end of the run).
        public let line: Int
        /// The trace event (1-based) that broke it, or, for a promise about the world's state, how many events had
        /// been recorded when it was found; and that moment's virtual time.
        public let traceIndex: Int
        public let nanoseconds: Int64
    }

    /// The world its lines act on (see ``World``).
    public let world: any World
    /// The simulated world, when the lines run in one; nil in a live session.
    private let simulated: Kernel?
    public let catalog: [ActorKind]
    public let file: String
    public internal(set) var line = 0
    public internal(set) var variables: [String: String] = [:]
    public internal(set) var expectations: [Expectation] = []
    public internal(set) var violations: [Violation] = []
    /// Results that say they failed without saying why (a failure `status`, no `error`): the tests hold every directive
    /// to explaining its failures, so each is listed here as `line N: NAME (status S)`.
    public internal(set) var unexplainedFailures: [String] = []
    /// Fields a result gave that its line's directive did not declare (``ResultBinding``): the static check of
    /// `${NAME.FIELD}` is only as good as the declarations, so the tests hold every run to none, as `line N: NAME.FIELD`.
    public internal(set) var undeclaredFields: [String] = []
    /// What the running line declared it binds.
    var declared: ResultBinding?
    public internal(set) var title: String?
    /// The reach points reached so far: the declared ones the run's ``ReachWatch`` saw, and the `sometimes` lines
    /// whose condition held.
    public internal(set) var reached: Set<String> = []
    /// The run's watch of the declared reach points (`expect reached` brings it up to date before it looks).
    public var reach: ReachWatch?
    /// How many times `after heal` ran: a `later` fault scheduled before a heal does not fire after it.
    var healEpoch = 0
    /// Set while a `later` line's directive runs, inside the world's loop: a step must not wait for the world then.
    var isDeferred = false
    /// Set by `after heal`: the rest of the run must end by `deadline` (`within` after the heal on line `line`).
    public internal(set) var recovery: (deadline: Duration, line: Int, within: Duration)?
    var actors: [(name: String, actor: any RunningActor)] = []
    /// How each actor was started (kept after `stop`, so `restart` can start it again).
    var launches: [String: Launch] = [:]
    /// The actors a `restart` is starting now, and those whose power was cut during that start (their recovery's
    /// writes), with how long each stays down: crashed once the start ends.
    var starting: Set<String> = []
    var crashOnceStarted: [String: PendingCrash] = [:]
    var connections: [String: TCPConnection] = [:]
    var background: [String: Pending] = [:]
    var marks: [String: Duration] = [:]
    /// The line that is running (its text names a result's origin in messages).
    var source = ""
    /// What each result name holds now and held before: the line that bound it and the fields it gave.
    private var bindings: [String: Binding] = [:]
    private var replaced: [String: Binding] = [:]
    /// What ``RunState`` kinds keep, by kind, instance and type: a value is only ever read back as the type it was kept as.
    private var states: [RunStateKey: Any] = [:]
    /// Where `print` and `section` write (the console's screen, or the run's output).
    let output: @Sendable (String) -> Void

    public convenience init(kernel: Kernel, catalog: [ActorKind], file: String, output: @escaping @Sendable (String) -> Void) {
        self.init(world: kernel, catalog: catalog, file: file, output: output)
    }

    /// A context for lines that act on `world`: a ``Kernel``, or a live session's world (whose lines are the
    /// directives that declare they run live, checked when each line is read: ``Directive/live``).
    public init(world: any World, catalog: [ActorKind], file: String, output: @escaping @Sendable (String) -> Void) {
        self.world = world
        self.simulated = world as? Kernel
        self.catalog = catalog
        self.file = file
        self.output = output
        variables["seed"] = String(world.seed)
    }

    /// The simulated kernel, for the directives that only run in one. A live session refuses their lines when it
    /// reads them (``Directive/live``), so reaching this live is a directive that declares it runs live and does not.
    public var kernel: Kernel {
        guard let simulated else {
            preconditionFailure("line \(line) (\(source)) reads the simulated kernel in a live world: its directive must not declare it runs live")
        }
        return simulated
    }

    /// The outside servers some actor kinds' clients talk to instead of the actor (`--target KIND=URL`), by kind.
    public internal(set) var targets: [String: Target] = [:]

    /// What the clients that offer a choice (the SCPms app, the IMS SDK) send their HTTP through: always the project's
    /// NIO client under simulation; URLSession on the live wire when `run --live --http urlsession` asks.
    public internal(set) var httpStack: HTTPStack = .nio

    /// The URL the clients of actor kind `kind` use when a line names none: its target's, or nil for the actor's own.
    public func target(of kind: String) -> String? { targets[kind]?.url }

    /// Every result a line published, in order: what `workbench compare` holds side by side.
    public internal(set) var published: [(line: Int, label: String, values: [String: String])] = []

    /// Whether ``published`` is kept (a comparison's runs).
    var keepsPublished = false

    /// Whether its world is simulated (virtual time, a seed's order), not the live wire.
    public var isSimulated: Bool { simulated != nil }

    /// The failed expectations.
    public var failures: [Expectation] { expectations.filter { $0.failure != nil } }

    /// Replaces `${name}` with variable values; `${now}` is the virtual time.
    public func interpolate(_ text: String) throws -> String {
        guard text.contains("${") else { return text }
        var out = ""
        var rest = Substring(text)
        while let open = rest.range(of: "${") {
            out += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].firstIndex(of: "}") else {
                throw StepError("unterminated ${ in '\(text)'")
            }
            let name = String(rest[open.upperBound..<close])
            out += try value(of: name)
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    /// The value of a variable, or an error that says why there is none: a result field the line that last bound
    /// its name did not give (naming that line and the one it replaced), or an undefined name.
    public func value(of name: String) throws -> String {
        if name == "now" { return world.now.workbenchText }
        if let value = variables[name] { return value }
        // `p.job`, or `a.b.c` for a label `a.b`: the longest bound label the name starts with.
        let label = bindings.keys.filter { name.hasPrefix($0 + ".") }.max { $0.count < $1.count }
        if let label, let binding = bindings[label] {
            let field = String(name.dropFirst(label.count + 1))
            let earlier = replaced[label].flatMap { $0.fields.contains(field) ? ($0.line, $0.source) : nil }
            throw StepError(
                missingFieldMessage(
                    name, label: label, field: field, line: binding.line, source: binding.source,
                    fields: binding.fields, replaced: earlier))
        }
        let defined = variables.keys.sorted()
        throw StepError(
            "undefined variable ${\(name)}\(didYouMean(name, among: defined)); defined: "
                + (defined.isEmpty ? "none" : defined.prefix(20).joined(separator: ", ") + (defined.count > 20 ? ", …" : "")))
    }

    /// Publishes values under `label.` (an entry with an empty key is published as `label` itself). They replace
    /// everything `label` held, so no field of an earlier result can be read as if this line had given it.
    /// - parameter source: the line that made them (default: the line running now).
    /// - parameter declared: what that line declared it binds (default: the running line's declaration).
    public func publish(_ label: String, _ values: [String: String], source: (line: Int, text: String)? = nil, declared: ResultBinding? = nil) {
        if let old = bindings[label] {
            for field in old.fields { variables[field.isEmpty ? label : "\(label).\(field)"] = nil }
            replaced[label] = old
        }
        for (key, value) in values {
            variables[key.isEmpty ? label : "\(label).\(key)"] = value
        }
        let origin = source ?? (line, self.source)
        if keepsPublished { published.append((origin.line, label, values)) }
        bindings[label] = Binding(line: origin.line, source: origin.text, fields: values.keys.sorted())
        if let declaration = declared ?? self.declared, declaration.label == label {
            for key in values.keys.sorted() where !declaration.gives(key) { undeclaredFields.append("line \(origin.line): \(label).\(key)") }
        }
        if let status = values["status"], Self.failureStatuses.contains(status) || status.hasPrefix("no-"), values["error", default: ""].isEmpty {
            unexplainedFailures.append("line \(origin.line): \(label) (status \(status))")
        }
    }

    /// The `status` words that mean a step failed (besides `no-…`), each of which must come with an `error`.
    static let failureStatuses: Set<String> = ["error", "failed", "refused", "unreachable", "denied", "unhandled", "cancelled", "rejected"]

    /// The results bound so far: by name, the line that bound it and the fields it gave (so the console checks a line's
    /// `${NAME.FIELD}` against them before it runs).
    public var results: [String: (line: Int, source: String, fields: [String])] { bindings.mapValues { ($0.line, $0.source, $0.fields) } }

    func record(_ text: String, failure: String?) {
        expectations.append(
            Expectation(
                file: file, line: line, text: text, failure: failure,
                traceIndex: world.traceCount, nanoseconds: world.now.nanosecondsValue))
    }

    /// The actor started under `name` (the `as NAME` of `start`, or its kind).
    public func actor(named name: String) -> (any RunningActor)? {
        actors.first { $0.name == name }?.actor
    }

    /// The started actors, in start order.
    public var startedActors: [(name: String, actor: any RunningActor)] { actors }

    /// The running actors a swarm may crash (``RunningActor/survivesCrash``), by name, in the order they started.
    public var crashableActors: [String] { actors.filter { $0.actor.survivesCrash }.map(\.name) }

    /// How an actor was started: its kind, the node it runs on and its options.
    public struct Launch: Sendable {
        public let kind: ActorKind
        public let node: String
        public let options: [String: String]

        public init(kind: ActorKind, node: String, options: [String: String]) {
            (self.kind, self.node, self.options) = (kind, node, options)
        }
    }

    /// Every actor started so far, running or stopped (the names a line may act on: `restart` starts a stopped one).
    public var launchedActors: Set<String> { Set(launches.keys) }

    /// Takes in an actor started outside the scenario (a live session's served actors), so its lines can name it.
    public func adopt(_ name: String, _ actor: any RunningActor, launch: Launch) {
        actors.append((name, actor))
        launches[name] = launch
    }

    /// The kind and host of the actor running as `name` (nil when none runs under that name).
    public func placement(ofActor name: String) -> (kind: String, host: String)? {
        guard actor(named: name) != nil, let launch = launches[name] else { return nil }
        return (launch.kind.name, launch.node)
    }

    /// State a system's directives keep for the rest of the scenario (an app's client, its stored settings), of the
    /// kind `kind` for `instance` (an app's name, a node's), created on first use.
    public func state<T>(_ kind: RunState<T>, for instance: String = "", create: () throws -> T) rethrows -> T {
        let key = RunStateKey(kind, instance)
        if let existing = states[key] as? T { return existing }
        let made = try create()
        states[key] = made
        return made
    }

    /// Replaces the state of the kind `kind` kept for `instance`.
    public func setState<T>(_ kind: RunState<T>, _ value: T, for instance: String = "") { states[RunStateKey(kind, instance)] = value }

    /// Starts `work` in the world (a kernel task under simulation) and returns the ``Pending`` that waits for it and
    /// publishes what it returns under `label`, plus `label.elapsed`. A thrown error is published as
    /// `label.error` (and `label.status` = `error` unless the work set one), so scenarios can expect failures.
    public func perform(
        _ name: String, label: String, timeout: Duration,
        _ work: @escaping @Sendable () async throws -> [String: String]
    ) -> Pending {
        let started = world.now
        let task = world.begin(name) { () -> Result<[String: String], StepError> in
            do { return .success(try await work()) } catch { return .failure(StepError("\(error)")) }
        }
        return Pending(label: label, timeout: timeout) { context, limit in
            var values: [String: String]
            switch try task.wait(limit) {
            case .success(let result):
                values = result
                if values["error"] == nil { values["error"] = "" }
            case .failure(let error): values = ["error": error.message, "status": "error"]
            }
            values["elapsed"] = (context.world.now - started).workbenchText
            return values
        }
    }
}

/// Why `${name}` has no value: the line that last bound `label` gives no `field`; `replaced`, the earlier line that did.
func missingFieldMessage(
    _ name: String, label: String, field: String, line: Int, source: String, fields: [String],
    replaced: (line: Int, source: String)?
) -> String {
    let gives = fields.filter { !$0.isEmpty }
    var message =
        "${\(name)}: '\(label)' was last bound by line \(line) (\(source)), which gives no '\(field)'"
        + didYouMean(field, among: gives) + "; it gives \(gives.isEmpty ? "no fields" : gives.map { "${\(label).\($0)}" }.joined(separator: ", "))"
    if let replaced {
        message += ". The \(name) of line \(replaced.line) (\(replaced.source)) was replaced by that binding: name each result with its own 'as NAME'"
    }
    return message
}

/// The line that bound a result name, and the fields it gave.
struct Binding {
    let line: Int
    let source: String
    let fields: [String]
}

/// A step that could not do what it was asked (as opposed to an expectation that did not hold).
public struct StepError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A kind of state a system's directives keep for the rest of a scenario, with the type of its values: declared once
/// (`static let app = RunState<SCPmsApp>("scpms.app")`), it is read back as that type only. Each kind keeps one value per
/// instance (an app's name, a node's).
public struct RunState<Value>: Sendable {
    public let name: String
    public init(_ name: String) { self.name = name }
}

/// Where a ``RunState`` value is kept: its kind's name and type, and the instance.
private struct RunStateKey: Hashable {
    let name: String
    let type: ObjectIdentifier
    let instance: String

    init<T>(_ kind: RunState<T>, _ instance: String) {
        name = kind.name
        type = ObjectIdentifier(T.self)
        self.instance = instance
    }
}
