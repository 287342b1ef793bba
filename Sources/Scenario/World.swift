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
    /// Starts async work in the world now (a client's request, an actor starting): under simulation a kernel task on
    /// its loop, in virtual time; live, a task on the machine's threads. ``WorldTask/wait(_:)`` waits for its outcome.
    func begin<T: Sendable>(_ name: String, _ work: @escaping @Sendable () async throws -> T) -> WorldTask<T>
    /// The URL bus apps open URLs on (the Ivanti handshake's message path).
    var bus: URLBus { get }
    /// Ends every fault at once (`after heal`): paths healed, clocks on time, fault points off; says what it changed.
    func healAll() -> (links: Int, clocks: [String], points: Int)
    /// Lets the work that is due now run (under simulation the kernel's due steps; live, the machine runs it anyway).
    func settle()
    /// Lets the world run while `condition` holds, at most `limit`: under simulation the kernel's loop runs (virtual
    /// time); live, the caller waits on the wall clock and looks again now and then.
    func run(for limit: Duration, while condition: () -> Bool)
}

extension World {
    /// The events recorded after the first `count` (live: those of them the journal still keeps).
    public func events(since count: Int) -> ArraySlice<Trace.Event> {
        let all = events
        return all.suffix(max(0, min(all.count, traceCount - count)))
    }

    /// Runs async work in the world (an actor starting or stopping) and waits for its outcome, at most `timeout`.
    public func perform<T: Sendable>(_ name: String, timeout: Duration, _ work: @escaping @Sendable () async throws -> T) throws -> T {
        try begin(name, work).wait(timeout)
    }
}

/// Work started in a ``World``.
public struct WorldTask<T: Sendable>: Sendable {
    public let name: String
    private let waiting: @Sendable (Duration) throws -> T

    public init(name: String, wait: @escaping @Sendable (Duration) throws -> T) {
        (self.name, self.waiting) = (name, wait)
    }

    /// Lets the world run until the work ends, at most `timeout`, and returns what it returned or throws what it threw
    /// (or that it did not end in time).
    public func wait(_ timeout: Duration) throws -> T { try waiting(timeout) }
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

    public func begin<T: Sendable>(_ name: String, _ work: @escaping @Sendable () async throws -> T) -> WorldTask<T> {
        let task = spawn(name, work)
        return WorldTask(name: name) { timeout in try self.wait(for: task, timeout: timeout) }
    }

    public func settle() { loop.runDue() }
}
