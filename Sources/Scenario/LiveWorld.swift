import Foundation
import Kernel
import Synchronization
import Wire

/// The live wire as a scenario's lines see it: the actors' fault points, links and clocks, and the journal of what
/// they recorded. Two ways to run lines on it:
/// - a session attached to a running `workbench serve` runs every line, and every `later` and `for` it schedules, on
///   ``queue``, one at a time, as a simulated world's lines run on its driving thread;
/// - `workbench run --live` runs a whole scenario on one thread (no queue): what its lines schedule runs on that thread
///   too, while a line waits (for work it started, or a condition), as the kernel runs due work while a line waits.
public final class LiveWorld: World {
    public let wire: LiveWire
    public let journal: LiveJournal
    /// Where an attached session's lines and scheduled work run; nil when the caller's waits run them.
    public let queue: DispatchQueue?

    private struct Scheduled {
        var sequence = 0
        var due: [(at: Duration, sequence: Int, body: @Sendable () -> Void)] = []
    }

    private let scheduled = Mutex(Scheduled())

    /// A world whose lines run on `queue` (a session attached to a running serve).
    public init(wire: LiveWire, journal: LiveJournal, queue: DispatchQueue) {
        (self.wire, self.journal, self.queue) = (wire, journal, queue)
    }

    /// A world whose lines run on the caller's thread, scheduled work within its waits (`workbench run --live`).
    public init(wire: LiveWire, journal: LiveJournal) {
        (self.wire, self.journal, self.queue) = (wire, journal, nil)
    }

    public var seed: UInt64 { wire.seed }
    public var now: Duration { wire.uptime }
    public var faults: FaultPoints { wire.faults }
    public var links: any LinkControl { wire.links }
    public var bus: URLBus { wire.bus }

    public func skew(of node: String) -> ClockSkew { wire.skew(of: node) }

    public func advance(by duration: Duration) throws {
        wire.advance(by: duration)
        // What `later` scheduled within the jump is due now.
        if queue == nil { settle() }
    }

    public func schedule(in delay: Duration, _ body: @escaping @Sendable () -> Void) {
        guard queue == nil else {
            queue?.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: delay.nanosecondsValue)), execute: body)
            return
        }
        // On the wire's uptime, so an `advance` past it makes it due at once.
        let at = wire.uptime + delay
        scheduled.withLock { all in
            all.due.append((at, all.sequence, body))
            all.sequence += 1
        }
    }

    /// Lets the event loops run what is queued on them now (``LiveWire/settle()``), then runs the scheduled work that
    /// is due, in the order of its deadlines (ties in the order scheduled).
    public func settle() {
        wire.settle()
        while true {
            let now = wire.uptime
            let next: (@Sendable () -> Void)? = scheduled.withLock { all in
                guard
                    let index = all.due.indices.filter({ all.due[$0].at <= now }).min(by: {
                        (all.due[$0].at, all.due[$0].sequence) < (all.due[$1].at, all.due[$1].sequence)
                    })
                else { return nil }
                return all.due.remove(at: index).body
            }
            guard let next else { return }
            next()
        }
    }

    public func record(actor: String, event: String, fields: [(String, String)]) {
        journal.record(actor: actor, event: event, fields: fields)
    }

    public func node(_ name: String) -> Node { wire.node(name) }

    public func begin<T: Sendable>(_ name: String, _ work: @escaping @Sendable () async throws -> T) -> WorldTask<T> {
        let outcome = Mutex<Result<T, any Error>?>(nil)
        Task {
            let result: Result<T, any Error>
            do { result = .success(try await work()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
        }
        return WorldTask(name: name) { [self] timeout in
            run(for: timeout) { outcome.withLock { $0 } == nil }
            // What the work set going (a reply on the bus) has run too, as under simulation.
            wire.settle()
            guard let result = outcome.withLock({ $0 }) else { throw StepError("\(name): not done within \(timeout.workbenchText)") }
            return try result.get()
        }
    }

    public var events: [Trace.Event] { journal.events }
    public var traceCount: Int { journal.count }

    public func run(for limit: Duration, while condition: () -> Bool) {
        let deadline = ContinuousClock.now + limit
        // The actors run on their own loops: this thread runs what is scheduled for it, and looks again now and then.
        while true {
            if queue == nil { settle() }
            guard condition(), ContinuousClock.now < deadline else {
                wire.settle()
                return
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    public func healAll() -> (links: Int, clocks: [String], points: Int) {
        let links = wire.links.healAll()
        let clocks = wire.healClocks()
        var points = 0
        for point in faults.all where point.mode != .off {
            faults.set(point.name, .off)
            points += 1
        }
        return (links, clocks, points)
    }
}

/// The live wire's trace: the last events the served actors recorded (a bounded ring), stamped with the wire's uptime,
/// passed on to `next` (the request log). What `expect trace`, `wait until trace` and `show trace` read live.
public final class LiveJournal: TraceSink {
    private struct Ring {
        var events: [Trace.Event] = []
        var start = 0
        var count = 0
    }

    /// How many events it keeps.
    public let capacity: Int
    private let ring = Mutex(Ring())
    private let next: any TraceSink

    /// Nanoseconds since the Unix epoch that events are stamped relative to (0: stamped with the calendar).
    private let origin: Int64

    /// - parameters:
    ///   - capacity: the events kept (the oldest go first), at least 1.
    ///   - next: where every event goes on to.
    ///   - fromNow: stamp events with the time since now (a run's trace) rather than the calendar (a serve's journal).
    public init(capacity: Int, next: any TraceSink, fromNow: Bool = false) {
        (self.capacity, self.next) = (max(1, capacity), next)
        origin = fromNow ? Self.calendarNanoseconds() : 0
    }

    private static func calendarNanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    public func record(actor: String, event: String, fields: [(String, String)]) {
        // Stamped with the machine's calendar (or the time since the run began), not what `advance` added: the journal
        // says when things happened.
        let entry = Trace.Event(nanoseconds: Self.calendarNanoseconds() - origin, actor: actor, event: event, fields: fields)
        ring.withLock { ring in
            if ring.events.count < capacity {
                ring.events.append(entry)
            } else {
                ring.events[ring.start] = entry
                ring.start = (ring.start + 1) % capacity
            }
            ring.count += 1
        }
        next.record(actor: actor, event: event, fields: fields)
    }

    /// The events kept, oldest first.
    public var events: [Trace.Event] {
        ring.withLock { Array($0.events[$0.start...] + $0.events[..<$0.start]) }
    }

    /// Every event recorded since it began, kept or not.
    public var count: Int { ring.withLock { $0.count } }
}
