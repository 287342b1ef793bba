import EchoServer
import NIOCore
import Scenario
import SystemKit
import Wire

/// The demo actor: `start echo` in scenarios, `listening echo …` in serve.
extension ActorKind {
    static let echo = ActorKind(
        name: "echo", summary: "demo actor: TCP echo (port 7), HTTP echo (port 80), echo:// URL handler on the bus",
        defaultHost: "echo",
        options: [
            .port("tcp-port", "TCP echo port (default 7)"), .port("http-port", "HTTP echo port (default 80)"),
            .text("scheme", "URL scheme to handle on the bus (default echo; 'none' for no handler)"),
            .flag(
                "planted-bug",
                "true: declare the fault points echo.planted-arm and echo.planted-miscount; the second, after the first, makes echo miscount a body (for testing swarm and shrink)"
            ),
        ],
        faultPoints: [EchoServer.unavailableFault, EchoServer.plantedArmFault, EchoServer.plantedMiscountFault]
    ) { node, options in
        var configuration = EchoServer.Configuration()
        if let port = options["tcp-port"] { configuration.tcpPort = try parsePort(port, "tcp-port") }
        if let port = options["http-port"] { configuration.httpPort = try parsePort(port, "http-port") }
        if let scheme = options["scheme"] { configuration.scheme = scheme == "none" ? nil : scheme }
        configuration.plantedBug = try parseFlag(options["planted-bug"], "planted-bug")
        return RunningEcho(server: try await EchoServer.start(on: node, configuration: configuration).get())
    }
}

struct RunningEcho: RunningActor {
    let server: EchoServer
    var endpoints: [(label: String, url: String)] { server.endpoints }
    func stop() async throws { try await server.stop().get() }
}
