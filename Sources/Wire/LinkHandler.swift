import NIOCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The front of one accepted live connection: passes its bytes through while its link has nothing set, and otherwise
/// delays, paces, holds or resets them as ``LiveLinks`` says, per direction, in order. Inbound is the client's bytes
/// to the actor, outbound the actor's answer.
///
/// Its queues are touched only on the connection's loop; ``LiveLinks`` reaches it from other threads through
/// ``conditionsChanged()`` and ``reset()``, which hop onto that loop.
final class LinkHandler: ChannelDuplexHandler, @unchecked Sendable {
    // @unchecked Sendable: the mutable state below is confined to the channel's event loop (see type comment); the
    // byte counters `show connections` reads from other threads are atomics.
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The client side's name in a line that names none (kept for readability at call sites).
    static let clientSide = LiveLinks.everyClient

    let id: Int
    let client: String
    let clientPort: Int
    let actor: String
    let port: Int
    private unowned let links: LiveLinks
    private let received = Atomic<Int>(0)
    private let sent = Atomic<Int>(0)

    /// One direction's bytes waiting to go on, oldest first, with when each may go (nil: when the link lets it).
    private struct Lane {
        var queue: [(bytes: ByteBuffer, promise: EventLoopPromise<Void>?, due: NIODeadline?)] = []
        /// When the last byte queued leaves: a later chunk never overtakes an earlier one.
        var lastDue = NIODeadline.uptimeNanoseconds(0)
        var timer: Scheduled<Void>?
        /// Bytes carried since the reset now armed was armed.
        var carried = 0
        var armed: Int?
        /// A pump of this lane is passing bytes on; one asked for meanwhile runs after it (order is kept).
        var pumping = false
        var again = false
        var bytes: Int { queue.reduce(0) { $0 + $1.bytes.readableBytes } }
    }

    /// How many of the client's bytes may wait before the connection stops reading (TCP then pushes back on the client).
    static let maximumWaitingBytes = 1 << 20

    private var inbound = Lane()
    private var outbound = Lane()
    private var context: ChannelHandlerContext?
    /// A close the actor asked for while its answer still waited: done once the answer has gone.
    private var pendingClose: (mode: CloseMode, promise: EventLoopPromise<Void>?)?

    init(links: LiveLinks, id: Int, client: String, clientPort: Int, actor: String, port: Int) {
        (self.links, self.id, self.client, self.clientPort, self.actor, self.port) = (links, id, client, clientPort, actor, port)
    }

    /// Whether the direction `from` → `to` of a line covers this connection.
    func concerns(_ from: String, _ to: String) -> Bool {
        let clients: Set<String> = [client, LiveLinks.everyClient]
        return (clients.contains(from) && to == actor) || (from == actor && clients.contains(to))
    }

    var summary: String {
        "#\(id) \(client):\(clientPort) -> \(actor):\(port) (received \(received.load(ordering: .relaxed)) B, "
            + "sent \(sent.load(ordering: .relaxed)) B)"
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        links.opened(self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        links.closed(self)
        self.context = nil
        for (_, promise, _) in outbound.queue { promise?.fail(ChannelError.ioOnClosedChannel) }
        outbound = Lane()
        inbound = Lane()
    }

    func channelInactive(context: ChannelHandlerContext) {
        links.closed(self)
        inbound.timer?.cancel()
        outbound.timer?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        received.add(bytes.readableBytes, ordering: .relaxed)
        if !links.anyChanged, inbound.queue.isEmpty {
            context.fireChannelRead(data)
            return
        }
        enqueue(bytes, promise: nil, inbound: true)
        if inbound.bytes > Self.maximumWaitingBytes {
            context.channel.setOption(.autoRead, value: false).whenFailure { _ in }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Bytes that wait are announced when they are delivered.
        if inbound.queue.isEmpty { context.fireChannelReadComplete() }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let bytes = unwrapOutboundIn(data)
        if !links.anyChanged, outbound.queue.isEmpty {
            sent.add(bytes.readableBytes, ordering: .relaxed)
            context.write(data, promise: promise)
            return
        }
        enqueue(bytes, promise: promise, inbound: false)
    }

    func flush(context: ChannelHandlerContext) {
        // Bytes that wait are flushed when they leave.
        if outbound.queue.isEmpty { context.flush() }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode != .input, !outbound.queue.isEmpty else {
            context.close(mode: mode, promise: promise)
            return
        }
        pendingClose = (mode, promise)
    }

    // MARK: Conditions

    /// The link's state changed: waiting bytes may flow now, at the new conditions.
    func conditionsChanged() {
        guard let loop = context?.eventLoop else { return }
        loop.execute { self.pumpBoth() }
    }

    /// Resets the connection (RST, not FIN), as a middlebox would.
    func reset() {
        guard let loop = context?.eventLoop else { return }
        loop.execute { self.abort() }
    }

    private func abort() {
        guard let context else { return }
        // SO_LINGER with a zero timeout: close(2) sends RST and drops what is unsent.
        let channel = context.channel
        guard let socket = channel as? any SocketOptionProvider else {
            channel.close(promise: nil)
            return
        }
        socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
    }

    private func enqueue(_ bytes: ByteBuffer, promise: EventLoopPromise<Void>?, inbound isInbound: Bool) {
        if isInbound { inbound.queue.append((bytes, promise, nil)) } else { outbound.queue.append((bytes, promise, nil)) }
        pump(inbound: isInbound)
    }

    private func pumpBoth() {
        pump(inbound: true)
        pump(inbound: false)
    }

    /// Sends on what may go now, gives the rest its time to go, and waits for the earliest of those.
    ///
    /// The lane is brought up to date before anything is passed on: passing bytes on re-enters this handler (a write's
    /// promise, completed, makes the next write; a read makes a reply), and what that enqueues must find the lane as it
    /// now is, not be lost under a copy written back afterwards (that cut chunks out of a TLS stream under latency).
    private func pump(inbound isInbound: Bool) {
        var busy = false
        updateLane(isInbound) { lane in
            busy = lane.pumping
            if busy { lane.again = true } else { lane.pumping = true }
        }
        guard !busy else { return }
        var again = true
        while again {
            pumpOnce(inbound: isInbound)
            updateLane(isInbound) { lane in
                again = lane.again
                lane.again = false
                if !again { lane.pumping = false }
            }
        }
    }

    private func pumpOnce(inbound isInbound: Bool) {
        guard let context else { return }
        let state = links.state(client: client, actor: actor, inbound: isInbound)
        let now = NIODeadline.now()
        var ready: [(bytes: ByteBuffer, promise: EventLoopPromise<Void>?, due: NIODeadline?)] = []
        var resetAt: Int?
        updateLane(isInbound) { lane in
            lane.timer?.cancel()
            lane.timer = nil
            if lane.armed != state.resetAfterBytes {
                lane.armed = state.resetAfterBytes
                lane.carried = 0
            }
            guard !state.blocked else { return }
            while !lane.queue.isEmpty {
                var item = lane.queue[0]
                if item.due == nil {
                    // Its time: one latency draw for the chunk, then what the bandwidth allows after the one before it.
                    let latency = state.conditions.latency.sample(links.random)
                    var due = max(now + .nanoseconds(latency), lane.lastDue)
                    if let rate = state.conditions.bandwidth, rate > 0 {
                        due = due + .nanoseconds(Int64(item.bytes.readableBytes) * 1_000_000_000 / Int64(rate))
                    }
                    item.due = due
                    lane.lastDue = due
                    lane.queue[0] = item
                }
                guard let due = item.due, due <= now else { break }
                lane.queue.removeFirst()
                if let limit = state.resetAfterBytes, lane.carried + item.bytes.readableBytes >= limit {
                    resetAt = ready.count
                    ready.append(item)
                    return
                }
                lane.carried += item.bytes.readableBytes
                ready.append(item)
            }
        }
        for (index, item) in ready.enumerated() {
            if index == resetAt {
                links.disarmReset(from: isInbound ? client : actor, to: isInbound ? actor : client)
                links.disarmReset(from: isInbound ? LiveLinks.everyClient : actor, to: isInbound ? actor : LiveLinks.everyClient)
                item.promise?.fail(ChannelError.ioOnClosedChannel)
                abort()
                return
            }
            if isInbound {
                context.fireChannelRead(wrapInboundOut(item.bytes))
            } else {
                sent.add(item.bytes.readableBytes, ordering: .relaxed)
                context.write(wrapOutboundOut(item.bytes), promise: item.promise)
            }
        }
        guard self.context != nil else { return }
        if !ready.isEmpty {
            if isInbound { context.fireChannelReadComplete() } else { context.flush() }
        }
        let lane = isInbound ? inbound : outbound
        if isInbound, lane.queue.isEmpty, !ready.isEmpty {
            // Reading again if a long wait had stopped it.
            context.channel.setOption(.autoRead, value: true).whenFailure { _ in }
        }
        if let next = lane.queue.first?.due {
            let timer = context.eventLoop.scheduleTask(deadline: next) { self.pump(inbound: isInbound) }
            updateLane(isInbound) { lane in
                lane.timer?.cancel()
                lane.timer = timer
            }
        } else if !isInbound, lane.queue.isEmpty, let close = pendingClose {
            pendingClose = nil
            context.close(mode: close.mode, promise: close.promise)
        }
    }

    private func updateLane(_ isInbound: Bool, _ change: (inout Lane) -> Void) {
        if isInbound { change(&inbound) } else { change(&outbound) }
    }
}
