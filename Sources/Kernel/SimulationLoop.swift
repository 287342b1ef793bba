import Dispatch
import NIOConcurrencyHelpers
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// The one event loop, executor and clock of a simulation.
///
/// Every piece of simulated work — NIO channel events and timers, Swift tasks, network deliveries, bus
/// messages — is a job in one queue ordered by (virtual time, sequence number) and runs one at a time on the
/// thread that drives the loop; a Swift task's hop between executors runs next (``enqueue(_:)`` says why). Time
/// only moves when the driver moves it, straight to the next job's deadline, so idle virtual time costs nothing.
///
/// The loop is NIO's `EventLoop` (for channels and timers), a `SerialExecutor` (simulated Swift actors may
/// use it as their `unownedExecutor`) and a `TaskExecutor` (tasks started with this executor preference run
/// their non-isolated code here).
///
/// The determinism check: every submission of work to the loop (NIO `execute`/`scheduleTask`, a promise
/// completed off the loop, a Swift task job resumed by ``enqueue(_:)``) is compared with the loop's owner
/// thread — the thread that drives it, or last drove it, or created it. Work submitted from any other thread
/// has escaped the kernel's control: it is still run, but recorded in ``violations``, for the whole life of
/// the loop — while it is being driven and between drives (work that escaped during one drive and comes back
/// after it ended is reported too). Runs that depend on thread timing are thus reported rather than silently
/// non-deterministic. What the check cannot see: code that never submits work from a foreign thread — reading
/// the wall clock, drawing unseeded randomness, blocking the loop thread — leaves no trace here.
///
/// A driver that moves to another thread between drives (async code awaiting between two drives) becomes the
/// owner again when it next drives; work it submits from the new thread before that is reported.
public final class SimulationLoop: EventLoop, NIOSerialEventLoopExecutor, TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: every mutable field lives in `state`, guarded by `lock`.

    private struct State {
        var now: Int64 = 0
        var nextSequence: UInt64 = 0
        var queue = JobQueue()
        var cancelled: Set<UInt64> = []
        /// The thread that drives the loop (or last did, or created it): the loop's one "event loop thread".
        var owner: pthread_t = pthread_self()
        var driving = false
        var executed: UInt64 = 0
        var violations: [String] = []
        var shutDown = false
        /// The Swift task whose job is running now, if one is: a job it enqueues while it runs is its own hop.
        var runningTask: UnsafeRawPointer?
    }

    private let lock = NIOLock()
    private var state = State()

    /// Creates a loop at virtual time zero with no jobs, owned by the creating thread until a thread drives it.
    public init() {}

    // MARK: Driving

    /// Virtual nanoseconds since the start of the run.
    public var nanoseconds: Int64 { lock.withLock { state.now } }

    /// The deadline of the earliest pending job, if any.
    public var nextDeadline: Int64? { lock.withLock { state.queue.first?.deadline } }

    /// How many jobs have run.
    public var executedJobs: UInt64 { lock.withLock { state.executed } }

    /// Work that arrived from threads the kernel does not drive, in arrival order, whether or not the loop was
    /// being driven at the time (see the type's comment for what is and is not watched).
    public var violations: [String] { lock.withLock { state.violations } }

    /// Why a drive stopped.
    public enum Stop: Equatable, Sendable {
        /// The condition became true.
        case satisfied
        /// The next job lies beyond the time limit; time now equals the limit.
        case reachedLimit
        /// Nothing is left to run.
        case idle
    }

    /// Runs jobs in order until `condition` holds, the queue is empty, or the next job is due after `limit`.
    ///
    /// The condition is checked before the first job and after each one, so time stops exactly when it
    /// became true. When the limit is reached, time is moved to the limit.
    @discardableResult
    public func run(until limit: Int64, while condition: () -> Bool = { true }) -> Stop {
        let previous = beginDriving()
        defer { endDriving(previous) }
        while true {
            if !condition() { return .satisfied }
            guard
                let job = lock.withLock({ () -> SimulationLoopJob? in
                    guard let first = state.queue.first, first.deadline <= limit else { return nil }
                    let job = state.queue.removeFirst()
                    state.now = max(state.now, job.deadline)
                    state.executed += 1
                    return job
                })
            else {
                return lock.withLock {
                    if state.queue.isEmpty {
                        return .idle
                    }
                    state.now = max(state.now, limit)
                    return .reachedLimit
                }
            }
            job.run()
        }
    }

    /// Runs every job due up to `limit`, then sets the time to `limit`.
    public func advance(to limit: Int64) {
        run(until: limit)
        lock.withLock { state.now = max(state.now, limit) }
    }

    /// Runs what is due now without moving time.
    public func runDue() {
        run(until: nanoseconds)
    }

    /// Ends the loop's life, once nothing will drive it again (its kernel is gone): runs what is due now, then fails
    /// every scheduled task's promise with `EventLoopError.cancelled` (as NIO's `EmbeddedEventLoop` does with the
    /// tasks left when it is done) and drops the other jobs unrun. Until then the jobs left at the end of a run —
    /// timers of actors that would have gone on living — hold those actors, and through their nodes the loop itself,
    /// so every run's whole world stayed in memory: 0.3 MB a seed, gigabytes over a long swarm.
    public func tearDown() {
        // What is due now (closes completing, promises being fulfilled) runs, so that no promise is dropped unfulfilled.
        runDue()
        lock.withLock { state.shutDown = true }
        for _ in 0..<Self.tearDownRounds {
            let jobs = lock.withLock { () -> [SimulationLoopJob] in
                defer { state.cancelled = [] }
                // A task cancelled through its `Scheduled` has failed its promise already.
                return state.queue.removeAll().filter { !state.cancelled.contains($0.sequence) }
            }
            if jobs.isEmpty { return }
            for job in jobs { job.cancel?() }
            // A failed promise's callbacks may have submitted work due now.
            runDue()
        }
    }

    /// How many times ``tearDown()`` takes the jobs that the last round's cancellations submitted, at most.
    static let tearDownRounds = 100

    private func beginDriving() -> Bool {
        lock.withLock {
            let wasDriving = state.driving
            if !wasDriving { state.owner = pthread_self() }
            state.driving = true
            return wasDriving
        }
    }

    private func endDriving(_ wasDriving: Bool) {
        lock.withLock { state.driving = wasDriving }
    }

    // MARK: Scheduling

    @discardableResult
    private func schedule(
        at deadline: Int64, next: Bool = false, cancel: (() -> Void)? = nil, _ work: @escaping () -> Void
    ) -> UInt64 {
        lock.withLock {
            if pthread_equal(state.owner, pthread_self()) == 0 {
                state.violations.append(
                    "work was submitted from a thread the kernel does not drive at t=\(state.now)ns"
                        + (state.driving ? "" : ", between drives"))
            }
            let sequence = state.nextSequence
            state.nextSequence += 1
            state.queue.insert(
                SimulationLoopJob(
                    deadline: max(deadline, state.now), next: next, sequence: sequence,
                    run: { [unowned self] in
                        if lock.withLock({ state.cancelled.remove(sequence) != nil }) { return }
                        work()
                    }, cancel: cancel))
            return sequence
        }
    }

    private func cancel(_ sequence: UInt64) {
        lock.withLock { _ = state.cancelled.insert(sequence) }
    }

    // MARK: EventLoop

    /// True on the loop's owner thread: the one driving it, or that last drove or created it. Between drives
    /// nothing else runs loop work, so the owner may touch loop-confined state directly.
    public var inEventLoop: Bool {
        lock.withLock { pthread_equal(state.owner, pthread_self()) != 0 }
    }

    /// The virtual time now (``nanoseconds``) as a NIO deadline.
    public var now: NIODeadline { .uptimeNanoseconds(UInt64(nanoseconds)) }

    /// Queues `task` to run at the current virtual instant, after the work already due then.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        schedule(at: nanoseconds, task)
    }

    public func _executeIsolatedUnsafeUnchecked(_ task: @escaping () -> Void) {
        schedule(at: nanoseconds, task)
    }

    /// Runs `task` when virtual time reaches `deadline` (at once if it has passed); its result or error completes the
    /// returned `Scheduled`'s future, which fails with `EventLoopError.shutdown` after
    /// ``shutdownGracefully(queue:_:)``.
    @discardableResult
    public func scheduleTask<T>(deadline: NIODeadline, _ task: @escaping @Sendable () throws -> T) -> Scheduled<T> {
        _scheduleTaskIsolatedUnsafeUnchecked(deadline: deadline, task)
    }

    /// Runs `task` once `delay` of virtual time has passed; see ``scheduleTask(deadline:_:)``.
    @discardableResult
    public func scheduleTask<T>(in delay: TimeAmount, _ task: @escaping @Sendable () throws -> T) -> Scheduled<T> {
        _scheduleTaskIsolatedUnsafeUnchecked(deadline: now + delay, task)
    }

    @discardableResult
    public func _scheduleTaskIsolatedUnsafeUnchecked<T>(
        deadline: NIODeadline, _ task: @escaping () throws -> T
    ) -> Scheduled<T> {
        let promise: EventLoopPromise<T> = makePromise()
        let isShutDown = lock.withLock { state.shutDown }
        if isShutDown {
            promise.fail(EventLoopError.shutdown)
            return Scheduled(promise: promise, cancellationTask: {})
        }
        let sequence = schedule(
            at: Int64(clamping: deadline.uptimeNanoseconds),
            cancel: { promise.fail(EventLoopError.cancelled) },
            { do { promise.assumeIsolatedUnsafeUnchecked().succeed(try task()) } catch { promise.fail(error) } })
        return Scheduled(promise: promise, cancellationTask: { [weak self] in self?.cancel(sequence) })
    }

    @discardableResult
    public func _scheduleTaskIsolatedUnsafeUnchecked<T>(
        in delay: TimeAmount, _ task: @escaping () throws -> T
    ) -> Scheduled<T> {
        _scheduleTaskIsolatedUnsafeUnchecked(deadline: now + delay, task)
    }

    /// Calls `handler` once `amount` of virtual time has passed.
    @discardableResult
    public func scheduleCallback(
        in amount: TimeAmount, handler: some (NIOScheduledCallbackHandler & Sendable)
    ) throws -> NIOScheduledCallback {
        scheduleCallback(at: now + amount, handler: handler)
    }

    /// Traps unless called on the loop's owner thread (see ``inEventLoop``).
    public func preconditionInEventLoop(file: StaticString, line: UInt) {
        precondition(inEventLoop, "not on the simulation loop's owner thread", file: file, line: line)
    }

    /// Traps when called on the loop's owner thread (see ``inEventLoop``).
    public func preconditionNotInEventLoop(file: StaticString, line: UInt) {
        precondition(!inEventLoop, "on the simulation loop's owner thread", file: file, line: line)
    }

    /// Makes the loop refuse new scheduled tasks (their futures fail with `EventLoopError.shutdown`), then calls
    /// `callback` on `queue` without an error; jobs already queued stay queued.
    public func shutdownGracefully(queue: DispatchQueue, _ callback: @escaping @Sendable (Error?) -> Void) {
        lock.withLock { state.shutDown = true }
        queue.async { callback(nil) }
    }

    // MARK: Executors

    /// A task that hops between executors (from an actor to non-isolated code and back) is enqueued again by its
    /// own job; that hop runs next, before any other work due now. How many hops a task makes is the compiler's
    /// choice (an optimised build elides hops a debug build makes), so were hops queued behind other work, the same
    /// seed would interleave a task's steps with network deliveries one way in a debug build and another in a
    /// release build. A task resumed by other work (a promise it awaits) queues behind what is due, as before.
    /// The price: `Task.yield()` does not yield to work due at the same instant under simulation.
    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        // `UnownedJob` is a frozen struct around the job's pointer (`unsafeBitCast` traps if the sizes ever differ),
        // and a task is its own job: the pointer names the task across its hops.
        let task = unsafeBitCast(unowned, to: UnsafeRawPointer.self)
        let hop = lock.withLock { state.runningTask == task }
        schedule(at: nanoseconds, next: hop) { [unowned self] in
            let outer = lock.withLock { () -> UnsafeRawPointer? in
                defer { state.runningTask = task }
                return state.runningTask
            }
            unowned.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
            lock.withLock { state.runningTask = outer }
        }
    }

    /// This loop as an unowned task executor, the form the runtime holds it in: a task that prefers this loop as its
    /// executor runs its non-isolated code here (see ``Kernel/Kernel/spawn(_:_:)``).
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }
}

// MARK: - Job queue

private struct SimulationLoopJob: Comparable {
    let deadline: Int64
    /// A task's own hop: it runs before the other jobs of its deadline (see `SimulationLoop.enqueue(_:)`).
    let next: Bool
    let sequence: UInt64
    let run: () -> Void
    /// What ending the loop does instead of running the job: a scheduled task fails its promise.
    let cancel: (() -> Void)?

    static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.deadline, lhs.next ? 0 : 1, lhs.sequence) < (rhs.deadline, rhs.next ? 0 : 1, rhs.sequence)
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.sequence == rhs.sequence }
}

/// A binary min-heap of jobs ordered by (deadline, a task's own hop first, sequence): equal deadlines run in submission
/// order, but for the one hop of the task that ran last.
private struct JobQueue {
    private var heap: [SimulationLoopJob] = []

    var isEmpty: Bool { heap.isEmpty }
    var first: SimulationLoopJob? { heap.first }
    /// Every job, in the order they would run; the queue is left empty.
    mutating func removeAll() -> [SimulationLoopJob] {
        defer { heap = [] }
        return heap.sorted()
    }

    mutating func insert(_ job: SimulationLoopJob) {
        heap.append(job)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child] < heap[parent] else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func removeFirst() -> SimulationLoopJob {
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < heap.count, heap[left] < heap[smallest] { smallest = left }
                if right < heap.count, heap[right] < heap[smallest] { smallest = right }
                if smallest == parent { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return top
    }
}
