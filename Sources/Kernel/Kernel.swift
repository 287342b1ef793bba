import NIOCore
import SimulatedDisk
import Wire

/// A whole simulated world: one seed, one virtual clock, one network, one bus, one trace.
///
/// Everything that happens in it is a job on ``loop``; ``advance(by:)`` and ``wait(for:timeout:)`` drive
/// the loop from the calling thread. Same seed and same build ⇒ same trace digest.
///
/// The world lives as long as its kernel: when the kernel is freed, the world is torn down (see `deinit`), so keep
/// the kernel while any of its nodes, actors or clients is still used.
public final class Kernel: @unchecked Sendable {
    // @unchecked Sendable: `nodes`, `disks` and `skews` are touched only from the driving thread (see type comment).

    /// The run seed every random stream is derived from.
    public let seed: UInt64
    /// The loop, executor and clock of the simulation.
    public let loop: SimulationLoop
    /// Every meaningful event, stamped with virtual time.
    public let trace: Trace
    /// The simulated byte-stream network.
    public let network: SimulatedNetwork
    /// Named fault points (seeded `chance` draws).
    public let faults: FaultPoints
    /// The URL-scheme message bus.
    public let bus: URLBus
    /// Calendar time at virtual time zero.
    public let epoch: Duration
    /// The bugs every node of this world has (none, but for `workbench swarm --planted` and tests).
    public let plantedBugs: PlantedBugs

    private let time: SimulatedTime
    private var nodes: [String: Node] = [:]
    private var disks: [String: SimulatedDisk] = [:]
    private var skews: [String: ClockSkew] = [:]

    /// The default epoch: 2026-01-01T00:00:00Z, so calendar times in traces never depend on today's date.
    public static let defaultEpoch = Duration.seconds(1_767_225_600)

    /// Nothing can drive the world once its kernel is gone: its connections are aborted, its loop's jobs are
    /// cancelled or dropped (see ``SimulationLoop/tearDown()``) and the bus forgets its handlers, so that the world,
    /// held in cycles by them, can be freed.
    deinit {
        network.tearDown()
        loop.tearDown()
        bus.tearDown()
    }

    /// Creates a world whose every random stream is derived from `seed`, whose virtual time zero is the calendar time
    /// `epoch`, and whose nodes all have `plantedBugs`.
    public init(seed: UInt64, epoch: Duration = Kernel.defaultEpoch, plantedBugs: PlantedBugs = .none) {
        self.seed = seed
        self.epoch = epoch
        self.plantedBugs = plantedBugs
        let loop = SimulationLoop()
        self.loop = loop
        let trace = Trace(clock: { loop.nanoseconds })
        self.trace = trace
        self.network = SimulatedNetwork(loop: loop, random: RandomStream(seed: seed, name: "net"), tracer: trace)
        self.faults = FaultPoints(random: RandomStream(seed: seed, name: "faults"))
        self.bus = URLBus(tracer: trace)
        self.time = SimulatedTime(loop: loop, epoch: epoch)
    }

    /// The node called `name` (created on first use; also makes `name` a host on the network).
    public func node(_ name: String) -> Node {
        if let node = nodes[name] { return node }
        network.addHost(name)
        let disk = SimulatedDisk(node: name, random: RandomStream(seed: seed, name: "disk:" + name), faults: faults, tracer: trace)
        disks[name] = disk
        let node = Node(
            name: name, eventLoop: loop, network: network,
            clock: NodeClock(source: time, skew: skew(of: name)),
            random: RandomStream(seed: seed, name: "node:" + name),
            secrets: .seeded(RandomStream(seed: seed, name: "secrets:" + name)), faults: faults, bus: bus, tracer: trace,
            plantedBugs: plantedBugs, disk: disk)
        nodes[name] = node
        return node
    }

    /// The fault points every node's simulated disk checks (a write error, a read error, the fsync lie): a world's own,
    /// not an actor's, so a scenario may name them whatever it starts; the live wire has no simulated disk.
    public static let diskFaultPoints = SimulatedDisk.faultPoints
    /// The disk's "fsync lie": a sync that returns success and makes nothing durable.
    public static let fsyncLieFault = SimulatedDisk.fsyncLieFault

    /// The simulated disk of the node called `name` (the node is created on first use).
    public func disk(of name: String) -> SimulatedDisk {
        if let disk = disks[name] { return disk }
        _ = node(name)
        return disks[name]!
    }

    /// The node called `name` loses its power: its disk crashes (what was not synced is lost or torn, by the disk's
    /// seeded choice), then every connection of it is reset and every port it listened on closes. The actors on it
    /// stop themselves first (see the scenario's `crash`): the kernel cannot tell their work from the others'.
    ///
    /// - returns: how many files with unsynced changes lost them (or vanished, never synced) and how many had their last
    ///   write torn (`SimulatedDisk.crash()` says which), and how many connections were reset.
    @discardableResult
    public func crash(node name: String) -> (lost: Int, torn: Int, connections: Int) {
        let files = disk(of: name).crash()
        let torn = files.filter { if case .torn = $0.fate { true } else { false } }.count
        let connections = network.crash(host: name)
        return (files.count - torn, torn, connections)
    }

    /// The clock offset of a node (scenarios set it to model disagreeing clocks).
    public func skew(of name: String) -> ClockSkew {
        if let skew = skews[name] { return skew }
        let skew = ClockSkew()
        skews[name] = skew
        return skew
    }

    /// Ends every fault of the world: every path healed and released with its default conditions
    /// (``SimulatedNetwork/healAll()``), every node's clock back on time, every fault point off, every power cut still
    /// waiting for its write disarmed.
    ///
    /// - returns: how many link directions and fault points it changed, and the nodes whose clocks it set right.
    @discardableResult
    public func healAll() -> (links: Int, clocks: [String], points: Int) {
        let links = network.healAll()
        // A power cut still waiting for its write is a fault too.
        for name in disks.keys.sorted() { disks[name]?.disarmPowerCut() }
        var clocks: [String] = []
        for name in skews.keys.sorted() where skews[name]?.value != .zero {
            skews[name]?.set(.zero)
            clocks.append(name)
        }
        var points = 0
        for point in faults.all where point.mode != .off {
            faults.set(point.name, .off)
            points += 1
        }
        return (links, clocks, points)
    }

    /// Virtual time since the start of the run.
    public var now: Duration { .nanoseconds(loop.nanoseconds) }

    /// How far virtual time may go: a hundred years after the start of the run. Deadlines past it are clamped
    /// to it, so no sum of durations can overflow the loop's 64-bit nanosecond clock (about 292 years).
    public static let horizon: Duration = .seconds(100 * 365 * 86_400)

    /// Runs everything due within `duration`, then stands at now + `duration` (at most ``horizon``).
    public func advance(by duration: Duration) {
        loop.advance(to: deadline(after: duration))
    }

    /// Now + `duration`, clamped to the range from now to ``horizon``.
    public func deadline(after duration: Duration) -> Int64 {
        let (sum, overflow) = loop.nanoseconds.addingReportingOverflow(max(0, duration.nanosecondsValue))
        let horizon = Self.horizon.nanosecondsValue
        return overflow ? horizon : max(loop.nanoseconds, min(sum, horizon))
    }

    /// Starts simulated async work: it runs only on the kernel's loop, one step at a time.
    ///
    /// Non-isolated async code inside runs on the loop through task-executor preference. Structured child
    /// tasks inherit it; an unstructured `Task {}` inside does not, so spawn those through the kernel too.
    @discardableResult
    public func spawn<T: Sendable>(
        _ name: String, _ body: @escaping @Sendable () async throws -> T
    ) -> SimulatedTask<T> {
        let handle = SimulatedTask<T>(name: name)
        handle.task = Task(executorPreference: loop) {
            do {
                let value = try await body()
                handle.finish(.success(value))
            } catch {
                handle.finish(.failure(error))
            }
        }
        return handle
    }

    /// Drives the loop until `task` finishes, at most `timeout` of virtual time.
    ///
    /// - throws: ``KernelError`` when the time limit passes, when nothing is left to run but the task is
    ///   still waiting (a deadlock, or work that escaped to a thread the kernel does not drive), or the
    ///   task's own error.
    public func wait<T>(for task: SimulatedTask<T>, timeout: Duration) throws -> T {
        let stop = loop.run(until: deadline(after: timeout), while: { !task.isFinished })
        if let result = task.result { return try result.get() }
        switch stop {
        case .idle:
            throw KernelError(.stalled, "'\(task.name)' is waiting but nothing is scheduled to wake it" + violationNote)
        default:
            throw KernelError(.timedOut, "'\(task.name)' did not finish within \(timeout.workbenchText) of virtual time" + violationNote)
        }
    }

    /// Runs `body` as a simulated task and drives it to completion.
    public func run<T: Sendable>(
        _ name: String, timeout: Duration = .seconds(60), _ body: @escaping @Sendable () async throws -> T
    ) throws -> T {
        try wait(for: spawn(name, body), timeout: timeout)
    }

    private var violationNote: String {
        let violations = loop.violations
        return violations.isEmpty ? "" : " (determinism violations: \(violations.joined(separator: "; ")))"
    }
}

/// A handle on simulated async work.
public final class SimulatedTask<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `result` is written by the task on the loop and read by the driver on the same thread.
    /// The name the task was spawned with; the kernel's errors about the task quote it.
    public let name: String
    /// The task's outcome, its value or the error it threw; nil while it has not finished.
    public internal(set) var result: Result<T, any Error>?
    var task: Task<Void, Never>?

    init(name: String) { self.name = name }

    /// Whether the task has finished, returning or throwing (``SimulatedTask/result`` is set).
    public var isFinished: Bool { result != nil }

    func finish(_ result: Result<T, any Error>) { self.result = result }

    /// Asks the work to stop (Swift task cancellation).
    public func cancel() { task?.cancel() }
}

/// Why the kernel could not finish what it was asked to.
public struct KernelError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure a ``KernelError`` reports.
    public enum Kind: Sendable {
        /// The task did not finish within its time limit of virtual time.
        case timedOut
        /// The task still waited when nothing was left to run: a deadlock, or work that escaped to a thread the kernel
        /// does not drive.
        case stalled
    }
    /// Whether the task timed out or stalled.
    public let kind: Kind
    /// What happened, for people: the task's name, why it did not finish, and any determinism violations the loop
    /// recorded (also the error's `description`).
    public let message: String
    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
    /// The ``message``: the task's name, why it did not finish, and the loop's determinism violations.
    public var description: String { message }
}
