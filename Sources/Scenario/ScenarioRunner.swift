import Dispatch
import Kernel
import Wire
import WireHTTP

/// Runs parsed scenarios on a fresh kernel and reports what happened.
public struct ScenarioRunner: Sendable {
    public let language: ScenarioLanguage
    public let catalog: [ActorKind]
    /// The promises checked after every statement and at the end of every run.
    public let invariants: [Invariant]
    /// Bugs the actors and clients of every run have: none, but for `workbench swarm --planted` and tests.
    public let plantedBugs: PlantedBugs

    public init(language: ScenarioLanguage, catalog: [ActorKind], invariants: [Invariant] = [], plantedBugs: PlantedBugs = .none) {
        self.language = language
        self.catalog = catalog
        self.invariants = invariants
        self.plantedBugs = plantedBugs
    }

    /// The outcome of one scenario run.
    public struct Result: Sendable {
        public let file: String
        public let title: String
        public let seed: UInt64
        public let expectations: [ScenarioContext.Expectation]
        /// The invariants found broken, in the order they broke.
        public let violations: [ScenarioContext.Violation]
        /// The faults a swarm's schedule ran, in order (empty for a plain run).
        public let faults: [ScheduledFault]
        /// Results that failed without an `error` (see ``ScenarioContext/unexplainedFailures``).
        public let unexplainedFailures: [String]
        /// Fields a result gave that its directive did not declare (see ``ScenarioContext/undeclaredFields``).
        public let undeclaredFields: [String]
        /// A step that could not run (the scenario stopped there), with its place.
        public let error: String?
        public let digest: String
        public let trace: String
        public let virtualTime: Duration
        public let traceEvents: Int
        /// The reach points the run reached (declared ones and its own `sometimes` lines), sorted: kept apart from the
        /// trace, so no digest depends on them.
        public let reached: [String]
        /// Every result its lines published, in order (kept only when asked: ``ScenarioRunner/runLive(_:seed:targets:keepPublished:output:)``).
        public let published: [(line: Int, label: String, values: [String: String])]
        /// The trace's events, and how many there were when each statement ended (for ``behaviours``).
        let events: [Trace.Event]
        let statementEnds: [Int]

        /// What the run did, as coverage for guided exploration: each distinct ``Behaviour`` of its trace, with the
        /// statement (0-based) it first appeared in (faults scheduled before a statement count as that statement's).
        /// Worked out when asked: only an exploration asks.
        public var behaviours: [String: Int] { firstSeen(by: Behaviour.of) }

        /// Each distinct name `name` gives an event of the trace (nil: the event counts for nothing), with the statement
        /// (0-based) it first appeared in, as ``behaviours`` counts them.
        public func firstSeen(by name: (Trace.Event) -> String?) -> [String: Int] {
            Behaviour.firstSeen(in: events, statementEnds: statementEnds, by: name)
        }

        /// The statement (0-based) each of `positions` (lengths of the trace, ascending) fell in, placed as
        /// ``firstSeen(by:)`` places an event: for what is recorded beside the trace, such as the bytes links carried.
        public func statements(at positions: [Int]) -> [Int] {
            var cursor = StatementCursor(statementEnds: statementEnds)
            return positions.map { cursor.statement(at: $0) }
        }

        public var failures: [ScenarioContext.Expectation] { expectations.filter { $0.failure != nil } }
        public var passed: Bool { error == nil && failures.isEmpty && violations.isEmpty }
    }

    /// Runs every statement of `script` in order on a new kernel seeded with `seed`, with the faults of `faults`
    /// run just before the statements they name.
    ///
    /// - parameter keepPublished: keep every result the lines publish in ``Result/published`` (for `workbench diff`,
    ///   which holds a recording's answers against them); what is kept changes nothing in the trace.
    public func run(
        _ script: Script, seed: UInt64, faults: FaultSource? = nil, keepPublished: Bool = false, output: @escaping @Sendable (String) -> Void
    ) -> Result {
        let kernel = Kernel(seed: seed, plantedBugs: plantedBugs)
        return run(
            script, on: kernel, seed: seed, faults: faults, invariants: invariants, reach: ReachWatch(language.declaredReachPoints(in: script)),
            output: output
        ) { $0.keepsPublished = keepPublished }
    }

    /// Runs `script` on the live wire (`workbench run --live`): the actors it starts listen on loopback (ports the
    /// system picks, reached by the ports they ask for), its clients connect to them over real sockets, each from its
    /// own loopback address so links act per node, and time is the machine's (`advance` jumps every node's clock; the
    /// calendar starts where a simulated run's does, so dates are the same).
    /// Its lines must all run live (``ScenarioLanguage/liveProblem(_:in:)``). No invariants: they hold a simulated run's
    /// whole trace to a system's promises, where a live run's order of events is the machine's. The result has no digest.
    ///
    /// - parameters:
    ///   - targets: outside servers standing in for actor kinds (their lines must not need the actor's inside:
    ///     ``Target/problem(_:targets:)``).
    ///   - keepPublished: keep every result the lines publish in ``Result/published`` (for `workbench compare`).
    ///   - httpStack: what the clients that offer a choice send their HTTP through (``ScenarioContext/httpStack``).
    ///   - machineCalendar: the nodes' clocks read the machine's calendar, not the simulation's epoch. Always so with a
    ///     target: a real server keeps the real date, and a token or a date the clients make must agree with it.
    public func runLive(
        _ script: Script, seed: UInt64, targets: [Target] = [], httpStack: HTTPStack = .nio, keepPublished: Bool = false,
        machineCalendar: Bool = false, output: @escaping @Sendable (String) -> Void
    ) -> Result {
        let journal = LiveJournal(capacity: Self.liveTraceCapacity, next: DiscardingTraceSink(), fromNow: true)
        let epoch = machineCalendar || !targets.isEmpty ? nil : Kernel.defaultEpoch
        let wire = LiveWire(seed: seed, tracer: journal, ephemeralPorts: true, namedClients: true, epoch: epoch)
        for target in targets { wire.redirect(node: target.node, toHost: target.host, port: target.port) }
        let world = LiveWorld(wire: wire, journal: journal)
        var context: ScenarioContext?
        let result = run(script, on: world, seed: seed, faults: nil, invariants: [], reach: nil, output: output) { made in
            context = made
            made.keepsPublished = keepPublished
            made.httpStack = httpStack
            for target in targets { made.targets[target.kind] = target }
        }
        // What the run left running stops, and the wire with it, so the next file starts on a clean machine.
        for (name, actor) in (context?.startedActors ?? []).reversed() {
            _ = try? world.perform("stop \(name)", timeout: .seconds(30)) { try await actor.stop() }
        }
        // Not through the world: its waits let the event loops run, and these are ending.
        let ended = DispatchSemaphore(value: 0)
        Task {
            try? await wire.shutdown()
            ended.signal()
        }
        _ = ended.wait(timeout: .now() + .seconds(30))
        return result
    }

    /// The events a live run keeps (a live run's trace is its journal's).
    static let liveTraceCapacity = 1 << 20

    private func run(
        _ script: Script, on world: any World, seed: UInt64, faults: FaultSource?, invariants: [Invariant], reach: ReachWatch?,
        output: @escaping @Sendable (String) -> Void, made: (ScenarioContext) -> Void = { _ in }
    ) -> Result {
        let context = ScenarioContext(world: world, catalog: catalog, file: script.file, output: output)
        made(context)
        // Only the file's name: the trace depends on seed and build, not on how the path was typed.
        let name = script.file.split(separator: "/").last.map(String.init) ?? script.file
        world.record(actor: "scenario", event: "begin", fields: [("file", name), ("seed", String(seed))])
        let executor = StatementExecutor(context: context, language: language, invariants: invariants, reach: reach)
        // From `after heal` on, a swarm's schedule draws nothing: that part shows whether the world recovers.
        let healed = script.statements.firstIndex { $0.directive == "after" } ?? script.statements.count
        var error: String?
        // The first problem of the world (an undeclared event, work the kernel did not drive): reported at the end, the
        // run going on, so the trace is the same with it as without.
        var worldProblem: String?
        var scheduler: (any FaultScheduler)?
        var planned: [ScheduledFault] = []
        switch faults {
        case .drawn(let drawn)?: scheduler = drawn
        case .explicit(let list)?: planned = list
        case nil: break
        }
        var ran: [ScheduledFault] = []
        // The trace's length when each statement ended: where its events stop.
        var statementEnds: [Int] = []
        for (index, statement) in script.statements.enumerated() {
            let outcome = executor.execute(statement) {
                let drawn = index < healed ? scheduler : nil
                let faults = drawn?.faults(before: index, in: context) ?? planned.filter { $0.before == index }
                for fault in faults {
                    let line = fault.line
                    ran.append(ScheduledFault(before: index, line: line, site: fault.site))
                    world.record(
                        actor: "scenario", event: "scheduled-fault", fields: [("before-line", String(statement.line)), ("line", line)])
                    do {
                        guard let fault = try language.parse(line: line, file: "fault schedule", lineNumber: statement.line) else { continue }
                        try executor.run(fault)
                    } catch let failure {
                        throw StepError("the fault '\(line)' scheduled before line \(statement.line) could not run: \(failure)")
                    }
                }
            }
            worldProblem = worldProblem ?? outcome.worldProblem
            if let problem = outcome.error {
                error = problem
                break
            }
            statementEnds.append(world.traceCount)
        }
        executor.finish()
        world.record(
            actor: "scenario", event: "end",
            fields: [
                ("expectations", String(context.expectations.count)), ("failed", String(context.failures.count)),
            ] + (context.violations.isEmpty ? [] : [("invariants-broken", String(context.violations.count))]))
        if error == nil { error = worldProblem ?? executor.worldProblem() }
        let events = world.events
        let canonical = events.map { $0.canonicalLine + "\n" }.joined()
        return Result(
            file: script.file, title: context.title ?? script.file, seed: seed, expectations: context.expectations,
            violations: context.violations, faults: ran, unexplainedFailures: context.unexplainedFailures,
            undeclaredFields: context.undeclaredFields,
            // A live run's order of events is the machine's: it has no digest.
            error: error, digest: world is Kernel ? Trace.digest(of: canonical) : "", trace: canonical,
            virtualTime: world.now, traceEvents: world.traceCount, reached: context.reached.sorted(), published: context.published,
            events: events, statementEnds: statementEnds)
    }

    /// The events the scenario runner itself records (as `scenario`), with those of its directives and invariant checks.
    public static let traceEvents: [TraceEventDeclaration] = [
        .event("begin", fields: "file", "seed"),
        .event("end", fields: "expectations", "failed", "invariants-broken"),
        .event("section", fields: "title"),
        .event("fault", fields: "mode", "point"),
        .event("clock-skew", fields: "node", "skew"),
        .event("after-heal", fields: "clocks", "links", "points", "within"),
        .event("scheduled-fault", fields: "before-line", "line"),
        .event("later-dropped", fields: "directive", values: ["why": ["after heal"]]),
        .event("later-failed", fields: "directive", "error"),
        .event("unjoined", fields: "name"),
        .event("restarted", fields: "actor"),
        .event("crashed", fields: "actor", "connections-reset", "files-lost", "files-torn", "node"),
        .event("power-cut", fields: "actor", "file", "node", "write"),
        .event("targeted", fields: "actor", "url"),
        .event("invariant-broken", fields: "invariant", "message", "trace-event"),
    ]
}
