import Foundation
import Kernel
import Synchronization
import Wire

/// The world of a running `workbench serve`, as a live session's lines see it: the served actors' fault points,
/// links and clocks on the live wire, and the journal of what they recorded. Every line, and every `later` and `for`
/// it schedules, runs on ``queue``, one at a time, as a simulated world's lines run on its driving thread.
public final class LiveWorld: World {
    public let wire: LiveWire
    public let journal: LiveJournal
    /// Where the session's lines run.
    public let queue: DispatchQueue
    public init(wire: LiveWire, journal: LiveJournal, queue: DispatchQueue) {
        (self.wire, self.journal, self.queue) = (wire, journal, queue)
    }

    public var seed: UInt64 { wire.seed }
    public var now: Duration { wire.uptime }
    public var faults: FaultPoints { wire.faults }
    public var links: any LinkControl { wire.links }

    public func skew(of node: String) -> ClockSkew { wire.skew(of: node) }

    public func advance(by duration: Duration) throws { wire.advance(by: duration) }

    public func schedule(in delay: Duration, _ body: @escaping @Sendable () -> Void) {
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: delay.nanosecondsValue)), execute: body)
    }

    public func record(actor: String, event: String, fields: [(String, String)]) {
        journal.record(actor: actor, event: event, fields: fields)
    }

    public func node(_ name: String) -> Node { wire.node(name) }

    public func perform<T: Sendable>(_ name: String, timeout: Duration, _ work: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<T, any Error>
            do { result = .success(try await work()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        guard done.wait(timeout: .now() + .nanoseconds(Int(clamping: timeout.nanosecondsValue))) == .success,
            let result = outcome.withLock({ $0 })
        else {
            throw StepError("\(name): not done within \(timeout.workbenchText)")
        }
        return try result.get()
    }

    public var events: [Trace.Event] { journal.events }
    public var traceCount: Int { journal.count }

    public func run(for limit: Duration, while condition: () -> Bool) {
        let deadline = ContinuousClock.now + limit
        // The served actors run on their own loops: this thread only looks again now and then.
        while condition(), ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
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

    /// - parameters:
    ///   - capacity: the events kept (the oldest go first), at least 1.
    ///   - next: where every event goes on to.
    public init(capacity: Int, next: any TraceSink) {
        (self.capacity, self.next) = (max(1, capacity), next)
    }

    public func record(actor: String, event: String, fields: [(String, String)]) {
        // Stamped with the machine's calendar (nanoseconds since the Unix epoch), not what `advance` added: the journal
        // says when things happened.
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let entry = Trace.Event(nanoseconds: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec), actor: actor, event: event, fields: fields)
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
