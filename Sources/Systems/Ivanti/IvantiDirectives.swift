import AppConnect
import DerivedCredential
import Foundation
import IvantiClient
import Scenario
import Synchronization
import SystemKit
import Wire

/// The Ivanti system's directives: the client's knobs (`ivanti …`) and an app using AppConnect (`appconnect …`).
extension Directive {
    /// `ivanti …`: the Ivanti client's knobs (version, AppConnect state, renewal requests) and what its vault holds.
    static let ivanti = Directive(
        "ivanti",
        usage:
            "ivanti install current|old | uninstall | state [auth W] [policy W] [passcode entered|missing] [ready true|false] | renew APP [as NAME] (${NAME} true/false, ${NAME.error}) | vault [APP] [as NAME]",
        summary: "drive the Ivanti client: version, AppConnect state (sent to apps), renewal requests, the vault and the last credential received",
        defaults: "state: what the line leaves out stays as it was; renew: as renew; vault: every app's credentials, as vault",
        keywords: [
            "install", "uninstall", "state", "renew", "vault", "current", "old", "auth", "policy", "passcode", "ready", "as",
            "authorized", "unauthorized", "retired", "managed", "unmanaged", "unknown", "entered", "missing",
        ]
    ) { args throws(ScenarioError) in
        switch try args.oneOf(["install", "uninstall", "state", "renew", "vault"]) {
        case "install":
            let version = try args.oneOf(["current", "old"])
            try args.end()
            return Run { context in
                try ivantiClient(context).setInstallation(version == "old" ? .old : .current)
                context.world.settle()
                return nil
            }
        case "uninstall":
            try args.end()
            return Run { context in
                try ivantiClient(context).setInstallation(.missing)
                context.world.settle()
                return nil
            }
        case "state":
            let change = try parseStateChange(&args)
            return Run { context in
                try ivantiClient(context).setState(change)
                context.world.settle()
                return nil
            }
        case "renew":
            let app = try args.name("the app (node) to ask for a new credential")
            let label = args.accept("as") ? try args.name("a variable name") : "renew"
            try args.end()
            args.binds(label, fields: ["", "error"])
            return Run { context in
                let client = try ivantiClient(context)
                do {
                    let delivered = try client.requestNewCredential(app: app)
                    context.world.settle()
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
            args.binds(
                label,
                fields: ["count", "serials", "tags", "owners", "last.app", "last.result", "last.serial", "last.problem", "last.detail"])
            return Run { context in
                // What was opened on the bus at this instant (e.g. by `open`) reaches the client first.
                context.world.settle()
                let client = try ivantiClient(context)
                let stored = try client.credentials(of: owner)
                var values = [
                    "count": String(stored.count), "serials": stored.map(\.serialNumber).joined(separator: ","),
                    "tags": stored.last?.tags.joined(separator: ",") ?? "", "owners": stored.map(\.owner).joined(separator: ","),
                ]
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
    }

    /// `a,b,c`: URL schemes, each checked.
    private static func schemeList(_ args: inout Arguments, _ what: String) throws(ScenarioError) -> [String] {
        let list = try args.take(what).text
        let schemes = list.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        for scheme in schemes where !BusURL.isScheme(scheme) {
            throw args.error("'\(scheme)' in '\(list)' is not a URL scheme; expected a letter, then letters, digits, + - or .")
        }
        return schemes
    }

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
    private static func ivantiClient(_ context: ScenarioContext) throws -> IvantiClient {
        guard let running = context.startedActors.lazy.compactMap({ $0.actor as? RunningIvanti }).first else {
            throw StepError("no Ivanti client is running; start it with 'start ivanti'")
        }
        return running.client
    }

    /// `appconnect …`: an app using the AppConnect client module, step by step as in the original's call flow.
    static let appConnect = Directive(
        "appconnect",
        usage: """
            appconnect start [app NODE] scheme S [url-types S,…] [queries S,…|none] [as NAME] | check [app NODE] [as NAME] | \
            send [app NODE] brand B callback S name N serial S expires D certs TAG[=FIXTURE],… [pad N] [fixtures DIR] [as NAME] | \
            certificate [app NODE] serial S tag T [as NAME]
            """,
        summary:
            "act as an AppConnect app: start AppConnect, check support/canSend/state, send a derived credential (codes -1000…-1005), read a certificate back",
        defaults: """
            app phone; as appconnect (start), check, send, certificate; start: no url-types, queries the two the AppConnect \
            library needs (appconnect, appconnectdc); send: pad 0, fixtures Fixtures/ivanti
            """,
        keywords: [
            "start", "check", "send", "certificate", "app", "scheme", "url-types", "queries", "none", "as", "brand", "callback", "name",
            "serial", "expires", "certs", "pad", "fixtures", "tag",
        ]
    ) { args throws(ScenarioError) in
        let command = try args.oneOf(["start", "check", "send", "certificate"])
        let app = args.accept("app") ? try args.name("an app (node) name") : "phone"
        args.declare(node: app)
        switch command {
        case "start":
            try args.expect("scheme", "(the app's AppConnect scheme)")
            let scheme = try args.name("a URL scheme")
            var urlTypes: [String] = []
            var queries = AppConnect.queriesSchemes
            var label = "appconnect"
            while !args.isEmpty {
                switch try args.oneOf(["url-types", "queries", "as"]) {
                case "url-types": urlTypes = try schemeList(&args, "the app's other URL schemes, like providerdc")
                case "queries":
                    queries = args.accept("none") ? [] : try schemeList(&args, "the schemes canOpenURL may ask about, like appconnect,appconnectdc")
                default: label = try args.name("a variable name")
                }
            }
            let declaration = URLBus.AppDeclaration(urlSchemes: [scheme] + urlTypes, queriesSchemes: queries)
            let variable = label
            args.binds(variable, fields: [""])
            return Run { context in
                let node = context.world.node(app)
                guard let appConnect = AppConnect(node: node, scheme: scheme) else { throw StepError("'\(scheme)' is not a URL scheme") }
                // The app as installed (its Info.plist), launched by the user, then starting AppConnect.
                node.bus.declare(app: app, declaration)
                let session = AppSession(appConnect: appConnect)
                appConnect.delegate = session
                node.bus.observeLifecycle(of: app, on: node.eventLoop) { [weak session] event in session?.told(event) }
                context.setState(AppSession.state, Optional(session), for: app)
                // Other systems' clients (a print client presenting the credential in TLS) find it by the app's name.
                HeldIdentities.register(app: app, in: context) { serial, tag throws(HeldIdentityUnavailable) in
                    try await session.identity(serialNumber: serial, tag: tag)
                }
                node.bus.activate(app)
                let introduced = appConnect.start()
                context.world.settle()
                context.publish(variable, ["": String(introduced)])
                return nil
            }
        case "check":
            let label = args.accept("as") ? try args.name("a variable name") : "check"
            try args.end()
            args.binds(
                label,
                fields: ["support", "canSend", "auth", "policy", "secure", "ready", "changes", "newRequests", "active", "activations"])
            return Run { context in
                let session = try AppSession.of(app, context)
                let ac = session.appConnect
                context.publish(
                    label,
                    [
                        "support": ac.derivedCredentialSupport.word, "canSend": String(ac.canSendCredential),
                        "auth": ac.authState.word, "policy": ac.managedPolicy.word, "secure": ac.secureServicesAvailability.word,
                        "ready": String(ac.isReady), "changes": session.availabilityChanges.map(\.word).joined(separator: ","),
                        "newRequests": String(session.newCredentialRequests),
                        "active": String(ac.node.bus.foregroundApp == app), "activations": String(session.activations),
                    ])
                return nil
            }
        case "send":
            let request = try SendRequest.parse(&args)
            args.binds(request.label, fields: ["status", "code", "error"])
            return Run { context in
                let session = try AppSession.of(app, context)
                let values = try request.run(session: session, context: context)
                context.world.settle()
                context.publish(request.label, values)
                return nil
            }
        default:
            try args.expect("serial")
            let serial = try args.value("a serial number")
            try args.expect("tag")
            let tagWord = try args.name("a tag")
            guard let tag = CredentialTag(word: tagWord) else {
                throw args.error("tag '\(tagWord)': expected one of \(CredentialTag.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let label = args.accept("as") ? try args.name("a variable name") : "certificate"
            try args.end()
            args.binds(label, fields: ["status", "bytes"] + ResultBinding.performed)
            return Run { context in
                let appConnect = try AppSession.of(app, context).appConnect
                let serialNumber = try serial.resolve(context)
                return context.perform("appconnect certificate", label: label, timeout: .seconds(10)) {
                    do {
                        let der = try await appConnect.certificate(serialNumber: serialNumber, tag: tag)
                        return ["status": "granted", "bytes": String(der.count)]
                    } catch {
                        return ["status": "denied", "bytes": "0", "error": "\(error)"]
                    }
                }
            }
        }
    }
}

/// One app's AppConnect objects for the rest of the scenario; also its delegate, so the scenario can see the
/// availability changes and renewal requests the app was told about.
final class AppSession: AppConnectDelegate, DerivedCredentialServiceDelegate, Sendable {
    let appConnect: AppConnect
    private let mutable = Mutex<
        (
            changes: [SecureServicesAvailability], services: [String: DerivedCredentialService], activations: Int,
            keys: [String: [String: [UInt8]]]
        )
    >(([], [:], 0, [:]))

    init(appConnect: AppConnect) { self.appConnect = appConnect }

    /// Each app's session, by the app's name.
    static let state = RunState<AppSession?>("appconnect")

    static func of(_ app: String, _ context: ScenarioContext) throws -> AppSession {
        guard let session = context.state(state, for: app, create: { nil }) else {
            throw StepError("app '\(app)' has not started AppConnect; use 'appconnect start app \(app) scheme S' first")
        }
        return session
    }

    var availabilityChanges: [SecureServicesAvailability] { mutable.withLock { $0.changes } }
    var newCredentialRequests: Int { mutable.withLock { $0.services.values.reduce(0) { $0 + $1.newCredentialRequests } } }

    /// The app keeps one service per callback scheme, as an app keeps its service object.
    func service(brand: String, callbackScheme: String) -> DerivedCredentialService? {
        if let existing = mutable.withLock({ $0.services[callbackScheme.lowercased()] }), existing.brand == brand { return existing }
        guard let service = DerivedCredentialService(brand: brand, callbackScheme: callbackScheme, appConnect: appConnect) else { return nil }
        service.delegate = self
        mutable.withLock { $0.services[service.callbackScheme] = service }
        return service
    }

    /// The app keeps the private keys of the credentials it sent (it made them; the Ivanti client never hands a
    /// key back), by serial number and tag.
    func keep(serialNumber: String, _ certificates: [DerivedCredential.Certificate]) {
        mutable.withLock { all in
            for certificate in certificates { all.keys[serialNumber, default: [:]][certificate.tag] = certificate.privateKey }
        }
    }

    /// The TLS identity the app holds for its credential `serialNumber`: the `tag` certificate as the Ivanti
    /// client vaulted it, read back through AppConnect (so a credential the client refused, or never got, gives
    /// none), with the private key the app kept when it sent the credential.
    func identity(serialNumber: String, tag word: String) async throws(HeldIdentityUnavailable) -> (certificate: [UInt8], privateKey: [UInt8]) {
        guard let tag = CredentialTag(rawValue: word), let key = mutable.withLock({ $0.keys[serialNumber]?[tag.rawValue] }) else {
            throw HeldIdentityUnavailable("app \(appConnect.node.name) sent no credential \(serialNumber) with a \(word) certificate")
        }
        do {
            return (try await appConnect.certificate(serialNumber: serialNumber, tag: tag), key)
        } catch {
            throw HeldIdentityUnavailable("the Ivanti client gave no \(tag.rawValue) certificate of credential \(serialNumber): \(error)")
        }
    }

    /// How many times the app was told it became active.
    var activations: Int { mutable.withLock { $0.activations } }

    /// The app delegate's `applicationDidBecomeActive` / `applicationWillResignActive`.
    func told(_ event: URLBus.LifecycleEvent) {
        if event == .didBecomeActive { mutable.withLock { $0.activations += 1 } }
        appConnect.node.trace(event.rawValue)
    }

    func appConnect(_ appConnect: AppConnect, secureServicesAvailabilityChangedTo availability: SecureServicesAvailability) {
        mutable.withLock { $0.changes.append(availability) }
    }

    func derivedCredentialServiceDidRequestNewCredential(_ service: DerivedCredentialService) {}
}

/// `appconnect send …`, parsed.
private struct SendRequest: Sendable {
    var brand = Template(literal: "")
    var callback = Template(literal: "")
    var name = Template(literal: "")
    var serial = Template(literal: "")
    var expires = Template(literal: "")
    var certs: [(tag: String, fixture: String)] = []
    var padding = 0
    var fixtures: Template?
    var label = "send"

    static func parse(_ args: inout Arguments) throws(ScenarioError) -> SendRequest {
        var request = SendRequest()
        var seen: Set<String> = []
        while !args.isEmpty {
            let word = try args.oneOf(["brand", "callback", "name", "serial", "expires", "certs", "pad", "fixtures", "as"])
            seen.insert(word)
            switch word {
            case "brand": request.brand = try args.value("the provider's brand")
            case "callback": request.callback = try args.value("the app's callback scheme")
            case "name": request.name = try args.value("the credential's name")
            case "serial": request.serial = try args.value("the serial number")
            case "expires": request.expires = try args.duration("the lifetime from now, like 720h (negative: already expired)", signed: true)
            case "pad": request.padding = try args.integer("bytes to append to each certificate", in: 0...(16 << 20))
            case "fixtures": request.fixtures = try args.path("a directory of <fixture>.cert.der / <fixture>.key.der files", directory: true)
            case "as": request.label = try args.name("a variable name")
            default:
                let list = try args.take("TAG[=FIXTURE],…").text
                for item in list.split(separator: ",", omittingEmptySubsequences: false) {
                    let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                    guard let tagWord = parts.first, !tagWord.isEmpty else { throw args.error("empty entry in certs '\(list)'") }
                    request.certs.append((tagWord, parts.count == 2 ? parts[1] : tagWord.lowercased()))
                }
            }
        }
        for required in ["brand", "callback", "name", "serial", "expires", "certs"] where !seen.contains(required) {
            throw args.error("expected '\(required) …' in appconnect send")
        }
        return request
    }

    /// Builds the credential as the app would, then sends it; returns `status` (`sent`, `failed`,
    /// `no-credential` when the initializer returned nil, `no-service` when the service's did), `code`, `error`.
    func run(session: AppSession, context: ScenarioContext) throws -> [String: String] {
        let directory = try fixtureDirectory(context)
        var certificates: [DerivedCredential.Certificate] = []
        for (tag, fixture) in certs {
            let certificate = try Self.read(directory, "\(fixture).cert.der") + [UInt8](repeating: 0, count: padding)
            let key = try Self.read(directory, "\(fixture).key.der")
            certificates.append(
                DerivedCredential.Certificate(tagName: CredentialTag(word: tag)?.rawValue ?? tag, certificate: certificate, privateKey: key))
        }
        let node = session.appConnect.node
        let lifetime = try expires.duration(context)
        let expirationDate = Date(timeIntervalSince1970: TimeInterval((node.clock.unixTime + lifetime).components.seconds))
        // The AppConnect library answers nil and writes why to the device's console, as on a phone: the app's
        // developer reads it there, and so does `.error`.
        let logged = context.world.traceCount
        // The console line is the library's (`ACDerivedCredential init…: returned nil: REASON`); `.error` is the reason.
        func consoleReason() -> String {
            guard let message = context.world.events(since: logged).last(where: { $0.actor == node.name && $0.event == "console" })?["message"]
            else {
                return "the AppConnect library refused it without a console message"
            }
            return message.range(of: "returned nil: ").map { String(message[$0.upperBound...]) } ?? message
        }
        guard
            let credential = DerivedCredential(
                name: try name.resolve(context), serialNumber: try serial.resolve(context),
                expirationDate: expirationDate, certificates: certificates, appConnect: session.appConnect)
        else {
            return ["status": "no-credential", "code": "", "error": consoleReason()]
        }
        guard let service = session.service(brand: try brand.resolve(context), callbackScheme: try callback.resolve(context)) else {
            return ["status": "no-service", "code": "", "error": consoleReason()]
        }
        do {
            try service.send(credential)
            session.keep(serialNumber: credential.serialNumber, credential.certificates)
            return ["status": "sent", "code": "0", "error": ""]
        } catch {
            return ["status": "failed", "code": String(error.code.rawValue), "error": error.description]
        }
    }

    private func fixtureDirectory(_ context: ScenarioContext) throws -> String {
        if let fixtures { return try ScenarioPaths.existing(try fixtures.resolve(context), in: context, directory: true) }
        return try Fixtures.path("ivanti")
    }

    private static func read(_ directory: String, _ file: String) throws -> [UInt8] {
        let path = directory + "/" + file
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StepError("cannot read fixture \(path) (made by tools/make-ivanti-credentials.sh)")
        }
        return [UInt8](data)
    }
}
