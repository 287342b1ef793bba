import Scenario

extension Simulation {
    /// Starts an actor, as the line `start KIND [as NAME] [on HOST] [OPTION=VALUE]…` does.
    ///
    /// - parameters:
    ///   - kind: one of ``actorKinds`` (`mig`, `scpms`, `sunfire`, …).
    ///   - name: what later calls and lines call it (default: the kind).
    ///   - host: the node it runs on (default: the kind's own, e.g. `mig`).
    ///   - options: the kind's options (`workbench`'s `help start KIND` lists them), checked before it starts.
    /// - returns: the running actor: its name, node and URLs.
    /// - throws: ``SimulationError`` for an unknown kind or option, a value the option refuses, a name already
    ///   started, or an actor that does not start.
    @discardableResult
    public func start(
        _ kind: String, as name: String? = nil, on host: String? = nil, options: [String: String] = [:]
    ) throws(SimulationError)
        -> StartedActor
    {
        var words = ["start", ScenarioText.word(kind)]
        if let name { words += ["as", ScenarioText.word(name)] }
        if let host { words += ["on", ScenarioText.word(host)] }
        words += options.sorted { $0.key < $1.key }.map { ScenarioText.word("\($0.key)=\($0.value)") }
        try run(line: words.joined(separator: " "))
        let started = name ?? kind
        guard let actor = context.actor(named: started), let placement = context.placement(ofActor: started) else {
            throw SimulationError("\(started) did not start")
        }
        return StartedActor(
            name: started, host: placement.host, urls: Dictionary(actor.endpoints.map { ($0.label, $0.url) }) { first, _ in first })
    }

    /// Stops the actor started as `name`, as the line `stop NAME` does.
    ///
    /// - throws: ``SimulationError`` when no actor runs under that name, or it does not stop.
    public func stop(_ name: String) throws(SimulationError) {
        try run(line: "stop \(ScenarioText.word(name))")
    }

    /// Changes the world now: a link's conditions, a partition, a fault point, a clock's skew (see ``WorldChange``).
    ///
    /// - throws: ``SimulationError`` for a node or fault point the world does not have.
    public func apply(_ change: WorldChange) throws(SimulationError) {
        try run(line: change.line)
    }

    /// Changes the world `delay` from now, in the middle of whatever runs then (the line `later DELAY …`).
    ///
    /// - throws: ``SimulationError`` for a node or fault point the world does not have.
    public func apply(_ change: WorldChange, after delay: Duration) throws(SimulationError) {
        try run(line: "later \(ScenarioText.duration(delay)) \(change.line)")
    }

    /// Applies a seed's drawn plan (``SwarmFaults/draw(seed:)``): each change its `delay` from now, as
    /// ``apply(_:after:)`` does.
    ///
    /// The nodes the changes act on need not be in the world yet — a swarm applies the plan before its body starts the
    /// actors — but the world must have them by ``finish()``, which records a failure for each it never had: a misspelt
    /// node would otherwise be a fault that changes nothing.
    /// - throws: ``SimulationError`` for a fault point no actor kind has, or a change the language refuses.
    public func apply(_ plan: [DrawnChange]) throws(SimulationError) {
        for drawn in plan {
            try run(line: "later \(ScenarioText.duration(drawn.delay)) \(drawn.change.line)", nodesMayComeLater: true)
        }
    }

    /// Runs the test's own async code in the world — a client written against a `Node` — and lets virtual time
    /// pass until it returns, at most `timeout`; the world's checks (invariants, undeclared trace events, work the
    /// kernel did not drive) run after it as after a line.
    ///
    /// Non-isolated async code runs on the world's loop. Keep Swift `actor`s and unstructured `Task {}`s out of it:
    /// their work would leave the world's order (the run reports it among ``failures``).
    /// - parameters:
    ///   - name: names the work in messages (and a timeout's error).
    ///   - timeout: virtual time it may take (default 10 minutes).
    ///   - work: the test's own async code, e.g. a client call on a node of this world.
    /// - returns: what `work` returned.
    /// - throws: what `work` threw, or ``SimulationError`` when it did not end within `timeout` or nothing was left
    ///   to wake it.
    public func perform<T: Sendable>(
        _ name: String, timeout: Duration = .seconds(600), _ work: @escaping @Sendable () async throws -> T
    ) throws -> T {
        let step = PerformStep(name: name, timeout: timeout, work: work)
        try execute(Statement(file: "simulation", line: statements.count + 1, source: "perform \(name)", directive: "perform", step: step))
        guard let result = step.outcome.result else { throw SimulationError("'\(name)' did not run") }
        switch result {
        case .success(let value): return value
        case .failure(let error as WorldTaskTimeout): throw SimulationError(error.message)
        case .failure(let error): throw error
        }
    }
}

/// An actor ``Simulation/start(_:as:on:options:)`` started.
public struct StartedActor: Sendable {
    /// The name lines and calls use for it.
    public let name: String
    /// The node it runs on.
    public let host: String
    /// Its URLs by label (`ipp`, `ipps`, `https`, …): what `${NAME.LABEL}` gives a scenario line.
    public let urls: [String: String]
}

/// Runs a test's async work as a statement: the work starts on the world and the world runs until it ends. Its
/// outcome is kept apart from the step's own (a thrown error of the work is the test's to handle, not a line that
/// could not run).
private final class PerformStep<T: Sendable>: Step, @unchecked Sendable {
    // @unchecked Sendable: made, run and read on the simulation's one thread (``Simulation`` is confined to it).
    let name: String
    let timeout: Duration
    let work: @Sendable () async throws -> T
    let outcome = Outcome()

    final class Outcome: @unchecked Sendable {
        // @unchecked Sendable: as the step.
        var result: Result<T, any Error>?
    }

    init(name: String, timeout: Duration, work: @escaping @Sendable () async throws -> T) {
        (self.name, self.timeout, self.work) = (name, timeout, work)
    }

    func run(_ context: ScenarioContext) throws -> Pending? {
        let task = context.world.begin(name) { () -> Result<T, any Error> in
            do { return .success(try await self.work()) } catch { return .failure(error) }
        }
        do {
            outcome.result = try task.wait(timeout)
        } catch {
            outcome.result = .failure(WorldTaskTimeout(message: "\(error)"))
        }
        return nil
    }
}

/// The world gave up waiting for a test's work (its time ran out, or nothing was left to wake it).
private struct WorldTaskTimeout: Error {
    let message: String
}
