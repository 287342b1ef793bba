import Kernel
import Scenario
import Wire
import Workbench

/// A simulated world for a test: the whole ecosystem the `workbench` command simulates — its actors, the simulated
/// network, virtual time and seeded randomness — under one seed, driven from the test's own code.
///
/// A test makes one, starts actors, gets a `Node` for its own code (the seam the workbench's own clients use),
/// runs that code in the world with ``perform(_:timeout:_:)``, changes the world with ``apply(_:)-(WorldChange)`` or scenario
/// lines (``run(_:fileID:line:)``), and reads what happened: ``failures``, ``events``, ``digest``. The same seed
/// and the same build give the same trace, event for event.
///
/// Every line and every ``perform(_:timeout:_:)`` runs through the scenario language's statement executor, with the
/// checks a `workbench run` line gets: the systems' invariants after each, the reach points, and work the kernel did
/// not drive. What fails is kept in ``failures``, with its virtual time; nothing is thrown for it.
///
/// Confined to the thread that made it: drive it from one thread (a swift-testing test body, or one seed of
/// `swarm(seeds:jobs:sourceLocation:_:)` from WorkbenchTesting). Keep it as long as any node, actor or client of
/// its world is used: the world is torn down when it is freed.
public final class Simulation: @unchecked Sendable {
    // @unchecked Sendable: confined to the thread that drives it (see type comment), as its kernel and context are.

    /// The seed every random stream of the world is derived from.
    public let seed: UInt64
    let kernel: Kernel
    let executor: StatementExecutor
    let language = Catalog.language
    var context: ScenarioContext { executor.context }
    /// The nodes lines named before the world made them (a client's `from`, an actor's `on`), as the console keeps them.
    var declaredNodes: Set<String> = []
    /// Every statement run so far, for the checks of a later `by NODE` line (as a file is checked whole).
    var statements: [Statement] = []
    /// What went wrong so far, in order (see ``failures``).
    private(set) var recorded: [Failure] = []
    /// The lines that changed the world (faults, links, clocks), in order: what a failing seed's report shows.
    public private(set) var changes: [String] = []
    /// The lines of a drawn plan and the nodes each acts on, which the world must have by ``finish()``.
    var awaitedNodes: [(line: String, nodes: [String])] = []
    private var finished = false

    /// A fresh world under `seed`: no actor, no fault, virtual time zero.
    public init(seed: UInt64) {
        self.seed = seed
        kernel = Kernel(seed: seed)
        let context = ScenarioContext(kernel: kernel, catalog: Catalog.actorKinds, file: "simulation", output: { _ in })
        executor = StatementExecutor(context: context, language: language, invariants: Catalog.invariants, reach: ReachWatch(Catalog.reachPoints))
    }

    /// The kinds of actor ``start(_:as:on:options:)`` can start (`mig`, `scpms`, `sunfire`, …), in the order
    /// `workbench`'s `help start` lists them.
    public static var actorKinds: [String] { Catalog.actorKinds.map(\.name) }

    /// The fault points the actors of `kind` check (``WorldChange/fault(_:_:)`` switches them).
    public static func faultPoints(of kind: String) -> [String] {
        Catalog.actorKinds.first { $0.name == kind }?.faultPoints ?? []
    }

    /// The node called `name`, as the test's own code sees itself in this world: its network, clock, random
    /// streams, fault points, URL bus and trace. The same name gives the same node (and a node is a host of the
    /// network from its first use).
    public func node(_ name: String) -> Node {
        declaredNodes.insert(name)
        return kernel.node(name)
    }

    /// Virtual time since the world began.
    public var now: Duration { kernel.now }

    /// The SHA-256 of the trace so far (its canonical lines): the same for the same seed and the same build.
    public var digest: String { kernel.trace.digest }

    /// Every event recorded so far, in order.
    public var events: [TraceEvent] { kernel.trace.all.map(TraceEvent.init) }

    /// The reach points reached so far (declared ones and `sometimes` labels of the lines run), sorted.
    public var reached: [String] { context.reached.sorted() }

    /// Everything that failed so far, in order: expectations of the lines run, invariants broken, problems of the
    /// world (work the kernel did not drive, trace events no system declares) and failed ``check(_:_:fileID:line:)``s.
    public var failures: [Failure] { recorded }

    /// The value of `${name}` for the lines run so far: a variable, or a field a line gave (`p.job` after
    /// `mig print … as p`).
    ///
    /// - throws: ``SimulationError`` naming the line that bound the name and the fields it gave, or the names defined.
    public func value(of name: String) throws(SimulationError) -> String {
        do { return try context.value(of: name) } catch { throw SimulationError("\(error)") }
    }

    /// Lets virtual time pass, running everything due on the way.
    ///
    /// - throws: ``SimulationError`` when time would pass the simulation's horizon (100 years).
    public func advance(by duration: Duration) throws(SimulationError) {
        try run(line: "advance \(ScenarioText.duration(duration))")
    }

    /// Records a failure of the test's own check, stamped with the virtual time, unless `condition` holds.
    ///
    /// Use it inside a swarm's body rather than `#expect`: ``failures`` carries it, so the swarm reports it with its
    /// seed.
    /// - returns: `condition`.
    @discardableResult
    public func check(_ condition: Bool, _ message: @autoclosure () -> String, fileID: String = #fileID, line: Int = #line) -> Bool {
        if !condition { record(Failure(time: now, origin: "\(ScenarioText.fileName(fileID)):\(line)", message: message())) }
        return condition
    }

    /// Runs the end-of-run checks once: the invariants over the last events, the reach points, background work never
    /// joined, the nodes a drawn plan acts on. The swarm helpers call it after the body; call it before reading
    /// ``failures`` at the end of a test that makes its world by hand. Later calls do nothing.
    public func finish() {
        guard !finished else { return }
        finished = true
        let nodes = declaredNodes.union(kernel.network.hostNames)
        for (line, named) in awaitedNodes {
            for node in named where !nodes.contains(node) {
                record(
                    Failure(
                        time: now, origin: "world",
                        message: "'\(line)' acts on the node '\(node)', which the world never had\(didYouMean(node, among: nodes)); "
                            + "its nodes: \(nodes.sorted().joined(separator: ", "))"))
            }
        }
        for violation in executor.finish() { record(Failure(violation)) }
    }

    func record(_ failure: Failure) { recorded.append(failure) }

    /// Records what a statement's outcome says went wrong (its expectations by the statement's own file: the context's
    /// is the world's).
    func record(_ outcome: StatementExecutor.Outcome, of statement: Statement) {
        for expectation in outcome.expectations where expectation.failure != nil { record(Failure(expectation, file: statement.file)) }
        for violation in outcome.violations { record(Failure(violation)) }
        if let problem = outcome.worldProblem { record(Failure(time: now, origin: "world", message: problem)) }
    }

    func noteChange(_ statement: Statement) {
        if ScenarioText.changesTheWorld.contains(statement.directive) { changes.append(statement.source) }
    }
}
