import NIOCore
import NIOEmbedded
import Synchronization
import TestSupport
import Testing
import Wire

/// A network that records what nodes ask of it and refuses everything.
final class RecordingNetwork: Network {
    private let calls = Mutex<[String]>([])
    var all: [String] { calls.withLock { $0 } }

    func connect(
        from: String, host: String, port: Int, timeout: TimeAmount, on eventLoop: any EventLoop,
        initializer: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
    ) -> EventLoopFuture<any Channel> {
        calls.withLock { $0.append("connect from \(from) to \(host):\(port) within \(timeout.nanoseconds)ns") }
        return eventLoop.makeFailedFuture(WireError(.refused, "\(host):\(port)"))
    }

    func listen(
        as host: String, port: Int, on eventLoop: any EventLoop, connections: ConnectionLoops,
        childInitializer: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
    ) -> EventLoopFuture<any Listener> {
        calls.withLock { $0.append("listen as \(host) on \(port)") }
        return eventLoop.makeFailedFuture(WireError(.addressInUse, "\(host):\(port)"))
    }
}

/// What a node does for its actor: it connects and listens as itself, traces under its own name, and names the
/// fault points it checks.
@Suite struct NodeTests {
    static func node(
        _ name: String = "phone", network: RecordingNetwork = RecordingNetwork(), sink: RecordingSink = RecordingSink(),
        faults: FaultPoints = FaultPoints(random: RandomStream(seed: 1, name: "faults"))
    ) -> Node {
        Node(
            name: name, eventLoop: EmbeddedEventLoop(), network: network,
            clock: NodeClock(source: ManualTime(epoch: .zero)), random: RandomStream(seed: 1, name: name),
            secrets: .seeded(RandomStream(seed: 1, name: "secrets:" + name)),
            faults: faults, bus: URLBus(tracer: sink), tracer: sink)
    }

    @Test func aNodeConnectsAndListensAsItself() throws {
        let network = RecordingNetwork()
        let node = Self.node("phone", network: network)
        #expect(throws: WireError(.refused, "mig:631")) { try node.connect(host: "mig", port: 631).wait() }
        #expect(throws: WireError(.refused, "mig:443")) { try node.connect(host: "mig", port: 443, timeout: .seconds(2)).wait() }
        #expect(throws: WireError(.addressInUse, "phone:8080")) { try node.listen(port: 8080) { $0.eventLoop.makeSucceededVoidFuture() }.wait() }
        #expect(
            network.all == [
                "connect from phone to mig:631 within 10000000000ns", "connect from phone to mig:443 within 2000000000ns",
                "listen as phone on 8080",
            ])
    }

    @Test func tracesCarryTheNodesName() {
        let sink = RecordingSink()
        let node = Self.node("mig", sink: sink)
        node.trace("job-completed", [("job", "7")])
        node.trace("idle")
        #expect(
            sink.all == [
                RecordingSink.Event(actor: "mig", event: "job-completed", fields: ["job=7"]),
                RecordingSink.Event(actor: "mig", event: "idle", fields: []),
            ])
    }

    @Test func aFaultIsTracedOnlyWhenItFires() {
        let sink = RecordingSink()
        let faults = FaultPoints(random: RandomStream(seed: 1, name: "faults"))
        let node = Self.node("printer", sink: sink, faults: faults)
        #expect(!node.fault("printer.media-empty"))
        #expect(sink.all.isEmpty)
        #expect(faults.point("printer.media-empty") != nil, "a checked point is known, so scenarios can list it")
        faults.set("printer.media-empty", .times(1))
        #expect(node.fault("printer.media-empty"))
        #expect(!node.fault("printer.media-empty"))
        #expect(sink.all == [RecordingSink.Event(actor: "printer", event: "fault-fired", fields: ["point=printer.media-empty"])])
    }

    @Test func liveTasksRunOnTheNodesOwnLoopAndReportTheirOutcome() async throws {
        let wire = LiveWire(seed: 1, threads: 2)
        let node = wire.node("mig")
        let onLoop = try await withDeadline(liveStepLimit, "a node task reporting back") {
            try await node.task { node.eventLoop.inEventLoop }.get()
        }
        #expect(onLoop)
        struct Refusal: Error, Equatable {}
        await #expect(throws: Refusal()) {
            try await withDeadline(liveStepLimit, "a failing node task reporting back") {
                try await node.task { () throws -> Int in throw Refusal() }.get()
            }
        }
        try await wire.shutdown()
    }
}
