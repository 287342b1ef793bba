import SCPmsClient
import SystemKit
import Wire

/// SCPms's share of `workbench bench load`: registrations and registration checks through the session manager.
extension LoadBenchPart {
    static let scpms = LoadBenchPart(
        operations: [
            LoadOperation(
                "scpms-register",
                "SCPmsSessionManager.registerApplication(): POST …/odata/applications/latest/APP/Connections "
                    + "(credentials sent up front); 201 with an ApplicationConnectionId."),
            LoadOperation(
                "scpms-check",
                "SCPmsSessionManager.startSession with the stored id: GET {base}/APP with X-SMP-APPCID, the "
                    + "request the SDK checks a registration with; 200, registration 'existing'."),
        ],
        setUps: [LoadSetUp(what: "the first SCPms registration", countsAs: "scpms-register")]
    ) { announced in
        let scpms = try announced.requiredURL("scpms", "http")
        guard let user = scpms.user, let password = scpms.password, let application = scpms.path.split(separator: "/").last else {
            throw WorkbenchError("the scpms URL has no demo credentials or application id")
        }
        let base = "http://\(scpms.host ?? ""):\(scpms.port ?? 0)"
        return { _, node in
            let manager = try SCPmsSessionManager(
                node: node, configuration: .init(backendURL: base, applicationId: String(application)),
                store: InMemorySCPmsSettingsStore())
            return SCPmsLoadSession(manager: manager, user: user, password: password)
        }
    }
}

struct SCPmsLoadSession: LoadSession {
    let manager: SCPmsSessionManager
    let user: String
    let password: String
    var registered = false

    /// Both operations need a stored registration: the first one is made here, untimed.
    mutating func prepare(for operation: String) async -> LoadSetUpFailure? {
        guard !registered else { return nil }
        do {
            _ = try await manager.startSession(user: user, password: password)
            registered = true
            return nil
        } catch {
            return LoadSetUpFailure(operation: "scpms-register", text: "first registration: \(error)")
        }
    }

    func perform(_ operation: String) async throws {
        if operation == "scpms-register" {
            let id = try await manager.registerApplication()
            guard !id.isEmpty else { throw WorkbenchError("registration returned an empty ApplicationConnectionId") }
        } else {
            let session = try await manager.startSession(user: user, password: password)
            guard session.registration == .existing else {
                throw WorkbenchError("the registration check did not accept the stored id (registration \(session.registration.rawValue))")
            }
        }
    }
}
