import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The live wiring: real loopback sockets, the machine's clocks and system-seeded randomness.
///
/// Actors listen on `bindHost` (loopback by default). Connecting to a node name by the port it asked for
/// reaches the port it really got, so a scenario written against `echo:7` also runs live.
public final class LiveWire: Sendable {
    /// The NIO event loops the nodes run on; a node keeps the one it was given for its whole life.
    public let group: MultiThreadedEventLoopGroup
    /// The fault points all the wire's nodes share; `chance` draws from the seed's `faults` stream.
    public let faults: FaultPoints
    /// The URL-scheme bus all the wire's nodes share, as the apps of one phone do.
    public let bus: URLBus
    /// Where the nodes' trace events go (a ``DiscardingTraceSink`` unless the initializer got another).
    public let tracer: any TraceSink
    /// The threads blocking work (files, SQLite, password hashing) runs on, off the event loops.
    public let threadPool: NIOThreadPool
    let network: LiveNetwork
    let time: LiveTime
    /// The conditions a live session sets between clients and the served actors.
    public let links: LiveLinks
    /// The seed of the nodes' behaviour streams (jitter, chance; never secrets, which come from the system), drawn from
    /// the system when the initializer got none.
    public let seed: UInt64
    private let loops = Mutex<[String: any EventLoop]>([:])
    private let skews = Mutex<[String: ClockSkew]>([:])

    /// A live wire: nodes on real NIO event loops and real sockets, actors listening on `bindHost`.
    ///
    /// - parameters:
    ///   - seed: seeds the nodes' random streams; `nil` draws one from the system.
    ///   - threads: how many event loop threads the nodes share (at least one), and the size of the thread pool
    ///     that runs blocking work (at least two).
    ///   - bindHost: the address actors listen on.
    ///   - tracer: where the nodes' trace events go; by default they are dropped.
    ///   - ephemeralPorts: every listener takes a free port the system picks, whatever port it asks for; connecting to
    ///     a node by the port it asked for still reaches it, and the listener names itself so, `NODE:PORT` (several runs
    ///     side by side, no port taken by another; only the wire's own clients, which resolve node names, reach it).
    ///   - epoch: the calendar time the nodes' clocks read at the start (nil: the machine's calendar); they run on
    ///     from there in real time (a live run starts where a simulated one does, so its dates are the same).
    ///   - namedClients: each client node connects from its own loopback address (127.0.0.2, .3, … in the order they
    ///     first connect), so a link a line sets between `laptop` and an actor acts on laptop's connections only.
    public init(
        seed: UInt64? = nil, threads: Int = System.coreCount, bindHost: String = "127.0.0.1",
        tracer: any TraceSink = DiscardingTraceSink(), ephemeralPorts: Bool = false, namedClients: Bool = false, epoch: Duration? = nil
    ) {
        self.time = LiveTime(epoch: epoch)
        self.seed = seed ?? UInt64.random(in: .min ... .max)
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, threads))
        self.tracer = tracer
        self.faults = FaultPoints(random: RandomStream(seed: self.seed, name: "faults"))
        self.bus = URLBus(tracer: tracer)
        self.links = LiveLinks(random: RandomStream(seed: self.seed, name: "links"))
        self.network = LiveNetwork(group: group, bindHost: bindHost, links: links, ephemeralPorts: ephemeralPorts, namedClients: namedClients)
        // As many threads as cores: the work is disk waits and hashing, and more threads than cores would only
        // queue fsyncs behind each other.
        self.threadPool = NIOThreadPool(numberOfThreads: max(2, threads))
        threadPool.start()
    }

    /// The node called `name`; a node keeps one event loop for its whole life.
    public func node(_ name: String) -> Node {
        network.know(name)
        let loop = loops.withLock { all in
            if let loop = all[name] { return loop }
            let loop = group.next()
            all[name] = loop
            return loop
        }
        return Node(
            name: name, eventLoop: loop, network: network, clock: NodeClock(source: time, skew: skew(of: name)),
            random: RandomStream(seed: seed, name: name), secrets: .system, faults: faults, bus: bus, tracer: tracer,
            blockingWork: .threads(threadPool))
    }

    /// The calendar offset of the node called `name` (a live session's `clock NODE skew D`).
    public func skew(of name: String) -> ClockSkew {
        skews.withLock { all in
            if let skew = all[name] { return skew }
            let skew = ClockSkew()
            all[name] = skew
            return skew
        }
    }

    /// Sends every connection made to `node` (whatever port) to `host:port` instead: an outside server standing in for
    /// the actor that would run there (`--target`).
    public func redirect(node: String, toHost host: String, port: Int) { network.redirect(node: node, toHost: host, port: port) }

    /// Sets every node's clock back on time; returns the nodes whose clocks were skewed, by name.
    public func healClocks() -> [String] {
        skews.withLock { all in
            all.keys.sorted().filter { name in
                guard let skew = all[name], skew.value != .zero else { return false }
                skew.set(.zero)
                return true
            }
        }
    }

    /// Time since the wire started, as every node's clock reads it (with what ``advance(by:)`` added).
    public var uptime: Duration { time.uptime }

    /// Moves every node's clock forward by `duration` at once (calendar and monotonic alike, libfaketime-like), and
    /// wakes the sleepers that became due. Timers armed on the event loops (I/O time-outs) keep their real deadlines.
    public func advance(by duration: Duration) { time.advance(by: duration) }

    /// Waits until every event loop has run the work queued on it now, and what that work queued in turn (a few
    /// rounds): what "run what is due" means on real threads (a message on the URL bus handled, its reply sent). Not on
    /// an event loop.
    public func settle() {
        for _ in 0..<3 {
            for loop in group.makeIterator() { try? loop.submit {}.wait() }
        }
    }

    /// Ends the clients' connections still open, then stops every event loop.
    public func shutdown() async throws {
        await network.clients.closeAll()
        try await group.shutdownGracefully()
        try await threadPool.shutdownGracefully()
    }
}

/// The machine's clocks, monotonic for uptime and real time for the calendar, with an offset `advance` adds to both.
final class LiveTime: TimeSource {
    let start = ContinuousClock.now
    let epoch: Duration

    init(epoch: Duration?) {
        self.epoch =
            epoch
            ?? {
                var spec = timespec()
                clock_gettime(CLOCK_REALTIME, &spec)
                return .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec))
            }()
    }

    private struct Sleepers {
        var next = 0
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
        var cancelled: Set<Int> = []
    }

    private let offset = Mutex<Duration>(.zero)
    private let sleepers = Mutex(Sleepers())
    private let timers = LiveTimers()

    func schedule(on loop: any EventLoop, in delay: TimeAmount, _ body: @escaping @Sendable () -> Void) -> NodeTimer {
        timers.schedule(on: loop, at: uptime + .nanoseconds(delay.nanoseconds), in: delay, body)
    }

    var uptime: Duration { ContinuousClock.now - start + offset.withLock { $0 } }

    func advance(by duration: Duration) {
        offset.withLock { $0 += duration }
        let woken = sleepers.withLock { all in
            defer { all.waiting = [:] }
            return Array(all.waiting.values)
        }
        for sleeper in woken { sleeper.resume() }
        timers.clockJumped(to: uptime)
    }

    func sleep(untilUptime deadline: Duration) async throws {
        while uptime < deadline {
            try Task.checkCancellation()
            let remaining = deadline - uptime
            // The wall clock's sleep, or an `advance` that may have made the deadline due, whichever comes first.
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await ContinuousClock().sleep(for: remaining) }
                group.addTask { await self.nextAdvance() }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Returns at the next `advance`, or when the task is cancelled.
    private func nextAdvance() async {
        let id = sleepers.withLock { all in
            defer { all.next += 1 }
            return all.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let early = sleepers.withLock { all in
                    if all.cancelled.remove(id) != nil { return true }
                    all.waiting[id] = continuation
                    return false
                }
                if early { continuation.resume() }
            }
        } onCancel: {
            let waiting = sleepers.withLock { all in
                guard let continuation = all.waiting.removeValue(forKey: id) else {
                    all.cancelled.insert(id)
                    return nil as CheckedContinuation<Void, Never>?
                }
                return continuation
            }
            waiting?.resume()
        }
    }
}

/// Real TCP on loopback, with node names mapped to the ports their actors bound.
final class LiveNetwork: Network {
    let group: MultiThreadedEventLoopGroup
    let bindHost: String
    let links: LiveLinks
    let ephemeralPorts: Bool
    let namedClients: Bool
    private let aliases = Mutex<[String: Int]>([:])
    /// The wire's nodes by name: with ephemeral ports, a node's port nothing listens on refuses (as on the simulated
    /// wire), where a name the resolver does not know would be an unknown host.
    private let nodes = Mutex<Set<String>>([])

    private let redirects = Mutex<[String: (host: String, port: Int)]>([:])
    /// The clients' connections still open, to end at shutdown (``ClientEnds/closeAll()``).
    let clients = ClientEnds()

    func redirect(node: String, toHost host: String, port: Int) { redirects.withLock { $0[node] = (host, port) } }

    func know(_ node: String) {
        if ephemeralPorts { _ = nodes.withLock { $0.insert(node) } }
    }
    /// The loopback address each client node connects from (``LiveWire/init(seed:threads:bindHost:tracer:ephemeralPorts:namedClients:)``).
    private let clientAddresses = Mutex<[String: String]>([:])

    init(group: MultiThreadedEventLoopGroup, bindHost: String, links: LiveLinks, ephemeralPorts: Bool, namedClients: Bool) {
        self.group = group
        self.bindHost = bindHost
        self.links = links
        self.ephemeralPorts = ephemeralPorts
        self.namedClients = namedClients
    }

    /// The address `node` connects from, given on its first connection (nil: the system's choice).
    private func address(of node: String) -> String? {
        guard namedClients else { return nil }
        return clientAddresses.withLock { all in
            if let address = all[node] { return address }
            // 127.0.0.2 onwards: 127.0.0.1 stays the address of everything else (real tools).
            let number = all.count + 2
            let address = "127.\(number / 65_536 % 256).\(number / 256 % 256).\(number % 256)"
            all[node] = address
            links.name(address: address, node: node)
            return address
        }
    }

    /// A target's server for its node, an actor's loopback port for a node's port, else the name as the machine
    /// resolves it; nil for a node's port nothing listens on (refused, as on the simulated wire).
    func machineAddress(host: String, port: Int) -> (host: String, port: Int)? {
        if let redirect = redirects.withLock({ $0[host] }) { return redirect }
        if let alias = aliases.withLock({ $0["\(host):\(port)"] }) { return (bindHost, alias) }
        if ephemeralPorts, nodes.withLock({ $0.contains(host) }) { return nil }
        return (host, port)
    }

    func connect(
        from: String, host: String, port: Int, timeout: TimeAmount, on eventLoop: any EventLoop,
        initializer: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
    ) -> EventLoopFuture<any Channel> {
        guard namedClients else { return open(from: from, host: host, port: port, timeout: timeout, on: eventLoop, initializer: initializer) }
        guard links.isPartitioned(from, host) else {
            // The handshake's round trip, which the link layer (after the kernel has accepted) cannot delay: the SYN's
            // way out and the SYN-ACK's way back, as the simulated network times them.
            let handshake = links.handshakeNanoseconds(client: from, actor: host)
            guard handshake > 0 else { return open(from: from, host: host, port: port, timeout: timeout, on: eventLoop, initializer: initializer) }
            return eventLoop.scheduleTask(in: .nanoseconds(handshake)) {}.futureResult.flatMap {
                self.open(from: from, host: host, port: port, timeout: timeout - .nanoseconds(handshake), on: eventLoop, initializer: initializer)
            }
        }
        // The workbench's own client into a partition: its SYNs are lost until the path heals or the connect times out,
        // as on the simulated wire (a real tool's connection is accepted by the kernel, and its bytes wait instead).
        let promise = eventLoop.makePromise(of: (any Channel).self)
        let deadline = NIODeadline.now() + timeout
        @Sendable func retry() {
            if !links.isPartitioned(from, host) {
                open(from: from, host: host, port: port, timeout: deadline - .now(), on: eventLoop, initializer: initializer).cascade(to: promise)
            } else if NIODeadline.now() >= deadline {
                promise.fail(WireError(.timedOut, "\(host):\(port)"))
            } else {
                eventLoop.scheduleTask(in: .milliseconds(20)) { retry() }
            }
        }
        eventLoop.execute { retry() }
        return promise.futureResult
    }

    private func open(
        from: String, host: String, port: Int, timeout: TimeAmount, on eventLoop: any EventLoop,
        initializer: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
    ) -> EventLoopFuture<any Channel> {
        guard let target = machineAddress(host: host, port: port) else {
            return eventLoop.makeFailedFuture(WireError(.refused, "\(host):\(port)"))
        }
        var bootstrap = ClientBootstrap(group: eventLoop)
        // A client's own loopback address only towards the wire's actors: an outside server may not be on loopback.
        if target.0 == bindHost, let source = address(of: from), let local = try? SocketAddress(ipAddress: source, port: 0) {
            bootstrap = bootstrap.bind(to: local)
        }
        return
            bootstrap
            .connectTimeout(timeout)
            .channelOption(.allowRemoteHalfClosure, value: true)
            .channelInitializer { [clients] channel in
                channel.pipeline.addHandler(ClientEnd(clients)).flatMap { initializer(channel) }
            }
            .connect(host: target.0, port: target.1)
            .flatMapErrorThrowing { error in throw Self.translate(error, host: host, port: port) }
            .map { $0 as any Channel }
    }

    /// Connections waiting to be accepted, per listener.
    static let acceptBacklog: Int32 = 4096

    func listen(
        as host: String, port: Int, on eventLoop: any EventLoop, connections: ConnectionLoops,
        childInitializer: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
    ) -> EventLoopFuture<any Listener> {
        let childGroup: any EventLoopGroup =
            switch connections {
            case .home: eventLoop
            case .every: group
            }
        return ServerBootstrap(group: eventLoop, childGroup: childGroup)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // NIO's default accept queue of 128 overflowed when a few hundred clients connected at once (bench load's
            // 200: thousands of ListenOverflows): the kernel dropped their SYNs and each client waited out a 1 s
            // (then 3 s) SYN retransmission — SCPms, which opens a connection per request, showed p50 1.2 s on an
            // idle server. The kernel caps this at net.core.somaxconn.
            .serverChannelOption(.backlog, value: Self.acceptBacklog)
            // No half-closure for accepted connections, as on the simulated wire: when a client closes its side the
            // connection closes, unless the actor opts in itself (the TCP echo does). With it on for every actor, a
            // client's FIN reached HTTP and SSH handlers that ignore it, so each finished keep-alive connection
            // stayed open in CLOSE_WAIT until an idle timer (30–60 s) or for good (the HTTP echo, SSH sessions):
            // under `bench load` serve held one descriptor per past request.
            // The link layer first, nearest the socket, so what a scenario sets between a client and this actor acts
            // on the bytes as a network would, under TLS and every protocol.
            .childChannelInitializer { [links] channel in
                let peer = channel.remoteAddress
                let local = channel.localAddress?.port ?? port
                let handler = links.handler(client: peer?.ipAddress ?? "?", clientPort: peer?.port ?? 0, actor: host, port: local)
                return channel.pipeline.addHandler(handler).flatMap { childInitializer(channel) }
            }
            .bind(host: bindHost, port: ephemeralPorts ? 0 : port)
            .flatMapErrorThrowing { error in
                if let io = error as? IOError, io.errnoCode == EADDRINUSE {
                    throw WireError(.addressInUse, "\(self.bindHost):\(port)")
                }
                throw error
            }
            .map { channel in
                let bound = channel.localAddress?.port ?? port
                self.aliases.withLock { all in
                    all["\(host):\(port)"] = bound
                    all["\(host):\(bound)"] = bound
                }
                // With ephemeral ports the wire's own clients are its only clients: they reach a listener by its node
                // and the port it asked for, as on the simulated wire (and TLS names the node, as its certificate does).
                if self.ephemeralPorts { return LiveListener(channel: channel, host: host, port: port == 0 ? bound : port) as any Listener }
                return LiveListener(channel: channel, host: self.bindHost, port: bound) as any Listener
            }
    }

    private static func translate(_ error: any Error, host: String, port: Int) -> any Error {
        if let connect = error as? NIOConnectionError {
            if connect.dnsAAAAError != nil || connect.dnsAError != nil, connect.connectionErrors.isEmpty {
                return WireError(.unknownHost, host)
            }
            if connect.connectionErrors.contains(where: { ($0.error as? IOError)?.errnoCode == ECONNREFUSED }) {
                return WireError(.refused, "\(host):\(port)")
            }
        }
        if case ChannelError.connectTimeout = error { return WireError(.timedOut, "\(host):\(port)") }
        return error
    }
}

struct LiveListener: Listener {
    let channel: any Channel
    let host: String
    let port: Int
    func close() -> EventLoopFuture<Void> { channel.close() }
}

/// The clients' open connections. A TLS client that closed its side waits for the server's close_notify up to its
/// shutdown time-out (5 s); when the server went first (an actor stopped, a keep-alive ended), its FIN comes as a
/// half-closure the TLS handler does not act on, and the connection lingers in CLOSE_WAIT until that timer — which the
/// loops' shutdown then waits out. Closed from the socket's end at shutdown, they end at once.
final class ClientEnds: Sendable {
    private let open = Mutex<[ObjectIdentifier: ClientEnd]>([:])

    func opened(_ end: ClientEnd) { open.withLock { $0[ObjectIdentifier(end)] = end } }
    func closed(_ end: ClientEnd) { _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(end)) } }

    func closeAll() async {
        for end in open.withLock({ Array($0.values) }) { await end.close() }
    }
}

/// The first handler of a client connection: closes it at the socket, past the handlers above it.
final class ClientEnd: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny
    private let ends: ClientEnds
    /// Its place in the pipeline, usable only on the connection's loop.
    private let context = Mutex<NIOLoopBound<ChannelHandlerContext>?>(nil)

    init(_ ends: ClientEnds) { self.ends = ends }

    func handlerAdded(context: ChannelHandlerContext) {
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        self.context.withLock { $0 = bound }
        ends.opened(self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context.withLock { $0 = nil }
        ends.closed(self)
    }

    func close() async {
        guard let bound = context.withLock({ $0 }) else { return }
        try? await bound.eventLoop.submit { bound.value.close(promise: nil) }.get()
    }
}
