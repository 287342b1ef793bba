import IvantiClient
import Scenario
import SystemKit
import Wire

/// The Ivanti client app: `start ivanti` in scenarios, `listening ivanti …` in serve; its knobs (`ivanti …`) and the
/// app side (`appconnect …`) are in `IvantiDirectives.swift`.
extension ActorKind {
    static let ivanti = ActorKind(
        name: "ivanti",
        summary: "Ivanti client app: appconnect/appconnectdc schemes on the bus, derived-credential vault, bus gateway (POST /open)",
        defaultHost: "ivanti",
        options: [
            .choice(
                "version", "current (default), old (no derived credentials) or missing (not installed)",
                IvantiClient.Installation.allCases.map(\.rawValue)),
            .creatable("database", "SQLite file of the credential vault (absent: in memory); its key goes to FILE.key"),
            .port("bus-port", "port of the HTTP bus gateway, POST /open with a URL (default 80; 'none' for no gateway)", orNone: true),
        ],
        faultPoints: [IvantiClient.secureServicesFault]
    ) { node, options in
        var configuration = IvantiClient.Configuration(gatewayPort: 80)
        configuration.credentialLookup = .planted(on: node)
        if let version = options["version"] {
            guard let installation = IvantiClient.Installation(rawValue: version) else {
                throw WorkbenchError("option version=\(version): expected current, old or missing")
            }
            configuration.installation = installation
        }
        configuration.databasePath = options["database"]
        if let port = options["bus-port"] { configuration.gatewayPort = try parseOptionalPort(port, "bus-port") }
        return RunningIvanti(client: try await IvantiClient.start(on: node, configuration: configuration))
    }
}

struct RunningIvanti: RunningActor {
    let client: IvantiClient
    var endpoints: [(label: String, url: String)] { client.endpoints }
    var notes: [String] { client.endpoints.first { $0.label == "bus" }.map { ["open URLs with: workbench open --bus \($0.url) 'scheme://…'"] } ?? [] }
    func stop() async throws { try await client.stop() }
}
