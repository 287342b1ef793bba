import EchoServer
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
}
