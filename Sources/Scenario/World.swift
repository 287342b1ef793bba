import Kernel
import Wire

/// What a scenario's lines act on: the simulated kernel (``Kernel``), or the actors a running `workbench serve`
/// serves. The directives that change the world (`advance`, `link`, `partition`, `fault`, `clock`, …) and those that
/// read it (`expect trace`, `wait until trace`, `mark`) are written once against this, so a line means the same in
/// `run`, the console and a live session.
public protocol World: AnyObject, Sendable {
    /// The seed of its random streams (live: the serve's).
    var seed: UInt64 { get }
    /// Time since the world began: virtual, or the served nodes' uptime with what `advance` added.
    var now: Duration { get }
    /// The actors' fault points.
    var faults: FaultPoints { get }
    /// The paths between nodes.
    var links: any LinkControl { get }
    /// The calendar offset of a node.
    func skew(of node: String) -> ClockSkew
    /// Moves every node's clock forward by `duration`: under simulation, running everything due on the way; live,
    /// without waiting (the served nodes' time source takes the offset and wakes the sleepers that became due).
    func advance(by duration: Duration) throws
    /// Runs `body` `delay` from now, on the thread the world's lines run on.
    func schedule(in delay: Duration, _ body: @escaping @Sendable () -> Void)
    /// Records an event of the scenario itself in the trace.
    func record(actor: String, event: String, fields: [(String, String)])
    /// The events recorded so far (live: those the journal still keeps).
    var events: [Trace.Event] { get }
    /// How many events have been recorded (live: since the serve started, kept or not).
    var traceCount: Int { get }
    /// The node called `name`, as an actor or a client of this world sees itself.
    func node(_ name: String) -> Node
    /// Runs async work in the world (an actor starting or stopping) and waits for its outcome, at most `timeout`:
    /// under simulation the kernel runs it on its loop in virtual time; live, it runs on the machine's threads.
    func perform<T: Sendable>(_ name: String, timeout: Duration, _ work: @escaping @Sendable () async throws -> T) throws -> T
    /// Lets the world run while `condition` holds, at most `limit`: under simulation the kernel's loop runs (virtual
    /// time); live, the caller waits on the wall clock and looks again now and then.
    func run(for limit: Duration, while condition: () -> Bool)
}

extension Kernel: World {
    public var links: any LinkControl { network }
    public var events: [Trace.Event] { trace.all }
    public var traceCount: Int { trace.count }

    public func schedule(in delay: Duration, _ body: @escaping @Sendable () -> Void) {
        loop.scheduleTask(in: .nanoseconds(delay.nanosecondsValue), body)
    }

    public func record(actor: String, event: String, fields: [(String, String)]) {
        trace.record(actor: actor, event: event, fields: fields)
    }

    public func run(for limit: Duration, while condition: () -> Bool) {
        loop.run(until: deadline(after: limit), while: condition)
    }

    public func perform<T: Sendable>(_ name: String, timeout: Duration, _ work: @escaping @Sendable () async throws -> T) throws -> T {
        try wait(for: spawn(name, work), timeout: timeout)
    }
}
