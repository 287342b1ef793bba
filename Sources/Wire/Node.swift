import NIOCore

/// One participant of the ecosystem — an actor (MiG, Sunfire, …) or a client app — as seen by its own code.
///
/// Actors and clients are written once against `Node` and run unchanged on either wiring: on the simulated
/// wire every service here is backed by the deterministic kernel; on the live wire by real sockets, the wall
/// clock and system randomness. A node's channels, timers and callbacks all run on `eventLoop`, so state
/// confined to that loop needs no locks in either wiring.
public struct Node: Sendable {
    /// The node's name; on the simulated wire it is also its host name.
    public let name: String
    /// The loop every channel, timer and bus delivery of this node runs on.
    public let eventLoop: any EventLoop
    /// Connect and listen as this node.
    public let network: any Network
    /// Monotonic and calendar time as this node sees it (a node's clock may be skewed).
    public let clock: NodeClock
    /// This node's own random stream (seeded from the run seed under simulation): for behaviour — jitter,
    /// retries, chance. Never for secrets: see ``secrets``.
    public let random: RandomStream
    /// Where this node's keys, nonces and tokens come from: the seed under simulation, the system's
    /// cryptographic generator live.
    public let secrets: SecretRandom
    /// Named fault points, switched by scenarios or a seeded schedule.
    public let faults: FaultPoints
    /// The URL-scheme message bus (iOS `open(url)` semantics).
    public let bus: URLBus
    /// Where this node's blocking work runs (see ``blocking(_:)``).
    public let blockingWork: BlockingWork
    /// The bugs planted in this run (see ``planted(_:)``): none unless the kernel was made with some.
    public let plantedBugs: PlantedBugs
    /// The node's simulated disk, which its durable stores keep their files on under simulation (a crash of the node
    /// loses what they did not sync); nil on the live wire, where they use the machine's file system.
    public let disk: (any Disk)?
    let tracer: any TraceSink

    /// Assembles a node from one wiring's services: the simulation kernel and ``LiveWire/node(_:)`` call it, and code
    /// under test gets its nodes from them.
    public init(
        name: String, eventLoop: any EventLoop, network: any Network, clock: NodeClock,
        random: RandomStream, secrets: SecretRandom, faults: FaultPoints, bus: URLBus, tracer: any TraceSink,
        blockingWork: BlockingWork = .inline, plantedBugs: PlantedBugs = .none, disk: (any Disk)? = nil
    ) {
        self.name = name
        self.eventLoop = eventLoop
        self.network = network
        self.clock = clock
        self.random = random
        self.secrets = secrets
        self.faults = faults
        self.bus = bus
        self.tracer = tracer
        self.blockingWork = blockingWork
        self.plantedBugs = plantedBugs
        self.disk = disk
    }

    /// Records a meaningful event of this node in the run's trace.
    ///
    /// - parameters:
    ///   - event: a short kebab-case name, e.g. `job-completed`.
    ///   - fields: details; keep them deterministic (no key material, no wall-clock values).
    public func trace(_ event: String, _ fields: [(String, String)] = []) {
        tracer.record(actor: name, event: event, fields: fields)
    }

    /// The events every node may record, whatever it runs: a fault point that fired.
    public static let traceEvents: [TraceEventDeclaration] = [
        .event("fault-fired", fields: "point")
    ]

    /// Whether the named fault point fires now. Declares the point on first use so scenarios can list it.
    public func fault(_ point: String) -> Bool {
        let fired = faults.fires(point)
        if fired { trace("fault-fired", [("point", point)]) }
        return fired
    }

    /// Connects to `host:port` as this node, running `initializer` on the new channel before it becomes active.
    ///
    /// - parameters:
    ///   - host: the node name or address to connect to.
    ///   - port: the port to connect to.
    ///   - timeout: how long the connection attempt may take before the future fails.
    ///   - loop: the loop the connection runs on: by default the node's; a proxy relaying a connection
    ///     accepted on another loop (``ConnectionLoops/every``) passes that one, so both ends share a loop.
    ///   - initializer: sets up the new channel's pipeline before it becomes active; by default nothing.
    public func connect(
        host: String, port: Int, timeout: TimeAmount = .seconds(10), on loop: (any EventLoop)? = nil,
        initializer: @escaping @Sendable (any Channel) -> EventLoopFuture<Void> = { $0.eventLoop.makeSucceededVoidFuture() }
    ) -> EventLoopFuture<any Channel> {
        network.connect(from: name, host: host, port: port, timeout: timeout, on: loop ?? eventLoop, initializer: initializer)
    }

    /// Listens on `port` of this node (on the live wire: on loopback; port 0 picks a free one).
    ///
    /// - parameters:
    ///   - port: the port to listen on; 0 picks a free one.
    ///   - connections: the loops accepted connections run on; `.every` only for handlers that reach the
    ///     actor's state through its loop (see ``ConnectionLoops``).
    ///   - childInitializer: sets up each accepted connection's pipeline before it becomes active.
    public func listen(
        port: Int, connections: ConnectionLoops = .home, childInitializer: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
    ) -> EventLoopFuture<any Listener> {
        network.listen(as: name, port: port, on: eventLoop, connections: connections, childInitializer: childInitializer)
    }

    /// Runs blocking work (files, SQLite, password hashing) off the event loops live, inline under simulation;
    /// the result arrives on the node's loop either way.
    public func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) -> EventLoopFuture<T> {
        blockingWork.run(on: eventLoop, body)
    }
}

/// Records trace events. The kernel's trace stamps them with virtual time; the live wire may log or drop them.
public protocol TraceSink: Sendable {
    /// Records `event` of the node or actor called `actor`, with its `fields` in the order given.
    func record(actor: String, event: String, fields: [(String, String)])
}

/// A trace sink that drops everything (live wire default).
public struct DiscardingTraceSink: TraceSink {
    /// A sink that keeps nothing.
    public init() {}
    /// Drops the event.
    public func record(actor: String, event: String, fields: [(String, String)]) {}
}

extension Node {
    /// Runs async work for this node, on the node's loop (or `loop`), and reports its outcome there.
    ///
    /// Under simulation the loop is itself the task executor, so the work runs in the kernel's order. Live, a
    /// thin executor puts the work on the NIO loop too: on the shared cooperative pool it would wait
    /// behind whatever blocks that pool (a test waiting for a process, say) and answers would stall. Actors
    /// use this to answer with async code (a database, a client call). Keep such work free of Swift `actor`s:
    /// hopping to an actor's own executor would leave the loop (and, simulated, the kernel's schedule).
    ///
    /// - parameters:
    ///   - loop: where the work runs: the node's loop by default; a connection's loop for work that
    ///     touches no loop-confined state (a request handler over a database and locks).
    ///   - body: the work; its result or error completes the returned future on `loop`.
    public func task<T: Sendable>(on loop: (any EventLoop)? = nil, _ body: @escaping @Sendable () async throws -> T) -> EventLoopFuture<T> {
        let loop = loop ?? eventLoop
        let promise = loop.makePromise(of: T.self)
        let executor = loop as? any TaskExecutor ?? EventLoopTaskExecutor(loop)
        Task(executorPreference: executor) { promise.completeWith(await Result(catching: body)) }
        return promise.futureResult
    }
}

/// Runs tasks' jobs on a NIO event loop (the live wire's loops are not task executors themselves).
final class EventLoopTaskExecutor: TaskExecutor, Sendable {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

extension Result where Failure == any Error {
    fileprivate init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
