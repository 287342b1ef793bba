import EchoServer
import Kernel
import NIOConcurrencyHelpers
import NIOCore
import Testing
import Wire

/// A world is freed with its kernel. The timers, connections and bus handlers left at the end of a run hold the
/// actors, and through their nodes the loop, the network and the bus: before the tear-down, every run's whole world
/// stayed in memory (0.3 MB a seed of the ecosystem swarm).
@Suite struct WorldTearDownTests {
    @Test func theWorldIsFreedWithItsKernelAndWhatWaitedIsTold() throws {
        weak var loop: SimulationLoop?
        weak var network: SimulatedNetwork?
        weak var bus: URLBus?
        weak var weakKernel: Kernel?
        let timerOutcome = NIOLockedValueBox<String?>(nil)
        let connectionClosed = NIOLockedValueBox(false)
        do {
            let kernel = Kernel(seed: 1)
            let server = kernel.node("echo")
            // The echo server registers its echo:// handler on the bus, which holds its node.
            let echo = try kernel.run("start echo") { try await EchoServer.start(on: server).get() }
            // A connection left open, and a timer far ahead that holds the server.
            let channel = try kernel.run("connect") { try await kernel.node("phone").connect(host: "echo", port: 7).get() }
            channel.closeFuture.whenComplete { _ in connectionClosed.withLockedValue { $0 = true } }
            server.eventLoop.scheduleTask(in: .hours(1)) { _ = echo }.futureResult.whenComplete { result in
                timerOutcome.withLockedValue { $0 = "\(result)" }
            }
            weakKernel = kernel
            loop = kernel.loop
            network = kernel.network
            bus = kernel.bus
            #expect(kernel.loop.nextDeadline != nil)
        }
        #expect(weakKernel == nil, "the kernel outlived its scope")
        #expect(loop == nil, "the loop outlived its kernel")
        #expect(network == nil, "the network outlived its kernel")
        #expect(bus == nil, "the bus outlived its kernel")
        #expect(connectionClosed.withLockedValue { $0 }, "the open connection was not closed")
        #expect(timerOutcome.withLockedValue { $0 } == "\(Result<Void, any Error>.failure(EventLoopError.cancelled))")
    }
}
