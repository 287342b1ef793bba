import Kernel

/// A promise a system keeps in every run, whatever the scenario and whatever the faults: "every job MiG
/// acknowledged is in its spool exactly once". The runner checks each one after every statement and at the end
/// of the run; a broken one fails the run with its name and its place in the trace.
///
/// Systems declare them next to their actors (``ScenarioRunner/init(language:catalog:invariants:)`` takes the
/// list); a fresh checker is made for every run, so a checker may keep what it learnt from earlier events.
public struct Invariant: Sendable {
    /// `system.promise`, e.g. `mig.acknowledged-job-spooled-once`.
    public let name: String
    /// What it checks, in one sentence (for `workbench invariants` and the README).
    public let promise: String
    /// Makes the checker of one run.
    public let makeChecker: @Sendable () -> any InvariantChecker

    public init(name: String, promise: String, makeChecker: @escaping @Sendable () -> any InvariantChecker) {
        self.name = name
        self.promise = promise
        self.makeChecker = makeChecker
    }

    /// An invariant whose checker only reads the trace: `check` sees each new event once, in order, and keeps its
    /// own state in `State`.
    public static func trace<State: Sendable>(
        _ name: String, promise: String, initial: State, check: @escaping @Sendable (inout State, Trace.Event) -> String?
    ) -> Invariant {
        Invariant(name: name, promise: promise) { TraceInvariantChecker(state: initial, check: check) }
    }
}

/// What a checker found broken: a sentence, and the event that broke it when one did (its index in the events
/// the checker was given).
public struct InvariantBreach: Sendable {
    public let message: String
    public let event: Int?

    public init(_ message: String, event: Int? = nil) {
        self.message = message
        self.event = event
    }
}

/// The checker of one invariant in one run. Confined to the scenario's thread.
public protocol InvariantChecker: AnyObject {
    /// Looks at the events recorded since the last check (in order) and at the world; returns what broke, or nil.
    func check(_ newEvents: ArraySlice<Trace.Event>, in context: ScenarioContext) -> InvariantBreach?
}

final class TraceInvariantChecker<State: Sendable>: InvariantChecker {
    var state: State
    let checkEvent: @Sendable (inout State, Trace.Event) -> String?

    init(state: State, check: @escaping @Sendable (inout State, Trace.Event) -> String?) {
        self.state = state
        self.checkEvent = check
    }

    func check(_ newEvents: ArraySlice<Trace.Event>, in context: ScenarioContext) -> InvariantBreach? {
        for index in newEvents.indices {
            if let broken = checkEvent(&state, newEvents[index]) { return InvariantBreach(broken, event: index) }
        }
        return nil
    }
}

/// The checkers of one run and how far into the trace they have read (the runner's, and the console's).
public final class InvariantWatch {
    private var checkers: [(name: String, checker: any InvariantChecker)]
    private var broken: Set<String> = []
    private var seen = 0

    public init(_ invariants: [Invariant]) {
        checkers = invariants.map { ($0.name, $0.makeChecker()) }
    }

    /// Runs every checker not yet broken over the new events; records each newly broken one (once per run) in
    /// `context.violations`, and returns those.
    @discardableResult
    public func check(_ context: ScenarioContext, line: Int) -> [ScenarioContext.Violation] {
        guard !checkers.isEmpty else { return [] }
        let known = context.violations.count
        let fresh = context.kernel.trace.events(from: seen)[...]
        let first = seen
        seen += fresh.count
        for (name, checker) in checkers where !broken.contains(name) {
            guard let breach = checker.check(fresh, in: context) else { continue }
            broken.insert(name)
            // The place is the event that broke it (1-based, as `expect` and the report count), else the check's.
            let position = breach.event.map { first + $0 + 1 } ?? seen
            let time = breach.event.map { fresh[$0].nanoseconds } ?? context.kernel.loop.nanoseconds
            context.violations.append(
                ScenarioContext.Violation(
                    invariant: name, message: breach.message, line: line, traceIndex: position, nanoseconds: time))
            context.kernel.trace.record(
                actor: "scenario", event: "invariant-broken",
                fields: [
                    ("invariant", name), ("message", breach.message), ("trace-event", String(position)),
                ])
        }
        return Array(context.violations[known...])
    }
}

extension ScenarioContext.Violation {
    /// `FILE:LINE: INVARIANT BROKEN name at trace event N (t=…): message`, the line a run prints.
    public func summary(file: String) -> String {
        "\(file):\(line == 0 ? "end" : String(line)): INVARIANT BROKEN \(invariant) at trace event \(traceIndex) "
            + "(t=\(Duration.nanoseconds(nanoseconds).workbenchText)): \(message)"
    }
}
