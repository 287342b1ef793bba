import NIOCore
import Synchronization

/// A timer a node arms on its clock (a page printed, a spooler's next job done, a job's time-out): ``Node/schedule(in:_:)``.
/// Under simulation it is the event loop's own scheduled task, on virtual time; live, `advance` reaches it too (it fires
/// at once if the jump made it due). Time-outs of the I/O itself (a socket's idle or read time-out) stay the loop's own
/// scheduled tasks: the live wire's time jumps do not reach into the network.
public struct NodeTimer: Sendable {
    private let cancelling: @Sendable () -> Void

    /// A timer that `cancel` stops: a ``TimeSource`` makes one for each timer it arms.
    public init(cancel: @escaping @Sendable () -> Void) { cancelling = cancel }

    /// Stops it from firing (nothing, once it has).
    public func cancel() { cancelling() }
}

extension TimeSource {
    /// A timer on `loop`'s own clock: what every time source but the live wire's needs.
    public func schedule(on loop: any EventLoop, in delay: TimeAmount, _ body: @escaping @Sendable () -> Void) -> NodeTimer {
        let scheduled = loop.scheduleTask(in: delay, body)
        return NodeTimer { scheduled.cancel() }
    }
}

extension Node {
    /// Runs `body` on the node's loop after `delay` of its clock (see ``NodeTimer``).
    @discardableResult
    public func schedule(in delay: TimeAmount, _ body: @escaping @Sendable () -> Void) -> NodeTimer {
        clock.source.schedule(on: eventLoop, in: delay, body)
    }
}

/// The live wire's timers: each is a scheduled task on its loop, moved when `advance` jumps the clock.
final class LiveTimers: Sendable {
    private struct Entry {
        let loop: any EventLoop
        let deadline: Duration
        let body: @Sendable () -> Void
        var scheduled: Scheduled<Void>?
    }

    private struct State {
        var next = 0
        var entries: [Int: Entry] = [:]
    }

    private let state = Mutex(State())

    func schedule(on loop: any EventLoop, at deadline: Duration, in delay: TimeAmount, _ body: @escaping @Sendable () -> Void) -> NodeTimer {
        let id = state.withLock { state in
            defer { state.next += 1 }
            state.entries[state.next] = Entry(loop: loop, deadline: deadline, body: body)
            return state.next
        }
        arm(id, on: loop, in: delay)
        return NodeTimer { [self] in
            state.withLock { $0.entries.removeValue(forKey: id) }?.scheduled?.cancel()
        }
    }

    /// Re-arms every timer for the clock now at `uptime`: those the jump made due fire at once.
    func clockJumped(to uptime: Duration) {
        let pending = state.withLock { state in state.entries.map { ($0.key, $0.value) } }
        for (id, entry) in pending {
            entry.scheduled?.cancel()
            let remaining = entry.deadline - uptime
            arm(id, on: entry.loop, in: remaining > .zero ? .nanoseconds(remaining.nanosecondsValue) : .zero)
        }
    }

    private func arm(_ id: Int, on loop: any EventLoop, in delay: TimeAmount) {
        let scheduled = loop.scheduleTask(in: delay) { [self] in
            // Once: an earlier arming may already be running when a jump re-arms it.
            if let entry = state.withLock({ $0.entries.removeValue(forKey: id) }) { entry.body() }
        }
        state.withLock { state in
            if state.entries[id] != nil { state.entries[id]?.scheduled = scheduled } else { scheduled.cancel() }
        }
    }
}
