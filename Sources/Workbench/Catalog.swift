import EchoServer
import NIOCore
import Scenario
import Wire

/// Every actor the workbench can start, adapted to the scenario language and `serve`.
///
/// Each entry names the ports it uses on the simulated wire (its real ports) and on loopback for `serve`
/// (unprivileged ones, so a normal user can run it).
public enum Catalog {
    public static let actorKinds: [ActorKind] = [echo, mig, migProxy, scpms, ivanti, imsSigner, ims]

    /// Directives the systems add to the scenario language (their clients and admin knobs).
    public static let directives: [Directive] = migDirectives + scpmsDirectives + ivantiDirectives + appConnectDirectives + imsDirectives

    /// The scenario language with every system's directives.
    public static var language: ScenarioLanguage { ScenarioLanguage(extra: directives) }

    /// Options `serve` passes, per kind, unless the user overrides them.
    public static let liveOptions: [String: [String: String]] = [
        "echo": ["tcp-port": "7007", "http-port": "8080"],
        "mig": ["tls-port": "8050", "plain-port": "8631"],
        "mig-proxy": ["port": "8443", "upstream": "mig:8631"],
        "ivanti": ["bus-port": "9084"],
        "scpms": ["port": "9083"],
        "ims-signer": ["port": "9081", "enrol": "14"],
        "ims": ["port": "9082", "host-certificate": "Fixtures/ims/host.pem", "enrol": "14"],
    ]

    static let echo = ActorKind(
        name: "echo", summary: "demo actor: TCP echo (port 7), HTTP echo (port 80), echo:// URL handler on the bus",
        defaultHost: "echo",
        options: [("tcp-port", "TCP echo port (default 7)"), ("http-port", "HTTP echo port (default 80)"),
                  ("scheme", "URL scheme to handle on the bus (default echo; 'none' for no handler)")]
    ) { node, options in
        var configuration = EchoServer.Configuration()
        if let port = options["tcp-port"] { configuration.tcpPort = try parsePort(port, "tcp-port") }
        if let port = options["http-port"] { configuration.httpPort = try parsePort(port, "http-port") }
        if let scheme = options["scheme"] { configuration.scheme = scheme == "none" ? nil : scheme }
        return RunningEcho(server: try await EchoServer.start(on: node, configuration: configuration).get())
    }

    static func parsePort(_ text: String, _ option: String) throws -> Int {
        guard let value = Int(text), (0...65_535).contains(value) else {
            throw CatalogError("option \(option)=\(text): expected a port number 0…65535")
        }
        return value
    }
}

struct CatalogError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

struct RunningEcho: RunningActor {
    let server: EchoServer
    var endpoints: [(label: String, url: String)] { server.endpoints }
    func stop() async throws { try await server.stop().get() }
}
