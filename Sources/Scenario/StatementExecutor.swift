import Kernel
import Wire

/// Runs statements one at a time on one world, each with every check a statement gets: its step and the work it
/// started, the recovery deadline of `after heal`, the systems' invariants, the reach points, the kernel's
/// determinism violations and trace events no system declares. `run`, the console and a live session all run their
/// lines through one, so a line means the same wherever it is typed.
public final class StatementExecutor {
    public let context: ScenarioContext
    let language: ScenarioLanguage
    private let watch: InvariantWatch
    /// The trace events already held to the systems' declarations, and the determinism violations already reported.
    private var declaredUpTo = 0
    private var violationsReported = 0

    /// What one statement did: the expectations it checked, the invariants it broke, the reach points it reached,
    /// and, when it could not run, why (the run stops there), or what went wrong in the world meanwhile.
    public struct Outcome {
        public let expectations: [ScenarioContext.Expectation]
        public let violations: [ScenarioContext.Violation]
        public let reached: [String]
        /// `FILE:LINE: DIRECTIVE: why`, or for the world's own problems `FILE: why`.
        public let error: String?
        /// Why the step could not run, without its place (what the console shows under the line typed).
        public let stepError: String?
        /// What went wrong in the world rather than in the step (``StatementExecutor/worldProblem()``): a run reports
        /// it at its end and goes on, so the trace is the same as without it; the console says so at once.
        public let worldProblem: String?
    }

    /// - parameters:
    ///   - invariants: the promises checked after every statement (none live: a served world's trace is the journal's
    ///     window onto it, not the whole of it).
    ///   - reach: the reach points watched.
    public init(context: ScenarioContext, language: ScenarioLanguage, invariants: [Invariant], reach: ReachWatch?) {
        self.context = context
        self.language = language
        self.watch = InvariantWatch(invariants)
        context.reach = reach
    }

    /// Runs `statement`, then checks what it did. `before` runs first, as part of it (a swarm's faults scheduled
    /// before the statement); what it throws is the statement's error.
    public func execute(_ statement: Statement, before: (() throws -> Void)? = nil) -> Outcome {
        let (expectationsBefore, reachedBefore) = (context.expectations.count, context.reached)
        var (error, stepError): (String?, String?) = (nil, nil)
        do {
            try before?()
            try run(statement)
            if let recovery = context.recovery, context.world.now > recovery.deadline {
                throw StepError(
                    "the world did not recover: this step ended more than \(recovery.within.workbenchText) after 'after heal' "
                        + "(line \(recovery.line)), the virtual time the rest of the run was given")
            }
        } catch let failure {
            stepError = "\(failure)"
            error = "\(statement.file):\(statement.line): \(statement.directive): \(failure)"
        }
        let violations = error == nil ? watch.check(context, line: statement.line) : []
        context.reach?.check(context)
        return Outcome(
            expectations: Array(context.expectations[expectationsBefore...]), violations: violations,
            reached: context.reached.subtracting(reachedBefore).sorted(), error: error, stepError: stepError,
            worldProblem: error == nil ? worldProblem() : nil)
    }

    /// Runs one statement: the step, then the work it started, driven to completion.
    func run(_ statement: Statement) throws {
        context.line = statement.line
        context.source = String(statement.source.drop { $0 == " " || $0 == "\t" })
        context.declared = statement.binding
        if let pending = try statement.step.run(context) {
            context.publish(pending.label, try pending.wait(context, pending.timeout))
        }
    }

    /// The checks at the end of a run: the invariants and reach points over the last events; work spawned and never
    /// joined recorded. Returns the invariants broken at the end (also in the context's violations, where a run reads them).
    @discardableResult
    public func finish() -> [ScenarioContext.Violation] {
        let violations = watch.check(context, line: 0)
        context.reach?.check(context)
        for (name, _) in context.background.sorted(by: { $0.key < $1.key }) {
            context.world.record(actor: "scenario", event: "unjoined", fields: [("name", name)])
        }
        return violations
    }

    /// What went wrong in the world rather than in a step, since the last look: work the kernel did not drive
    /// (determinism), or an event, key or value no system declares (checked in every run, release builds and swarms
    /// included: a swarm's faults reach events no scenario does). Nothing is recorded for it, so the trace and its
    /// digest are the same either way.
    public func worldProblem() -> String? {
        let file = context.file
        if let kernel = context.world as? Kernel {
            let unordered = kernel.loop.violations
            if unordered.count > violationsReported {
                defer { violationsReported = unordered.count }
                return "\(file): determinism violations: \(unordered[violationsReported...].joined(separator: "; "))"
            }
        }
        let count = context.world.traceCount
        guard count > declaredUpTo else { return nil }
        let fresh = Array(context.world.events.suffix(count - declaredUpTo))
        declaredUpTo = count
        switch language.undeclaredTrace(in: fresh) {
        case .event(let undeclared):
            return "\(file): \(undeclared.actor) recorded the trace event '\(undeclared.event)', which no system declares: "
                + "add it to the trace events of the system (or kernel library) that records it, so 'expect trace' may name it"
        case .field(let undeclared, let key):
            return "\(file): \(undeclared.actor) recorded the field '\(key)' of the trace event '\(undeclared.event)', which its "
                + "declaration lacks: add the key to the event's declaration in the system (or kernel library) that records it, so "
                + "'expect trace \(undeclared.event) \(key)=…' may match it"
        case .value(let undeclared, let key, let value):
            return "\(file): \(undeclared.actor) recorded \(key)=\(value) on the trace event '\(undeclared.event)', a value its "
                + "declaration does not give the field: add it to the field's values in the system (or kernel library) that records "
                + "it (or derive them from the enum it records), so 'expect trace \(undeclared.event) \(key)=\(value)' may be written"
        case nil:
            return nil
        }
    }
}
