import DerivedCredential
import Foundation
import IvantiClient
import Scenario
import Wire

/// The Ivanti client actor and its scenario knobs (`ivanti …`); the app side is in `AppConnectDirectives.swift`.
extension Catalog {
    static let ivanti = ActorKind(
        name: "ivanti",
        summary: "Ivanti client app: appconnect/appconnectdc schemes on the bus, derived-credential vault, bus gateway (POST /open)",
        defaultHost: "ivanti",
        options: [("version", "current (default), old (no derived credentials) or missing (not installed)"),
                  ("database", "SQLite file of the credential vault (absent: in memory); its key goes to FILE.key"),
                  ("bus-port", "port of the HTTP bus gateway, POST /open with a URL (default 80; 'none' for no gateway)")]
    ) { node, options in
        var configuration = IvantiClient.Configuration(gatewayPort: 80)
        if let version = options["version"] {
            guard let installation = IvantiClient.Installation(rawValue: version) else {
                throw CatalogError("option version=\(version): expected current, old or missing")
            }
            configuration.installation = installation
        }
        configuration.databasePath = options["database"]
        if let port = options["bus-port"] { configuration.gatewayPort = port == "none" ? nil : try parsePort(port, "bus-port") }
        return RunningIvanti(client: try await IvantiClient.start(on: node, configuration: configuration))
    }

    static let ivantiDirectives: [Directive] = [
        Directive("ivanti", usage: "ivanti install current|old | uninstall | state [auth W] [policy W] [passcode entered|missing] [ready true|false] | renew APP [as NAME] (${NAME} true/false, ${NAME.error}) | vault [APP] [as NAME]",
                  summary: "drive the Ivanti client: version, AppConnect state (sent to apps), renewal requests, the vault and the last credential received",
                  keywords: ["install", "uninstall", "state", "renew", "vault", "current", "old", "auth", "policy", "passcode", "ready", "as",
                             "authorized", "unauthorized", "retired", "managed", "unmanaged", "unknown", "entered", "missing"]) { args throws(ScenarioError) in
            switch try args.oneOf(["install", "uninstall", "state", "renew", "vault"]) {
            case "install":
                let version = try args.oneOf(["current", "old"])
                try args.end()
                return Run { context in
                    try ivantiClient(context).setInstallation(version == "old" ? .old : .current)
                    context.kernel.loop.runDue()
                    return nil
                }
            case "uninstall":
                try args.end()
                return Run { context in
                    try ivantiClient(context).setInstallation(.missing)
                    context.kernel.loop.runDue()
                    return nil
                }
            case "state":
                let change = try parseStateChange(&args)
                return Run { context in
                    try ivantiClient(context).setState(change)
                    context.kernel.loop.runDue()
                    return nil
                }
            case "renew":
                let app = try args.name("the app (node) to ask for a new credential")
                let label = args.accept("as") ? try args.name("a variable name") : "renew"
                try args.end()
                return Run { context in
                    let client = try ivantiClient(context)
                    do {
                        let delivered = try client.requestNewCredential(app: app)
                        context.kernel.loop.runDue()
                        context.publish(label, ["": String(delivered), "error": ""])
                    } catch {
                        context.publish(label, ["": "false", "error": "\(error)"])
                    }
                    return nil
                }
            default:
                var app: String?
                if let next = args.peek, !(next.text == "as" && !next.quoted) { app = try args.name("an app (node) name") }
                let label = args.accept("as") ? try args.name("a variable name") : "vault"
                try args.end()
                let owner = app
                return Run { context in
                    // What was opened on the bus at this instant (e.g. by `open`) reaches the client first.
                    context.kernel.loop.runDue()
                    let client = try ivantiClient(context)
                    let stored = try client.credentials(of: owner)
                    var values = ["count": String(stored.count), "serials": stored.map(\.serialNumber).joined(separator: ","),
                                  "tags": stored.last?.tags.joined(separator: ",") ?? "", "owners": stored.map(\.owner).joined(separator: ",")]
                    let last = client.lastOutcome
                    values["last.app"] = last?.app ?? ""
                    values["last.result"] = last?.result ?? "none"
                    values["last.serial"] = last?.serialNumber ?? ""
                    values["last.problem"] = last?.problem ?? ""
                    values["last.detail"] = last?.detail ?? ""
                    context.publish(label, values)
                    return nil
                }
            }
        },
    ]

    private static func parseStateChange(_ args: inout Arguments) throws(ScenarioError) -> @Sendable (inout IvantiClient.State) -> Void {
        var changes: [@Sendable (inout IvantiClient.State) -> Void] = []
        while !args.isEmpty {
            switch try args.oneOf(["auth", "policy", "passcode", "ready"]) {
            case "auth":
                guard let value = AuthState(word: try args.oneOf(AuthState.allCases.map(\.word))) else { continue }
                changes.append { $0.authState = value }
            case "policy":
                guard let value = ManagedPolicy(word: try args.oneOf(ManagedPolicy.allCases.map(\.word))) else { continue }
                changes.append { $0.managedPolicy = value }
            case "passcode":
                let entered = try args.oneOf(["entered", "missing"]) == "entered"
                changes.append { $0.passcodeEntered = entered }
            default:
                let ready = try args.oneOf(["true", "false"]) == "true"
                changes.append { $0.ready = ready }
            }
        }
        guard !changes.isEmpty else { throw args.error("expected auth, policy, passcode or ready after 'state'") }
        let all = changes
        return { state in for change in all { change(&state) } }
    }

    /// The running Ivanti client of the scenario.
    static func ivantiClient(_ context: ScenarioContext) throws -> IvantiClient {
        guard let running = context.startedActors.lazy.compactMap({ $0.actor as? RunningIvanti }).first else {
            throw StepError("no Ivanti client is running; start it with 'start ivanti'")
        }
        return running.client
    }
}

struct RunningIvanti: RunningActor {
    let client: IvantiClient
    var endpoints: [(label: String, url: String)] { client.endpoints }
    var notes: [String] { client.endpoints.first { $0.label == "bus" }.map { ["open URLs with: workbench open --bus \($0.url) 'scheme://…'"] } ?? [] }
    func stop() async throws { try await client.stop() }
}
