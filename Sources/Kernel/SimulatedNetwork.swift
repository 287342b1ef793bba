import NIOCore
import Wire

#if canImport(Glibc)
    import Glibc
#endif

/// The simulated network: named hosts, listening ports, and TCP-like byte-stream connections whose timing
/// and failures are decided by per-direction link conditions and the scenario's faults.
///
/// What it models: connect / accept / refused / unknown host; SYN retries while a link is partitioned and
/// a connect timeout; ordered delivery with sampled latency and a bandwidth limit (segments queue behind
/// each other); receive windows (a reader that stops reading stalls the writer); half-close; reset;
/// partitions in one or both directions (data waits, and the sender gives up with `ETIMEDOUT` after
/// ``retransmissionTimeout``); hold and release of a link (data waits without timing out).
///
/// Confined to the simulation loop: public mutators are called from directives running on the loop, or
/// from the driving thread while the loop is not running.
public final class SimulatedNetwork: Network, LinkControl, @unchecked Sendable {
    // @unchecked Sendable: confined to the simulation loop (see above).

    enum Segment {
        case data(ByteBuffer)
        case fin

        var size: Int {
            switch self {
            case .data(let bytes): bytes.readableBytes
            case .fin: 0
            }
        }
    }

    /// Timing state of one direction of one connection.
    struct Direction {
        var busyUntil: Int64 = 0
        var lastArrival: Int64 = 0
    }

    private struct LinkState {
        var conditions: LinkConditions
        var partitioned = false
        var held = false
        var resetAfterBytes: Int? = nil
        var blocked: Bool { partitioned || held }
    }

    private struct ListenerEntry {
        let id: Int
        let childInitializer: @Sendable (any Channel) -> EventLoopFuture<Void>
    }

    private struct Parked {
        let channel: SimulatedChannel
        let segment: Segment
    }

    let loop: SimulationLoop
    private let random: RandomStream
    private let tracer: any TraceSink

    /// Conditions of every direction without its own.
    public var defaultConditions = LinkConditions()
    /// How long a sender keeps retransmitting into a partition before failing with `ETIMEDOUT`.
    public var retransmissionTimeout: Int64 = 60_000_000_000

    private var hosts: Set<String> = []
    private var addresses: [String: SocketAddress] = [:]
    private var listeners: [String: ListenerEntry] = [:]
    private var links: [String: LinkState] = [:]
    private var parked: [String: [Parked]] = [:]
    private var open: [Int: SimulatedChannel] = [:]
    private var nextConnectionID = 1
    /// Hosts whose power was cut during a write (``silence(host:)``): nothing they send leaves them, no connection
    /// reaches them, until their crash.
    private var silenced: Set<String> = []
    /// The pairs of hosts a connection was ever opened between (either way), each as (A, B) with A < B, sorted: the
    /// links that carry the run's traffic, where a fault can matter. Kept as connections open, since a swarm's
    /// schedule asks before every statement.
    public private(set) var usedLinks: [(String, String)] = []
    private var used: Set<String> = []
    private var nextListenerID = 1
    private var nextEphemeralPort: [String: Int] = [:]
    /// Told of every run of bytes a host sends on a link (`from`, `to`, how many), as the link's byte-counting faults
    /// count them: a swarm learns from one run where a workload's messages fall, to aim its cuts at them. Nil (the
    /// default) costs nothing.
    public var onData: ((_ from: String, _ to: String, _ bytes: Int) -> Void)?

    init(loop: SimulationLoop, random: RandomStream, tracer: any TraceSink) {
        self.loop = loop
        self.random = random
        self.tracer = tracer
    }

    // MARK: Hosts and links

    /// Makes a host name resolvable (every node is a host).
    public func addHost(_ name: String) {
        hosts.insert(name)
    }

    /// Every host, by name.
    public var hostNames: [String] { hosts.sorted() }

    /// Gives a host a fixed IP address, as seen by the peers it connects to (a phone on a carrier network, say, for
    /// an actor that filters by address). Connections made afterwards carry it.
    ///
    /// - throws: `WireError` when `address` is not an IPv4 or IPv6 address.
    public func setAddress(_ address: String, of host: String) throws {
        guard let parsed = try? SocketAddress(ipAddress: address, port: 0) else {
            throw WireError(.unknownHost, "'\(address)' is not an IPv4 or IPv6 address")
        }
        addHost(host)
        addresses[host] = parsed
        trace("address", [("host", host), ("address", address)])
    }

    /// The address of `host` on `port`: the one set with ``setAddress(_:of:)``, else a stable 10.x.y.z derived from
    /// the name, so traces and logs never change between runs.
    func socketAddress(of host: String, port: Int) -> SocketAddress {
        if let fixed = addresses[host], let ip = fixed.ipAddress, let address = try? SocketAddress(ipAddress: ip, port: port) {
            return address
        }
        let hash = RandomStream.fnv1a(host)
        let ip = "10.\((hash >> 16) & 0xFF).\((hash >> 8) & 0xFF).\(max(1, hash & 0xFE))"
        // Cannot fail: the text is four octets.
        return (try? SocketAddress(ipAddress: ip, port: port)) ?? SocketAddress(Self.unspecified(port: port), host: host)
    }

    private static func unspecified(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
        return address
    }

    /// Sets the conditions of the direction `from` → `to`.
    public func setConditions(from: String, to: String, _ conditions: LinkConditions) {
        update(from, to) { $0.conditions = conditions }
        trace("link", [("from", from), ("to", to), ("conditions", conditions.description)])
    }

    /// The conditions of the direction `from` → `to`.
    public func conditions(from: String, to: String) -> LinkConditions {
        links[key(from, to)]?.conditions ?? defaultConditions
    }

    /// Cuts (or heals) the direction `from` → `to`. Traffic waits; senders time out after the retransmission timeout.
    public func setPartitioned(from: String, to: String, _ partitioned: Bool) {
        update(from, to) { $0.partitioned = partitioned }
        trace(partitioned ? "partition" : "heal", [("from", from), ("to", to)])
        if !partitioned { releaseParked(from, to) }
    }

    /// Holds (or releases) traffic on the direction `from` → `to`. Held traffic never times out.
    public func setHeld(from: String, to: String, _ held: Bool) {
        update(from, to) { $0.held = held }
        trace(held ? "hold" : "release", [("from", from), ("to", to)])
        if !held { releaseParked(from, to) }
    }

    /// Arms a reset of the connection that carries the `bytes`-th byte from `from` to `to` from now on.
    public func resetAfter(bytes: Int, from: String, to: String) {
        update(from, to) { $0.resetAfterBytes = bytes }
        trace("reset-armed", [("after-bytes", String(bytes)), ("from", from), ("to", to)])
    }

    private func noteUse(_ a: String, _ b: String) {
        let ends = a < b ? (a, b) : (b, a)
        guard used.insert(key(ends.0, ends.1)).inserted else { return }
        let index = usedLinks.firstIndex { ($0.0, $0.1) > ends } ?? usedLinks.count
        usedLinks.insert(ends, at: index)
    }

    /// Ends every fault on every path at once: partitions healed, holds released, armed resets disarmed and
    /// conditions back to the defaults, so waiting traffic flows (a swarm's `after heal`).
    ///
    /// - returns: how many directions it changed.
    @discardableResult
    public func healAll() -> Int {
        var changed = 0
        for linkKey in links.keys.sorted() {
            guard var state = links[linkKey],
                state.partitioned || state.held || state.resetAfterBytes != nil || state.conditions != defaultConditions
            else { continue }
            state.partitioned = false
            state.held = false
            state.resetAfterBytes = nil
            state.conditions = defaultConditions
            links[linkKey] = state
            changed += 1
            let ends = linkKey.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
            releaseParked(ends[0], ends[1])
        }
        return changed
    }

    /// Resets every open connection between `a` and `b` (both directions), as a middlebox would.
    ///
    /// - returns: how many connections were reset.
    @discardableResult
    public func resetConnections(between a: String, and b: String) -> Int {
        let victims = open.keys.sorted().compactMap { open[$0] }.filter {
            ($0.localHost == a && $0.remoteHost == b) || ($0.localHost == b && $0.remoteHost == a)
        }
        var reset = Set<Int>()
        for channel in victims where !reset.contains(channel.connectionID) {
            reset.insert(channel.connectionID)
            resetConnection(channel, reason: "reset by scenario")
        }
        return reset.count
    }

    /// `host` has lost its power in the middle of a step: from now until its ``crash(host:)`` nothing it sends leaves
    /// it (an answer it writes after the cut never goes out, a connection it opens never does) and nothing reaches it.
    public func silence(host: String) {
        silenced.insert(host)
    }

    /// Ends every connection and listener of `host` at once, as its machine losing its power would: each open
    /// connection with one end on it is reset (both ends), and each of its ports stops listening (the actor's own later
    /// close of them does nothing).
    ///
    /// - returns: how many connections were reset.
    @discardableResult
    public func crash(host: String) -> Int {
        for address in listeners.keys.sorted() where address.hasPrefix(host + ":") {
            listeners[address] = nil
            trace("unlisten", [("address", address)])
        }
        let victims = open.keys.sorted().compactMap { open[$0] }.filter { $0.localHost == host || $0.remoteHost == host }
        var reset = Set<Int>()
        for channel in victims where !reset.contains(channel.connectionID) {
            reset.insert(channel.connectionID)
            resetConnection(channel, reason: "\(host) crashed")
        }
        silenced.remove(host)
        return reset.count
    }

    /// Open connections, one line each (for the console).
    public var connectionSummaries: [String] {
        open.keys.sorted().compactMap { id -> String? in
            guard let c = open[id] else { return nil }
            return
                "#\(id) \(c.localHost):\(c.local.port ?? 0) -> \(c.remoteHost):\(c.remote.port ?? 0) (\(c.role.rawValue), sent \(c.bytesSent) B, received \(c.bytesReceived) B)"
        }
    }

    /// The directions whose state differs from the defaults, one line each, in name order.
    public var linkSummaries: [String] {
        links.keys.sorted().compactMap { linkKey -> String? in
            guard let state = links[linkKey],
                state.partitioned || state.held || state.resetAfterBytes != nil || state.conditions != defaultConditions
            else { return nil }
            let ends = linkKey.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
            return LinkConditions.summary(
                from: ends[0], to: ends[1], state.conditions, partitioned: state.partitioned, held: state.held,
                resetAfterBytes: state.resetAfterBytes)
        }
    }

    private func key(_ from: String, _ to: String) -> String { from + "\u{1F}" + to }

    private func update(_ from: String, _ to: String, _ change: (inout LinkState) -> Void) {
        var state = links[key(from, to)] ?? LinkState(conditions: defaultConditions)
        change(&state)
        links[key(from, to)] = state
    }

    private func link(_ from: String, _ to: String) -> LinkState {
        links[key(from, to)] ?? LinkState(conditions: defaultConditions)
    }

    // MARK: Network

    /// Accepts connections to `port` of host `host` (0 picks a free port), running `childInitializer` on each accepted
    /// channel; the future fails with `WireError` `.addressInUse` when a listener already holds the port. Every
    /// simulated channel runs on the kernel's loop, whatever `eventLoop` and `connections` say.
    public func listen(
        as host: String, port: Int, on eventLoop: any EventLoop, connections: ConnectionLoops,
        childInitializer: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
    ) -> EventLoopFuture<any Listener> {
        loop.submit { () throws -> any Listener in
            self.addHost(host)
            let bound = port == 0 ? self.ephemeralPort(host) : port
            let address = "\(host):\(bound)"
            guard self.listeners[address] == nil else { throw WireError(.addressInUse, address) }
            let id = self.nextListenerID
            self.nextListenerID += 1
            self.listeners[address] = ListenerEntry(id: id, childInitializer: childInitializer)
            self.trace("listen", [("address", address)])
            return SimulatedListener(network: self, host: host, port: bound, id: id)
        }
    }

    func closeListener(host: String, port: Int, id: Int) {
        let address = "\(host):\(port)"
        guard listeners[address]?.id == id else { return }
        listeners[address] = nil
        trace("unlisten", [("address", address)])
    }

    /// Opens a connection from host `from` to `host:port`, running `initializer` on the client channel first; the
    /// future fails with `WireError` (`.unknownHost`, `.refused`, `.timedOut` once `timeout` of virtual time passed)
    /// or the initializer's error. The channel runs on the kernel's loop, whatever `eventLoop` says.
    public func connect(
        from: String, host: String, port: Int, timeout: TimeAmount, on eventLoop: any EventLoop,
        initializer: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
    ) -> EventLoopFuture<any Channel> {
        let promise = loop.makePromise(of: (any Channel).self)
        loop.execute {
            self.addHost(from)
            let id = self.nextConnectionID
            self.nextConnectionID += 1
            guard self.hosts.contains(host) else {
                self.trace("unknown-host", [("conn", String(id)), ("from", from), ("to", "\(host):\(port)")])
                promise.fail(WireError(.unknownHost, host))
                return
            }
            let client = SimulatedChannel(
                network: self, connectionID: id, role: .client, localHost: from, localPort: self.ephemeralPort(from),
                remoteHost: host, remotePort: port)
            self.trace("connect", [("conn", String(id)), ("from", from), ("to", "\(host):\(port)")])
            self.noteUse(from, host)
            client.register(initializer: initializer).whenComplete { result in
                switch result {
                case .failure(let error):
                    client.abort(error: error)
                    promise.fail(error)
                case .success:
                    let attempt = ConnectAttempt(
                        client: client, promise: promise,
                        deadline: self.loop.nanoseconds + timeout.nanoseconds)
                    self.loop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(attempt.deadline))) {
                        attempt.timeOut(self)
                    }
                    self.sendSyn(attempt, number: 0)
                }
            }
        }
        return promise.futureResult
    }

    /// One connection being established.
    private final class ConnectAttempt: @unchecked Sendable {
        // @unchecked Sendable: confined to the simulation loop.
        let client: SimulatedChannel
        let promise: EventLoopPromise<any Channel>
        let deadline: Int64
        var settled = false

        init(client: SimulatedChannel, promise: EventLoopPromise<any Channel>, deadline: Int64) {
            self.client = client
            self.promise = promise
            self.deadline = deadline
        }

        func timeOut(_ network: SimulatedNetwork) {
            guard !settled else { return }
            settled = true
            network.trace("connect-timeout", [("conn", String(client.connectionID))])
            client.abort(error: WireError(.timedOut, "\(client.remoteHost):\(client.remote.port ?? 0)"))
            promise.fail(WireError(.timedOut, "\(client.remoteHost):\(client.remote.port ?? 0)"))
        }
    }

    private func sendSyn(_ attempt: ConnectAttempt, number: Int) {
        guard !attempt.settled else { return }
        let client = attempt.client
        // A host without power sends no SYN (its connect times out, if its crash does not end it first).
        guard !silenced.contains(client.localHost) else { return }
        let path = link(client.localHost, client.remoteHost)
        if path.blocked {
            // Lost SYN: retry after 1 s, 2 s, 4 s… like a TCP stack, until the connect timeout.
            let retry = loop.nanoseconds + (1_000_000_000 << min(number, 6))
            if retry < attempt.deadline {
                loop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(retry))) { self.sendSyn(attempt, number: number + 1) }
            }
            return
        }
        let arrival = arrivalTime(of: 0, on: &client.outbound, conditions: path.conditions)
        loop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(arrival))) { self.synArrived(attempt) }
    }

    private func synArrived(_ attempt: ConnectAttempt) {
        guard !attempt.settled else { return }
        let client = attempt.client
        let port = client.remote.port ?? 0
        // A host without power answers no SYN: the client tries again, as it would a lost one.
        guard !silenced.contains(client.remoteHost) else { return }
        let back = link(client.remoteHost, client.localHost)
        guard let listener = listeners["\(client.remoteHost):\(port)"] else {
            var direction = Direction()
            let arrival = arrivalTime(of: 0, on: &direction, conditions: back.conditions)
            loop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(arrival))) {
                guard !attempt.settled else { return }
                attempt.settled = true
                self.trace("refused", [("conn", String(client.connectionID))])
                let error = WireError(.refused, "\(client.remoteHost):\(port)")
                client.abort(error: error)
                attempt.promise.fail(error)
            }
            return
        }
        let server = SimulatedChannel(
            network: self, connectionID: client.connectionID, role: .server, localHost: client.remoteHost,
            localPort: port, remoteHost: client.localHost, remotePort: client.local.port ?? 0)
        server.peer = client
        client.peer = server
        open[client.connectionID] = client
        trace("accept", [("conn", String(client.connectionID)), ("on", "\(client.remoteHost):\(port)")])
        server.register(initializer: listener.childInitializer).whenComplete { result in
            switch result {
            case .failure(let error):
                self.trace("accept-failed", [("conn", String(client.connectionID)), ("error", String(describing: error))])
                self.abort(server, error: IOError(errnoCode: ECONNRESET, reason: "read"), reason: "server initializer failed")
                // The reset travels back where the SYN-ACK would have, and the client's connect fails with it.
                let arrival = self.arrivalTime(of: 0, on: &server.outbound, conditions: back.conditions)
                self.loop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(arrival))) {
                    guard !attempt.settled else { return }
                    attempt.settled = true
                    let reset = WireError(.reset, "\(client.remoteHost):\(port)")
                    self.abort(client, error: reset, reason: "server initializer failed")
                    attempt.promise.fail(reset)
                }
            case .success:
                // SYN-ACK travels first on the server's direction, so nothing the server says can overtake it. It is
                // scheduled before the server is activated: a server that speaks first (SSH) sends at the same instant.
                let arrival = self.arrivalTime(of: 0, on: &server.outbound, conditions: back.conditions)
                self.loop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(arrival))) {
                    guard !attempt.settled else {
                        self.abort(server, error: IOError(errnoCode: ECONNRESET, reason: "read"), reason: "client gave up")
                        return
                    }
                    attempt.settled = true
                    self.trace("connected", [("conn", String(client.connectionID))])
                    client.activate()
                    attempt.promise.succeed(client)
                }
                server.activate()
            }
        }
    }

    // MARK: Segments

    /// Sends one segment from `channel` to its peer, subject to the link's conditions and faults.
    func send(_ segment: Segment, from channel: SimulatedChannel) {
        guard !silenced.contains(channel.localHost) else { return }
        let linkKey = key(channel.localHost, channel.remoteHost)
        var path = link(channel.localHost, channel.remoteHost)
        if path.blocked {
            let wasEmpty = !(parked[linkKey]?.contains { $0.channel === channel } ?? false)
            parked[linkKey, default: []].append(Parked(channel: channel, segment: segment))
            if path.partitioned, wasEmpty { armRetransmissionTimeout(channel, linkKey: linkKey) }
            return
        }
        if let onData, case .data(let bytes) = segment { onData(channel.localHost, channel.remoteHost, bytes.readableBytes) }
        var segment = segment
        var resetAfterDelivery = false
        if let limit = path.resetAfterBytes, case .data(var bytes) = segment {
            if bytes.readableBytes >= limit {
                segment = .data(bytes.readSlice(length: limit)!)
                resetAfterDelivery = true
                path.resetAfterBytes = nil
            } else {
                path.resetAfterBytes = limit - bytes.readableBytes
            }
            links[linkKey] = path
        }
        let arrival = arrivalTime(of: segment.size, on: &channel.outbound, conditions: path.conditions)
        let delivered = segment
        let thenReset = resetAfterDelivery
        loop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(arrival))) {
            channel.peer?.receive(delivered)
            if thenReset { self.resetConnection(channel, reason: "reset fault after bytes") }
        }
    }

    private func arrivalTime(of size: Int, on direction: inout Direction, conditions: LinkConditions) -> Int64 {
        let now = loop.nanoseconds
        let start = max(now, direction.busyUntil)
        let transmission = conditions.bandwidth.map { Int64((Double(size) * 1e9 / Double(max($0, 1))).rounded(.up)) } ?? 0
        direction.busyUntil = start + transmission
        // TCP delivers in order: a segment never arrives before the one sent before it.
        let arrival = max(start + transmission + conditions.latency.sample(random), direction.lastArrival)
        direction.lastArrival = arrival
        return arrival
    }

    private func releaseParked(_ from: String, _ to: String) {
        let linkKey = key(from, to)
        guard !link(from, to).blocked, let waiting = parked.removeValue(forKey: linkKey) else { return }
        for item in waiting where item.channel.peer != nil {
            send(item.segment, from: item.channel)
        }
    }

    private func armRetransmissionTimeout(_ channel: SimulatedChannel, linkKey: String) {
        loop.scheduleTask(in: .nanoseconds(retransmissionTimeout)) {
            guard self.links[linkKey]?.partitioned == true,
                self.parked[linkKey]?.contains(where: { $0.channel === channel }) == true
            else { return }
            self.parked[linkKey]?.removeAll { $0.channel === channel }
            // Only the sender notices; the receiver just hears nothing more, as with a real partition.
            self.abort(channel, error: IOError(errnoCode: ETIMEDOUT, reason: "write"), reason: "retransmission timeout")
        }
    }

    // MARK: Failures and closing

    /// Resets both ends of `channel`'s connection now.
    func resetConnection(_ channel: SimulatedChannel, reason: String) {
        let peer = channel.peer
        abort(channel, error: IOError(errnoCode: ECONNRESET, reason: "read"), reason: reason)
        if let peer { abort(peer, error: IOError(errnoCode: ECONNRESET, reason: "read"), reason: reason) }
    }

    func abort(_ channel: SimulatedChannel?, error: any Error, reason: String) {
        guard let channel, channel.isOpen else { return }
        trace("reset", [("conn", String(channel.connectionID)), ("end", channel.localHost), ("reason", reason)])
        channel.abort(error: error)
    }

    /// Ends the network's life with its kernel's: aborts both ends of every open connection (their handlers fail what
    /// they wait for) and forgets the listeners and the parked segments. The connections and listeners hold the
    /// actors, which hold their nodes and through them the loop and this network: a cycle that kept every run's
    /// world alive.
    func tearDown() {
        for id in open.keys.sorted() {
            guard let channel = open[id] else { continue }
            // Both ends: an open channel and its pipeline hold each other until it closes.
            let peer = channel.peer
            channel.abort(error: EventLoopError.shutdown)
            peer?.abort(error: EventLoopError.shutdown)
        }
        open = [:]
        listeners = [:]
        parked = [:]
        onData = nil
    }

    /// Called by a channel when it has closed.
    func closed(_ channel: SimulatedChannel) {
        trace(
            "close",
            [
                ("conn", String(channel.connectionID)), ("end", channel.localHost),
                ("received", String(channel.bytesReceived)), ("sent", String(channel.bytesSent)),
            ])
        if let peer = channel.peer, peer.isOpen { return }
        open[channel.connectionID] = nil
    }

    private func ephemeralPort(_ host: String) -> Int {
        let port = nextEphemeralPort[host] ?? 49_152
        nextEphemeralPort[host] = port == 65_535 ? 49_152 : port + 1
        return port
    }

    private func trace(_ event: String, _ fields: [(String, String)]) {
        tracer.record(actor: "net", event: event, fields: fields)
    }

    /// The events the network records (as `net`): what a scenario's `expect trace` may name of it.
    public static let traceEvents: [TraceEventDeclaration] = [
        .event("address", fields: "address", "host"),
        .event("link", fields: "conditions", "from", "to"),
        .event("partition", fields: "from", "to"),
        .event("heal", fields: "from", "to"),
        .event("hold", fields: "from", "to"),
        .event("release", fields: "from", "to"),
        .event("reset-armed", fields: "after-bytes", "from", "to"),
        .event("listen", fields: "address"),
        .event("unlisten", fields: "address"),
        .event("unknown-host", fields: "conn", "from", "to"),
        .event("connect", fields: "conn", "from", "to"),
        .event("connect-timeout", fields: "conn"),
        .event("refused", fields: "conn"),
        .event("accept", fields: "conn", "on"),
        .event("accept-failed", fields: "conn", "error"),
        .event("connected", fields: "conn"),
        .event("reset", fields: "conn", "end", "reason"),
        .event("close", fields: "conn", "end", "received", "sent"),
    ]
}

/// A listening port on a simulated host.
struct SimulatedListener: Listener {
    let network: SimulatedNetwork
    let host: String
    let port: Int
    let id: Int

    func close() -> EventLoopFuture<Void> {
        network.loop.submit { network.closeListener(host: host, port: port, id: id) }
    }
}
