import Foundation
import SCPms
import SCPmsClient
import SCPmsServer
import Scenario
import SystemKit
import Wire

/// The `scpms` directive: the app's session manager (`launch`, `relaunch`, `start-session`, `register`, `odata`,
/// `log`, `upload-log`, `upload-logs`, `end`) and the administrator's knobs (`delete-registration`, `add-user`, `add-app`).
extension Directive {
    static let scpms = Directive(
        "scpms",
        usage: """
            scpms launch [app NAME] [from NODE] [server URL] [application ID] [device TYPE] [device-name NAME] [body device-info|none] \
            [trust any|ca|system] [ca-file FILE] [log-level S] [header NAME VALUE]… [retries N] [retry-delay D] [no-reregister] [as VAR] | \
            scpms relaunch [app NAME] [as VAR] | scpms start-session [app NAME] user USER password PASSWORD [as VAR] | \
            scpms register [app NAME] [as VAR] | scpms odata [app NAME] metadata|SET [key N] [top N] [skip N] [filter TEXT] [as VAR] | \
            scpms log [app NAME] [severity S] message TEXT [as VAR] | scpms upload-logs [app NAME] [as VAR] | scpms end [app NAME] [as VAR] | \
            scpms upload-log [app NAME] [severity S] message TEXT [as VAR] | \
            scpms delete-registration ID [on ACTOR] [as VAR] | scpms add-user USER PASSWORD [on ACTOR] | scpms add-app ID [log-upload on|off] [on ACTOR]
            """,
        summary: "the SCPms app (session manager) and admin knobs; ${VAR.status} ok|error, .id, .registration, .code, .http, .error",
        defaults: """
            app app, on scpms; launch: from phone, server and application the running scpms actor's (else https://scpms and \
            com.workbench.demo), device iPhone, device-name the device type, body device-info, trust any (trust ca: ca-file \
            tls/ca.pem), log-level error, no header, retries 0, retry-delay 2s, registers again when refused; as: the app's name \
            (launch, relaunch), session (start-session, register), log (upload-log), odata, logged (log), logs (upload-logs, end), \
            deleted (delete-registration); within 2m (start-session, register, upload-log); severity error (log), info \
            (upload-log); odata: every entity (no key, top, skip or filter); add-app: log-upload on
            """,
        keywords: [
            "launch", "relaunch", "start-session", "register", "odata", "log", "upload-log", "upload-logs", "end",
            "delete-registration", "add-user", "add-app",
            "app", "from", "server", "application", "device", "device-name", "body", "trust", "ca-file", "log-level", "header",
            "retries", "retry-delay", "no-reregister", "user", "password", "metadata", "key", "top", "skip", "filter",
            "as", "severity", "message", "on", "log-upload",
        ]
    ) { args throws(ScenarioError) in
        let action = try args.oneOf([
            "launch", "relaunch", "start-session", "register", "odata", "log", "upload-log", "upload-logs", "end",
            "delete-registration", "add-user", "add-app",
        ])
        switch action {
        case "launch": return try parseLaunch(&args)
        case "relaunch": return try parseRelaunch(&args)
        case "odata": return try parseOData(&args)
        case "log", "upload-logs", "end": return try parseLogging(action, &args)
        case "start-session", "register", "upload-log": return try parseAppCall(action, &args)
        default: return try parseAdmin(action, &args)
        }
    }
}

/// The app on the phone: its stored settings outlive any one launch, the session manager does not.
/// Kept in the scenario's state, touched only from the scenario's thread.
private final class SCPmsApp {
    let store = InMemorySCPmsSettingsStore()
    var configuration: SCPmsSessionManager.Configuration?
    var node: Node?
    var manager: SCPmsSessionManager?
    var delegate: ScenarioDelegate?
    var launches = 0
}

/// The app's delegate: answers the original session manager's `applicationConnectionIdFor:` by adding the launch's headers.
private final class ScenarioDelegate: SCPmsSessionManagerDelegate {
    let headers: [(String, String)]

    init(headers: [(String, String)]) { self.headers = headers }

    func sessionManager(_ manager: SCPmsSessionManager, applicationConnectionIdFor session: SCPmsURLSession) -> String? {
        for (name, value) in headers { session.setHeader(name, value) }
        manager.node.trace("scpms-delegate-asked", [("headers", headers.map(\.0).joined(separator: ",")), ("session", session.sessionDescription)])
        return nil
    }
}

// MARK: App side

private func appState(_ context: ScenarioContext, _ name: String) -> SCPmsApp {
    context.state(.scpmsApp, for: name) { SCPmsApp() }
}

private func parseLaunch(_ args: inout Arguments) throws(ScenarioError) -> any Step {
    var app = "app"
    var label: String?
    var from = "phone"
    var server: Template?
    var application: Template?
    var device = "iPhone"
    var deviceName: Template?
    var body = SCPmsSessionManager.RegistrationBody.deviceInfo
    var trust = "any"
    var caFile: Template?
    var logLevel = ClientLogLine.Severity.error
    var headers: [(Template, Template)] = []
    var retries = 0
    var retryDelay = Template(literal: "2s")
    var reregister = true
    while !args.isEmpty {
        switch try args.oneOf([
            "app", "from", "server", "application", "device", "device-name", "body", "trust", "ca-file", "log-level",
            "header", "retries", "retry-delay", "no-reregister", "as",
        ]) {
        case "app": app = try args.name("an app name")
        case "as": label = try args.name("a variable name")
        case "from": from = try args.name("a node name")
        case "server": server = try args.value("the backend URL, e.g. https://scpms")
        case "application": application = try args.value("an application id")
        case "device": device = try args.name("a device type like iPhone")
        case "device-name": deviceName = try args.value("the device's name, sent as UserName")
        case "body": body = try args.oneOf(["device-info", "none"]) == "none" ? .noBody : .deviceInfo
        case "trust": trust = try args.oneOf(["any", "ca", "system"])
        case "ca-file": caFile = try args.path("a PEM CA certificate file")
        case "log-level": logLevel = ClientLogLine.Severity(rawValue: try args.oneOf(ClientLogLine.Severity.allCases.map(\.rawValue))) ?? .error
        case "header": headers.append((try args.value("a header name"), try args.value("a header value")))
        case "retries": retries = try args.integer("how many times to retry a 503", in: 0...100)
        case "retry-delay": retryDelay = try args.duration()
        default: reregister = false
        }
    }
    if caFile != nil, trust != "ca" { throw args.error("ca-file needs 'trust ca'") }
    args.declare(node: from)
    let (appName, node, serverURL, applicationId, deviceType, retryCount, delay, registersAgain) =
        (app, from, server, application, device, retries, retryDelay, reregister)
    let (givenName, registrationBody, trustWord, givenCA, level, givenHeaders) = (deviceName, body, trust, caFile, logLevel, headers)
    let variable = label ?? app
    args.binds(variable, fields: launchFields)
    return Run { context in
        // Without `server`, the app talks to the target (`--target scpms=URL`), else to the running `scpms` actor (its
        // HTTPS URL and demo application).
        let actor = context.actor(named: "scpms") as? RunningSCPms
        let backend = try serverURL?.resolve(context) ?? context.targets["scpms"]?.bareURL ?? actor?.server.baseURL ?? "https://scpms"
        let appId = try applicationId?.resolve(context) ?? actor?.server.configuration.applicationId ?? "com.workbench.demo"
        let serverTrust: SCPmsServerTrust
        switch trustWord {
        case "ca": serverTrust = .caFile(try ScenarioPaths.existing(try givenCA?.resolve(context) ?? "tls/ca.pem", in: context))
        case "system": serverTrust = .systemDefault
        default: serverTrust = .acceptAnyCertificate
        }
        let configuration = SCPmsSessionManager.Configuration(
            backendURL: backend, applicationId: appId, deviceType: deviceType, deviceModel: "iOS 17.5",
            registersAgainWhenRefused: registersAgain, serviceUnavailableRetries: retryCount,
            retryDelay: try delay.duration(context), serverTrust: serverTrust,
            deviceName: try givenName?.resolve(context) ?? deviceType, registrationBody: registrationBody, logLevel: level,
            httpStack: context.httpStack)
        var resolvedHeaders: [(String, String)] = []
        for (name, value) in givenHeaders { resolvedHeaders.append((try name.resolve(context), try value.resolve(context))) }
        let state = appState(context, appName)
        state.configuration = configuration
        state.node = context.world.node(node)
        state.delegate = resolvedHeaders.isEmpty ? nil : ScenarioDelegate(headers: resolvedHeaders)
        return try launch(state, appName, as: variable, context)
    }
}

private func parseRelaunch(_ args: inout Arguments) throws(ScenarioError) -> any Step {
    var app = "app"
    var label: String?
    while !args.isEmpty {
        switch try args.oneOf(["app", "as"]) {
        case "app": app = try args.name("an app name")
        default: label = try args.name("a variable name")
        }
    }
    let (appName, variable) = (app, label ?? app)
    args.binds(variable, fields: launchFields)
    return Run { context in
        try launch(appState(context, appName), appName, as: variable, context)
    }
}

/// What `launch` and `relaunch` give: the connection id the app found stored, and how many times it was launched.
private let launchFields = ["stored-id", "launches"]

/// A new session manager over the same stored settings: what survives an app restart. Publishes under `label`.
private func launch(_ state: SCPmsApp, _ name: String, as label: String, _ context: ScenarioContext) throws -> Pending? {
    guard let configuration = state.configuration, let node = state.node else {
        throw StepError("app '\(name)' was never launched; use 'scpms launch' first")
    }
    do {
        state.manager = try SCPmsSessionManager(node: node, configuration: configuration, store: state.store, delegate: state.delegate)
    } catch {
        throw StepError("cannot launch app '\(name)': \(error)")
    }
    state.launches += 1
    let storedId = state.store.load().applicationConnectionId ?? ""
    node.trace("app-launched", [("app", name), ("launch", "\(state.launches)"), ("stored-id", storedId)])
    context.publish(label, ["stored-id": storedId, "launches": "\(state.launches)"])
    return nil
}

/// What `scpms start-session`, `register` and `upload-log` ask of the running app, parsed when the line is read.
private enum AppCall: Sendable {
    case startSession(user: Template, password: Template)
    case register
    case uploadLog(message: Template, severity: ClientLogLine.Severity)

    /// The result fields it gives besides `status` and `code`.
    var fields: [String] {
        switch self {
        case .uploadLog: ["lines"]
        case .startSession, .register: ["id", "registration", "http"]
        }
    }
}

private func parseAppCall(_ action: String, _ args: inout Arguments) throws(ScenarioError) -> any Step {
    var app = "app"
    var label = action == "upload-log" ? "log" : "session"
    var user: Template?
    var password: Template?
    var message: Template?
    var severity = ClientLogLine.Severity.info
    var within = Template(literal: "2m")
    var allowed = ["app", "as", "within"]
    if action == "start-session" { allowed += ["user", "password"] }
    if action == "upload-log" { allowed += ["severity", "message"] }
    while !args.isEmpty {
        switch try args.oneOf(allowed) {
        case "app": app = try args.name("an app name")
        case "as": label = try args.name("a variable name")
        case "within": within = try args.duration()
        case "user": user = try args.value("a user name (may be \"\")")
        case "password": password = try args.value("a password (may be \"\")")
        case "message": message = try args.value("the log message")
        default:
            let word = try args.oneOf(ClientLogLine.Severity.allCases.map(\.rawValue))
            severity = ClientLogLine.Severity(rawValue: word) ?? .info
        }
    }
    let call: AppCall
    switch action {
    case "start-session":
        guard let user, let password else { throw args.error("start-session needs 'user USER password PASSWORD'") }
        call = .startSession(user: user, password: password)
    case "upload-log":
        guard let message else { throw args.error("upload-log needs 'message TEXT'") }
        call = .uploadLog(message: message, severity: severity)
    default: call = .register
    }
    let (appName, variable, limit) = (app, label, within)
    args.binds(label, fields: ["status", "code"] + call.fields + ResultBinding.performed)
    return Run { context in
        let state = appState(context, appName)
        guard let manager = state.manager else { throw StepError("app '\(appName)' is not running; use 'scpms launch' first") }
        let timeout = try limit.duration(context)
        switch call {
        case .startSession(let givenUser, let givenPassword):
            let (user, password) = context.signIn(
                "scpms", demo: .scpms, user: try givenUser.resolve(context), password: try givenPassword.resolve(context))
            return context.perform("scpms start-session", label: variable, timeout: timeout) {
                do throws(SCPmsSessionError) {
                    let session = try await manager.startSession(user: user, password: password)
                    return [
                        "status": "ok", "id": session.applicationConnectionId, "registration": session.registration.rawValue, "code": "", "http": "",
                    ]
                } catch {
                    return failure(error, storedId: manager.store.load().applicationConnectionId)
                }
            }
        case .register:
            return context.perform("scpms register", label: variable, timeout: timeout) {
                do throws(SCPmsSessionError) {
                    let id = try await manager.registerApplication()
                    return ["status": "ok", "id": id, "registration": "new", "code": "", "http": ""]
                } catch {
                    return failure(error, storedId: manager.store.load().applicationConnectionId)
                }
            }
        case .uploadLog(let givenMessage, let level):
            let text = try givenMessage.resolve(context)
            let line = ClientLogLine(
                timestamp: ClientLogLine.timestamp(milliseconds: Int64(manager.node.clock.unixTime.components.seconds) * 1000),
                severity: level, correlationId: "", source: appName, location: "scenario", message: text)
            return context.perform("scpms upload-log", label: variable, timeout: timeout) {
                do throws(SCPmsLogUploadError) {
                    let count = try await manager.uploadLogs([line])
                    return ["status": "ok", "lines": "\(count)", "code": ""]
                } catch {
                    return ["status": "error", "lines": "0", "code": error.name, "error": error.description]
                }
            }
        }
    }
}

// MARK: OData and logging

private func parseOData(_ args: inout Arguments) throws(ScenarioError) -> any Step {
    var app = "app"
    var label = "odata"
    var key: Int?
    var top: Int?
    var skip: Int?
    var filter: Template?
    let resource = try args.name("metadata or an entity set like Products")
    while !args.isEmpty {
        switch try args.oneOf(["app", "as", "key", "top", "skip", "filter"]) {
        case "app": app = try args.name("an app name")
        case "as": label = try args.name("a variable name")
        case "key": key = try args.integer("an entity key", in: Int(Int32.min)...Int(Int32.max))
        case "top": top = try args.integer("how many entities at most", in: 0...ODataQuery.maxCount)
        case "skip": skip = try args.integer("how many entities to skip", in: 0...ODataQuery.maxCount)
        default: filter = try args.value("a filter like \"Category eq 'Notebooks'\"")
        }
    }
    if resource == "metadata", key != nil || top != nil || skip != nil || filter != nil {
        throw args.error("'odata metadata' takes no key, top, skip or filter")
    }
    if key != nil, top != nil || skip != nil || filter != nil { throw args.error("'key' reads one entity: no top, skip or filter with it") }
    let (appName, variable, givenKey, givenTop, givenSkip, givenFilter) = (app, label, key, top, skip, filter)
    args.binds(label, fields: ["status", "body", "count", "keys", "code", "http", "uri", "first.*"] + ResultBinding.performed)
    return Run { context in
        let state = appState(context, appName)
        guard let manager = state.manager else { throw StepError("app '\(appName)' is not running; use 'scpms launch' first") }
        let provider = manager.createODataProvider(withName: "WorkbenchDemo")
        var query: [(name: String, value: String)] = []
        if let givenTop { query.append(("$top", "\(givenTop)")) }
        if let givenSkip { query.append(("$skip", "\(givenSkip)")) }
        if let givenFilter { query.append(("$filter", try givenFilter.resolve(context))) }
        let finalQuery = query
        return context.perform("scpms odata", label: variable, timeout: .seconds(120)) {
            do throws(SCPmsODataError) {
                if resource == "metadata" {
                    let body = try await provider.metadata()
                    return ["status": "ok", "body": body, "count": "", "keys": "", "code": "", "http": "200"]
                }
                let entities: [SCPmsODataProvider.Entity]
                if let givenKey {
                    entities = [try await provider.fetch(resource, key: givenKey)]
                } else {
                    entities = try await provider.fetch(resource, query: finalQuery)
                }
                var values = [
                    "status": "ok", "count": "\(entities.count)", "code": "", "http": "200",
                    "keys": entities.map { entityKey($0.uri) }.joined(separator: ","), "uri": entities.first?.uri ?? "",
                ]
                for (name, value) in entities.first?.properties ?? [:] { values["first." + name] = value }
                return values
            } catch {
                return [
                    "status": "error", "count": "0", "keys": "", "code": error.odataCode ?? error.code.rawValue,
                    "http": error.httpStatus.map(String.init) ?? "", "error": error.description,
                ]
            }
        }
    }
}

/// `3` of `https://scpms/app/Products(3)`.
private func entityKey(_ uri: String) -> String {
    guard let open = uri.lastIndex(of: "("), uri.hasSuffix(")") else { return "" }
    return String(uri[uri.index(after: open)..<uri.index(before: uri.endIndex)])
}

/// What `scpms log`, `upload-logs` and `end` ask of the running app, parsed when the line is read.
private enum LoggingCall: Sendable {
    case log(message: Template, severity: ClientLogLine.Severity)
    case uploadLogs
    case end
}

private func parseLogging(_ action: String, _ args: inout Arguments) throws(ScenarioError) -> any Step {
    var app = "app"
    var label = action == "log" ? "logged" : "logs"
    var severity = ClientLogLine.Severity.error
    var message: Template?
    var allowed = ["app", "as"]
    if action == "log" { allowed += ["severity", "message"] }
    while !args.isEmpty {
        switch try args.oneOf(allowed) {
        case "app": app = try args.name("an app name")
        case "as": label = try args.name("a variable name")
        case "message": message = try args.value("the log message")
        default: severity = ClientLogLine.Severity(rawValue: try args.oneOf(ClientLogLine.Severity.allCases.map(\.rawValue))) ?? .error
        }
    }
    let call: LoggingCall
    switch action {
    case "log":
        guard let message else { throw args.error("log needs 'message TEXT'") }
        call = .log(message: message, severity: severity)
    case "upload-logs": call = .uploadLogs
    default: call = .end
    }
    let (appName, variable) = (app, label)
    if case .log = call {
        args.binds(label, fields: ["kept", "pending"])
    } else {
        args.binds(label, fields: ["status", "lines", "code"] + ResultBinding.performed)
    }
    return Run { context in
        let state = appState(context, appName)
        guard let manager = state.manager else { throw StepError("app '\(appName)' is not running; use 'scpms launch' first") }
        switch call {
        case .log(let text, let level):
            // The app logs through the root logger: kept for upload only at or above its level.
            let kept = manager.rootLogger.logger(named: appName).log(level, try text.resolve(context), location: "scenario")
            context.publish(variable, ["kept": "\(kept)", "pending": "\(manager.rootLogger.pending.count)"])
            return nil
        case .uploadLogs:
            return context.perform("scpms upload-logs", label: variable, timeout: .seconds(120)) {
                do throws(SCPmsLogUploadError) {
                    return ["status": "ok", "lines": "\(try await manager.uploadLogs())", "code": ""]
                } catch {
                    return ["status": "error", "lines": "0", "code": error.name, "error": error.description]
                }
            }
        case .end:
            return context.perform("scpms end", label: variable, timeout: .seconds(120)) {
                switch await manager.end() {
                case nil: return ["status": "nothing", "lines": "0", "code": ""]
                case .success(let lines)?: return ["status": "ok", "lines": "\(lines)", "code": ""]
                case .failure(let error)?: return ["status": "error", "lines": "0", "code": error.name, "error": error.description]
                }
            }
        }
    }
}

private func failure(_ error: SCPmsSessionError, storedId: String?) -> [String: String] {
    [
        "status": "error", "code": error.code.rawValue, "http": error.httpStatus.map(String.init) ?? "", "error": error.description,
        "id": storedId ?? "", "registration": "",
    ]
}

// MARK: Admin side

/// What an administrator's `scpms` line does to the running actor, parsed when the line is read; the id or user it is
/// about is resolved when it runs.
private enum AdminCall: Sendable {
    case deleteRegistration(as: String)
    case addUser(password: Template)
    case addApp(logUpload: Bool)
}

private func parseAdmin(_ action: String, _ args: inout Arguments) throws(ScenarioError) -> any Step {
    let first = try args.value(action == "add-app" ? "an application id" : action == "add-user" ? "a user name" : "a registration id")
    let password = action == "add-user" ? try args.value("a password") : nil
    var actorName = "scpms"
    var logUpload = true
    var label = "deleted"
    while !args.isEmpty {
        if args.accept("on") {
            actorName = try args.actor()
            continue
        }
        if action == "delete-registration" {
            try args.expect("as", "or 'on ACTOR'")
            label = try args.name("a variable name")
            continue
        }
        guard action == "add-app" else { throw args.error("expected 'on ACTOR' or the end of the line") }
        try args.expect("log-upload")
        logUpload = try args.oneOf(["on", "off"]) == "on"
    }
    if !args.names.contains(where: { $0.kind == .actorReference }) { args.refer(toActor: actorName) }
    let call: AdminCall
    switch action {
    case "delete-registration":
        args.binds(label, fields: [""])
        call = .deleteRegistration(as: label)
    case "add-user": call = .addUser(password: password ?? Template(literal: ""))
    default: call = .addApp(logUpload: logUpload)
    }
    let (target, actorLabel) = (first, actorName)
    return Run { context in
        guard let running = context.actor(named: actorLabel) as? RunningSCPms else {
            throw StepError("no running scpms actor named '\(actorLabel)'")
        }
        let value = try target.resolve(context)
        switch call {
        case .deleteRegistration(let variable):
            // `failed`: the store failed the write and its retry, so the registration stays; the step goes on, as an
            // administrator told of the error would.
            let outcome: String
            do { outcome = "\(try running.server.deleteRegistration(value))" } catch is SCPmsServer.StoreWriteFailed { outcome = "failed" }
            context.publish(variable, ["": outcome])
        case .addUser(let secret):
            let password = try secret.resolve(context)
            guard !value.isEmpty, !value.contains(":"), !password.isEmpty else {
                throw StepError("add-user needs a non-empty user without ':' and a non-empty password")
            }
            try running.server.addUser(value, password: password)
        case .addApp(let upload):
            guard SCPmsRoute.isValidId(value) else { throw StepError("'\(value)' is not an application id (1…128 letters, digits, '.', '-', '_')") }
            try running.server.addApplication(value, logUploadEnabled: upload)
        }
        return nil
    }
}

extension RunState where Value == SCPmsApp {
    /// Each app's SCPms state (its registration, its store), by the app's name.
    static let scpmsApp = RunState("scpms.app")
}
