import NIOCore
import Synchronization
import TestSupport
import Testing
import Wire

#if canImport(Glibc)
    import Glibc
#endif

/// Echoes every byte back.
final class EchoBytes: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    func channelRead(context: ChannelHandlerContext, data: NIOAny) { context.writeAndFlush(data, promise: nil) }
}

/// Completes `promise` with the first `count` bytes received.
final class Collect: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let count: Int
    let promise: EventLoopPromise<String>
    var received = ByteBuffer()
    init(count: Int, promise: EventLoopPromise<String>) {
        self.count = count
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var chunk = unwrapInboundIn(data)
        received.writeBuffer(&chunk)
        if received.readableBytes >= count { promise.succeed(String(buffer: received)) }
    }

    func channelInactive(context: ChannelHandlerContext) { promise.fail(WireError(.closed, "before \(count) bytes")) }
}

/// The live wiring: real loopback sockets under node names, the machine's clocks, seeded streams per node.
@Suite(.serialized) struct LiveWireTests {
    static func startEcho(on node: Node, port: Int = 0) async throws -> any Listener {
        try await node.listen(port: port) { channel in
            channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(EchoBytes()) }
        }.get()
    }

    /// Connects from `node` to `host:port`, sends `text` and returns what comes back.
    static func roundTrip(_ text: String, from node: Node, to host: String, port: Int) async throws -> String {
        let answer = node.eventLoop.makePromise(of: String.self)
        let count = text.utf8.count
        let channel = try await node.connect(host: host, port: port) { channel in
            channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Collect(count: count, promise: answer)) }
        }.get()
        try await channel.writeAndFlush(ByteBuffer(string: text)).get()
        let text = try await answer.futureResult.get()
        try await channel.close().get()
        return text
    }

    /// An accepted connection names its peer as traces and serve's request log show it: the client's own address.
    @Test func aConnectionNamesItsPeerByAddressAndPort() async throws {
        let wire = LiveWire(seed: 1, threads: 1)
        let server = wire.node("server")
        let phone = wire.node("phone")
        let peer = server.eventLoop.makePromise(of: String.self)
        let listener = try await server.listen(port: 0) { channel in
            peer.succeed(channel.peerText)
            return channel.eventLoop.makeSucceededVoidFuture()
        }.get()
        let client = try await phone.connect(host: "127.0.0.1", port: listener.port).get()
        let seen = try await withDeadline(liveStepLimit, "accepting") { try await peer.futureResult.get() }
        #expect(seen == "127.0.0.1:\(client.localAddress?.port ?? -1)")
        try await client.close().get()
        try await listener.close().get()
        try await wire.shutdown()
    }

    @Test func aNodeIsReachedByItsNameAndThePortItAskedFor() async throws {
        let wire = LiveWire(seed: 1, threads: 2)
        let echo = wire.node("echo")
        let phone = wire.node("phone")
        let listener = try await withDeadline(liveStepLimit, "listening on loopback") { try await Self.startEcho(on: echo) }
        #expect(listener.host == "127.0.0.1")
        #expect(listener.port > 0, "port 0 picks a free port")
        // A scenario written against echo:0 (the port asked for), the port it got, or the address itself.
        let answers = try await withDeadline(liveStepLimit, "three round trips on loopback") {
            [
                try await Self.roundTrip("asked", from: phone, to: "echo", port: 0),
                try await Self.roundTrip("bound", from: phone, to: "echo", port: listener.port),
                try await Self.roundTrip("address", from: phone, to: "127.0.0.1", port: listener.port),
            ]
        }
        #expect(answers == ["asked", "bound", "address"])
        try await listener.close().get()
        try await wire.shutdown()
    }

    @Test func aClosedPortIsRefusedAndATakenPortIsInUse() async throws {
        let wire = LiveWire(seed: 1, threads: 2)
        let first = try await Self.startEcho(on: wire.node("a"))
        await #expect(throws: WireError(.addressInUse, "127.0.0.1:\(first.port)")) {
            _ = try await withDeadline(liveStepLimit, "a second listener on a taken port") {
                try await Self.startEcho(on: wire.node("b"), port: first.port)
            }
        }
        try await first.close().get()
        // Not `first.port` again: a parallel test may be handed that port the moment it is closed, and accept.
        let closed = try Ports.closed()
        defer { closed.release() }
        await #expect(throws: WireError(.refused, "127.0.0.1:\(closed.port)")) {
            _ = try await withDeadline(liveStepLimit, "connecting to a closed port") {
                try await wire.node("phone").connect(host: "127.0.0.1", port: closed.port).get()
            }
        }
        try await wire.shutdown()
    }

    @Test func nodesKeepOneLoopAndDrawFromTheirSeededStream() async throws {
        let wire = LiveWire(seed: 5, threads: 2)
        let again = LiveWire(seed: 5, threads: 2)
        let other = LiveWire(seed: 6, threads: 2)
        #expect(wire.node("phone").eventLoop === wire.node("phone").eventLoop)
        #expect(wire.node("phone").random.next() == again.node("phone").random.next())
        #expect(wire.node("mig").random.next() != wire.node("phone").random.next())
        #expect(other.node("phone").random.next() != RandomStream(seed: 5, name: "phone").next())
        #expect(wire.node("phone").random.next() == RandomStream(seed: 5, name: "phone").next(), "live streams are named by node only")
        for live in [wire, again, other] { try await live.shutdown() }
    }

    @Test func liveClocksAreTheMachines() async throws {
        let wire = LiveWire(seed: 1, threads: 1)
        let clock = wire.node("phone").clock
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        #expect(abs(clock.unixSeconds - Int64(now.tv_sec)) <= 2)
        let before = clock.now
        try await clock.sleep(for: .milliseconds(30))
        #expect(before.duration(to: clock.now) >= .milliseconds(30))
        try await wire.shutdown()
    }

    @Test func wireErrorsReadLikeSocketErrors() {
        #expect(WireError(.refused, "mig:631").description == "connection refused: mig:631")
        #expect(WireError(.unknownHost, "nowhere").description == "unknown host: nowhere")
        #expect(WireError(.timedOut, "mig:631").description == "connection timed out: mig:631")
        #expect(WireError(.reset, "x").description == "connection reset by peer: x")
        #expect(WireError(.addressInUse, "127.0.0.1:80").description == "address already in use: 127.0.0.1:80")
        #expect(WireError(.closed, "x").description == "connection closed: x")
    }
}

/// Blocking work leaves the loops live and comes back to the node's loop; connections may spread over every loop.
@Suite(.serialized) struct LiveWireLoopsTests {
    @Test func blockingWorkRunsOffTheLoopAndAnswersOnIt() async throws {
        let wire = LiveWire(seed: 1, threads: 2)
        let node = wire.node("store")
        #expect(node.blockingWork.isThreaded)
        let ranOnLoop = try await node.blocking { node.eventLoop.inEventLoop }.get()
        #expect(!ranOnLoop, "the blocking work ran on the node's event loop")
        let answeredOnLoop = try await node.blocking { 7 }.map { _ in node.eventLoop.inEventLoop }.get()
        #expect(answeredOnLoop, "the result did not arrive on the node's loop")
        await #expect(throws: WireError(.closed, "disk")) { try await node.blocking { throw WireError(.closed, "disk") }.get() }
        try await wire.shutdown()
    }

    @Test func inlineBlockingWorkRunsAtOnce() throws {
        let node = NodeTests.node("store")
        #expect(!node.blockingWork.isThreaded)
        let future = node.blocking { 42 }
        #expect(try future.wait() == 42)
    }

    @Test func connectionsOnEveryLoopLeaveTheHomeLoopForOthers() async throws {
        let wire = LiveWire(seed: 1, threads: 2)
        let server = wire.node("server")
        let loops = Mutex<Set<ObjectIdentifier>>([])
        let listener = try await server.listen(port: 0, connections: .every) { channel in
            loops.withLock { _ = $0.insert(ObjectIdentifier(channel.eventLoop)) }
            return channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(EchoBytes()) }
        }.get()
        let client = wire.node("client")
        for index in 0..<4 {
            #expect(try await LiveWireTests.roundTrip("hello \(index)", from: client, to: "server", port: listener.port) == "hello \(index)")
        }
        #expect(loops.withLock { $0.count } == 2, "four connections used only one of the two loops")
        try await listener.close().get()
        try await wire.shutdown()
    }
}
