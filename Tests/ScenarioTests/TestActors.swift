import Dispatch
import EchoServer
import Foundation
import Scenario
import Wire

/// The echo actor adapted for scenarios, as the workbench's catalog does.
enum TestActors {
    struct Running: RunningActor {
        let server: EchoServer
        var endpoints: [(label: String, url: String)] { server.endpoints }
        func stop() async throws { try await server.stop().get() }
    }

    static let echo = ActorKind(name: "echo", summary: "echo", defaultHost: "echo") { node, _ in
        Running(server: try await EchoServer.start(on: node).get())
    }

    /// An actor that breaks the kernel's rule on purpose: while starting (on the simulation loop) it has another
    /// thread hand work back to the loop, as a callback from a real thread pool would.
    static let leaky = ActorKind(name: "leaky", summary: "escapes the kernel", defaultHost: "leaky") { node, _ in
        submitFromAnotherThread(to: node)
        return Nothing()
    }

    struct Nothing: RunningActor {
        var endpoints: [(label: String, url: String)] { [] }
        func stop() async throws {}
    }

    /// Blocks until a new thread has submitted an empty job to `node`'s loop.
    static func submitFromAnotherThread(to node: Node) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            node.eventLoop.execute {}
            done.signal()
        }
        thread.start()
        done.wait()
    }
}
