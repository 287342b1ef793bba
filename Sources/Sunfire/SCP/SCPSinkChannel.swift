import NIOCore
import SunfireHost

/// Drives an ``SCPSink`` on a session channel: the sink's file work runs on the node's blocking threads live, one step
/// at a time and in arrival order (bytes received meanwhile wait, merged, for the next step), each reply back on the
/// channel's loop. Under simulation each step runs at once, inline, so replies come exactly as a direct call's would.
final class SCPSinkChannel {
    private enum Step {
        case start
        case bytes([UInt8])
        case end
        /// The connection went away: end the copy, nobody to answer.
        case lost
    }

    private let core: SunfireCore
    private let sink: Handoff<SCPSink>
    private var queue: [Step] = []
    private var running = false
    private var pumping = false
    /// Set once a reply carried the exit status: the copy is over and later input is ignored.
    private var over = false
    /// The reply to each step the client should see, in order.
    var onReply: ((SCPSink.Reply) -> Void)?
    /// Called when the backlog has been taken up (the handler may read again).
    var drained: (() -> Void)?
    private let user: String?
    /// The channel's loop, where every step's reply arrives.
    private let eventLoop: any EventLoop

    init(core: SunfireCore, sink: SCPSink, user: String?, eventLoop: any EventLoop) {
        self.core = core
        self.sink = Handoff(sink)
        self.user = user
        self.eventLoop = eventLoop
    }

    /// Bytes received and not yet handed to the sink.
    var backlog: Int {
        queue.reduce(0) { total, step in
            if case .bytes(let bytes) = step { return total + bytes.count }
            return total
        }
    }

    func start(_ context: ChannelHandlerContext) { enqueue(context, .start) }

    func receive(_ context: ChannelHandlerContext, _ bytes: some Collection<UInt8>) {
        guard !over else { return }
        if case .bytes(var waiting)? = queue.last {
            // Taken out of the queue first, so the array is not shared and grows in place.
            queue.removeLast()
            waiting.append(contentsOf: bytes)
            queue.append(.bytes(waiting))
            return
        }
        enqueue(context, .bytes(Array(bytes)))
    }

    func end(_ context: ChannelHandlerContext) { enqueue(context, .end) }

    func connectionLost() {
        guard !over else { return }
        queue.append(.lost)
        // Nothing will write: the steps still run, for the files and the trace.
        guard !running else { return }
        run(nil)
    }

    private func enqueue(_ context: ChannelHandlerContext, _ step: Step) {
        guard !over else { return }
        queue.append(step)
        run(context)
    }

    /// Runs queued steps one after another. Inline steps complete inside `run` (the loop goes on); threaded ones come
    /// back later and call `run` again.
    private func run(_ context: ChannelHandlerContext?) {
        guard !pumping else { return }
        pumping = true
        while !running, !over, !queue.isEmpty {
            let step = queue.removeFirst()
            running = true
            let sink = self.sink
            let work: @Sendable () -> SCPSink.Reply = {
                switch step {
                case .start: sink.value.start()
                case .bytes(let bytes): sink.value.receive(bytes)
                case .end, .lost: sink.value.end()
                }
            }
            let loopBound = NIOLoopBound((self, context), eventLoop: eventLoop)
            core.blocking(answerOn: eventLoop, work).whenComplete { result in
                let (channel, context) = loopBound.value
                channel.running = false
                // A step cannot fail (the sink answers every error itself); a shut-down pool ends the copy.
                let reply = (try? result.get()) ?? SCPSink.Reply(exitStatus: 1)
                channel.answered(context, step, reply)
                if !channel.pumping { channel.run(context) }
            }
        }
        pumping = false
        // After `pumping` is down: the handler's next read may deliver bytes at once, and they must run again.
        if queue.isEmpty, !running { drained?() }
    }

    private func answered(_ context: ChannelHandlerContext?, _ step: Step, _ reply: SCPSink.Reply) {
        for file in reply.completed {
            core.node.trace("upload", [("user", user ?? ""), ("path", file.path), ("bytes", String(file.bytes)), ("via", "scp")])
        }
        if case .lost = step {
            over = true
            return
        }
        if reply.exitStatus != nil {
            over = true
            queue = []
        }
        onReply?(reply)
    }
}

/// A value handed from the channel's loop to one blocking step at a time and back: never used by two threads at
/// once, because each channel runs its steps one after another.
final class Handoff<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
