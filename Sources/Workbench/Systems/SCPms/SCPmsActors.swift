import SCPms
import SCPmsServer
import Scenario
import Wire

/// SAP Mobile Services' registration endpoint: `start scpms` in scenarios, `listening scpms …` in serve.
extension ActorKind {
    static let scpms = ActorKind(
        name: "scpms", summary: "SAP Mobile Services: device registration (OData Connections), X-SMP-APPCID check, Basic auth, client logs",
        defaultHost: "scpms",
        options: [("port", "HTTP port (default 80)"), ("database", "SQLite file for registrations (default: in memory)"),
                  ("app-id", "the demo application id (default com.workbench.demo)"), ("user", "demo user (default demo)"),
                  ("password", "demo password (default password)"), ("log-upload", "on|off: accept client logs (default on)")]
    ) { node, options in
        var configuration = SCPmsServer.Configuration()
        if let port = options["port"] { configuration.port = try parsePort(port, "port") }
        if let path = options["database"] {
            guard !path.isEmpty else { throw CatalogError("option database: expected the path of an SQLite file") }
            try createParentDirectory(of: path)
            configuration.databasePath = path
        }
        if let app = options["app-id"] {
            guard SCPmsRoute.isValidId(app) else { throw CatalogError("option app-id=\(app): expected 1…128 letters, digits, '.', '-', '_'") }
            configuration.applicationId = app
        }
        if let user = options["user"] {
            guard !user.isEmpty, !user.contains(":") else { throw CatalogError("option user=\(user): expected a non-empty name without ':'") }
            configuration.user = user
        }
        if let password = options["password"] {
            guard !password.isEmpty else { throw CatalogError("option password: expected a non-empty password") }
            configuration.password = password
        }
        if let upload = options["log-upload"] {
            guard upload == "on" || upload == "off" else { throw CatalogError("option log-upload=\(upload): expected on or off") }
            configuration.logUploadEnabled = upload == "on"
        }
        return RunningSCPms(server: try await SCPmsServer.start(on: node, configuration: configuration))
    }
}

struct RunningSCPms: RunningActor {
    let server: SCPmsServer

    /// One URL: the application endpoint with the demo credentials, usable as-is by curl.
    var endpoints: [(label: String, url: String)] { [("application", server.applicationURLWithCredentials)] }

    var notes: [String] {
        let configuration = server.configuration
        return ["register: curl -u \(configuration.user):\(configuration.password) -H 'Content-Type: application/json' -d '{}' "
                + "\(server.baseURL)/odata/applications/latest/\(configuration.applicationId)/Connections"]
    }

    func stop() async throws { try await server.stop() }
}
