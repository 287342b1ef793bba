import SCPms
import SCPmsServer
import Scenario
import SystemKit
import Wire

/// SAP Mobile Services' registration endpoint: `start scpms` in scenarios, `listening scpms …` in serve.
extension ActorKind {
    static let scpms = ActorKind(
        name: "scpms",
        summary:
            "SAP Mobile Services: HTTPS device registration (OData Connections), X-SMP-APPCID check, the app's OData service, Basic auth, client logs",
        defaultHost: "scpms",
        targetSchemes: ["https": 443, "http": 80], targetExample: "https://127.0.0.1:8443",
        options: [
            .port("tls-port", "HTTPS port (default 443; 'none' for no TLS), certificate Fixtures/tls/server.pem", orNone: true),
            .port("port", "plain HTTP port (default 80; 'none' for HTTPS only)", orNone: true),
            .creatable("database", "SQLite file for registrations (default: in memory; simulated: on the node's simulated disk)"),
            .parsed("app-id", "the demo application id (default com.workbench.demo)") { app in
                guard SCPmsRoute.isValidId(app) else { throw WorkbenchError("option app-id=\(app): expected 1…128 letters, digits, '.', '-', '_'") }
            },
            .parsed("user", "demo user (default demo)") { user in
                guard !user.isEmpty, !user.contains(":") else { throw WorkbenchError("option user=\(user): expected a non-empty name without ':'") }
            },
            .text("password", "demo password (default password)"), .choice("log-upload", "on|off: accept client logs (default on)", ["on", "off"]),
        ],
        faultPoints: [SCPmsServer.unavailableFault, SCPmsServer.internalErrorFault]
    ) { node, options in
        var configuration = SCPmsServer.Configuration()
        if options["port"] == "none" {
            configuration.servesPlainHTTP = false
        } else if let port = options["port"] {
            configuration.port = try parsePort(port, "port")
        }
        if options["tls-port"] != "none" {
            configuration.tls = SCPmsServer.Configuration.TLS(
                port: try options["tls-port"].map { try parsePort($0, "tls-port") } ?? 443,
                certificatePath: try Fixtures.path("tls/server.pem"), privateKeyPath: try Fixtures.path("tls/server.key"))
        }
        guard configuration.servesPlainHTTP || configuration.tls != nil else {
            throw WorkbenchError("options port=none and tls-port=none: the server would not listen at all; keep one")
        }
        if let path = options["database"] {
            guard !path.isEmpty else { throw WorkbenchError("option database: expected the path of an SQLite file") }
            if node.disk == nil { try createParentDirectory(of: path) }  // simulated: a file on the node's disk
            configuration.databasePath = path
        }
        if let app = options["app-id"] {
            guard SCPmsRoute.isValidId(app) else { throw WorkbenchError("option app-id=\(app): expected 1…128 letters, digits, '.', '-', '_'") }
            configuration.applicationId = app
        }
        if let user = options["user"] {
            guard !user.isEmpty, !user.contains(":") else { throw WorkbenchError("option user=\(user): expected a non-empty name without ':'") }
            configuration.user = user
        }
        if let password = options["password"] {
            guard !password.isEmpty else { throw WorkbenchError("option password: expected a non-empty password") }
            configuration.password = password
        }
        if let upload = options["log-upload"] {
            guard upload == "on" || upload == "off" else { throw WorkbenchError("option log-upload=\(upload): expected on or off") }
            configuration.logUploadEnabled = upload == "on"
        }
        return RunningSCPms(server: try await SCPmsServer.start(on: node, configuration: configuration))
    }
}

struct RunningSCPms: RunningActor {
    let server: SCPmsServer

    /// The application endpoint with the demo credentials (HTTPS when on), and the plain one if it runs.
    var endpoints: [(label: String, url: String)] {
        var list = [("application", server.applicationURLWithCredentials)]
        if server.configuration.tls != nil, let plain = server.plainApplicationURLWithCredentials { list.append(("http", plain)) }
        return list
    }

    var notes: [String] {
        let configuration = server.configuration
        let cacert = server.configuration.tls == nil ? "" : "--cacert \(Fixtures.notePath("tls/ca.pem")) "
        return [
            "register: curl \(cacert)-u \(configuration.user):\(configuration.password) -H 'Content-Type: application/json' -d '{}' "
                + "\(server.baseURL)/odata/applications/latest/\(configuration.applicationId)/Connections",
            "data: curl \(cacert)-u \(configuration.user):\(configuration.password) -H 'X-SMP-APPCID: <id>' "
                + "'\(server.baseURL)/\(configuration.applicationId)/Products?$top=2&$format=json'",
        ]
    }

    func stop() async throws { try await server.stop() }
    /// With a database, every registration is committed with `synchronous = FULL` before the answer.
    var survivesCrash: Bool { server.configuration.databasePath != nil }
}
