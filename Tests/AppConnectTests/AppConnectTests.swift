import AppConnect
import DerivedCredential
import Foundation
import IvantiClient
import Kernel
import Synchronization
import Testing
import Wire

/// A phone with the Ivanti client and one app using the AppConnect library against it over the bus.
struct Phone {
    let kernel = Kernel(seed: 5)
    let ivanti: IvantiClient
    let appConnect: AppConnect

    init(installation: IvantiClient.Installation = .current, start: Bool = true) throws {
        let node = kernel.node("ivanti")
        ivanti = try kernel.run("start ivanti") {
            try await IvantiClient.start(on: node, configuration: IvantiClient.Configuration(installation: installation))
        }
        Self.install(kernel.node("phone"), urlSchemes: ["provider-ac", "dc", "mycustomdcscheme"])
        appConnect = try #require(AppConnect(node: kernel.node("phone"), scheme: "provider-ac"))
        if start {
            appConnect.start()
            kernel.loop.runDue()
        }
    }

    func state(_ change: (inout IvantiClient.State) -> Void) {
        ivanti.setState(change)
        kernel.loop.runDue()
    }

    /// Installs `node` as an app whose Info.plist declares `urlSchemes` and queries `queries` (by default what
    /// the Ivanti docs tell AppConnect apps to list).
    static func install(_ node: Node, urlSchemes: [String], queries: [String] = AppConnect.queriesSchemes) {
        node.bus.declare(app: node.name, URLBus.AppDeclaration(urlSchemes: urlSchemes, queriesSchemes: queries))
    }

    /// The console errors `node` logged, in order.
    func console(_ node: String) -> [String] {
        kernel.trace.all.filter { $0.actor == node && $0.event == "console" }.compactMap { $0["message"] }
    }

    func credential(
        serial: String = "123-4567-8910", tags: [CredentialTag] = [.authentication, .encryption, .signing],
        expires: Date = inAMonth
    ) -> DerivedCredential {
        Self.credential(serial: serial, tags: tags, expires: expires, appConnect: appConnect)
    }

    static func fixture(_ file: String) -> [UInt8] {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return [UInt8](FileManager.default.contents(atPath: directory.appendingPathComponent("Fixtures/ivanti/\(file)").path) ?? Data())
    }

    /// 30 days after the simulated calendar's start (2026-01-01).
    static let inAMonth = Date(timeIntervalSince1970: 1_767_225_600 + 30 * 86_400)

    static func credential(
        serial: String = "123-4567-8910", tags: [CredentialTag] = [.authentication, .encryption, .signing],
        expires: Date = inAMonth, appConnect: AppConnect
    ) -> DerivedCredential {
        DerivedCredential(
            name: "Derived Credential Name", serialNumber: serial, expirationDate: expires,
            certificates: tags.map { tag in
                let name = tag.rawValue.lowercased()
                return .init(tag: tag, certificate: fixture("\(name).cert.der"), privateKey: fixture("\(name).key.der"))
            }, appConnect: appConnect)!
    }
}

/// Records what the delegates are told.
final class Recorder: AppConnectDelegate, DerivedCredentialServiceDelegate, Sendable {
    let changes = Mutex<[SecureServicesAvailability]>([])
    let renewals = Mutex(0)
    func appConnect(_ appConnect: AppConnect, secureServicesAvailabilityChangedTo availability: SecureServicesAvailability) {
        changes.withLock { $0.append(availability) }
    }
    func derivedCredentialServiceDidRequestNewCredential(_ service: DerivedCredentialService) { renewals.withLock { $0 += 1 } }
}

@Suite struct DerivedCredentialInitializerTests {
    @Test func theInitializerFailsOnTheOriginalsInvalidCasesAndLogsWhyToTheConsole() throws {
        let phone = try Phone()
        let date = Date(timeIntervalSince1970: 0)
        let certificates = [DerivedCredential.Certificate(tag: .signing, certificate: [1], privateKey: [2])]
        let ac = phone.appConnect
        #expect(DerivedCredential(name: nil, serialNumber: "1", expirationDate: date, certificates: certificates, appConnect: ac) == nil)
        #expect(DerivedCredential(name: "", serialNumber: "1", expirationDate: date, certificates: certificates, appConnect: ac) == nil)
        #expect(DerivedCredential(name: "n", serialNumber: nil, expirationDate: date, certificates: certificates, appConnect: ac) == nil)
        #expect(DerivedCredential(name: "n", serialNumber: "", expirationDate: date, certificates: certificates, appConnect: ac) == nil)
        #expect(DerivedCredential(name: "n", serialNumber: "1", expirationDate: nil, certificates: certificates, appConnect: ac) == nil)
        #expect(DerivedCredential(name: "n", serialNumber: "1", expirationDate: date, certificates: nil, appConnect: ac) == nil)
        #expect(DerivedCredential(name: "n", serialNumber: "1", expirationDate: date, certificates: [], appConnect: ac) == nil)
        let prefix = "ACDerivedCredential initWithName:serialNumber:expirationDate:certificates: returned nil: "
        #expect(
            phone.console("phone")
                == [
                    "name is nil", "name is an empty string", "serialNumber is nil", "serialNumber is an empty string",
                    "expirationDate is nil", "certificates is nil", "certificates is an empty array",
                ].map { prefix + $0 })
        #expect(phone.kernel.trace.all.filter { $0.event == "console" }.allSatisfy { $0["level"] == "error" })
        #expect(DerivedCredential(name: "n", serialNumber: "1", expirationDate: date, certificates: certificates, appConnect: ac) != nil)
        #expect(phone.console("phone").count == 7, "a credential that is made logs nothing")
    }
}

/// iOS's Info.plist rules: `LSApplicationQueriesSchemes` limits `canOpenURL`, `CFBundleURLTypes` what an app handles.
@Suite struct InfoPlistTests {
    @Test func canOpenURLAnswersOnlyForDeclaredQuerySchemes() throws {
        let phone = try Phone()
        #expect(phone.appConnect.derivedCredentialSupport == .present)
        for (app, queries, support) in [
            ("mail", [String](), DerivedCredentialSupport.missingClient), ("notes", ["appconnect"], .oldClient),
            ("maps", ["appconnectdc"], .present),
        ] {
            let node = phone.kernel.node(app)
            Phone.install(node, urlSchemes: ["\(app)-ac"], queries: queries)
            let appConnect = try #require(AppConnect(node: node, scheme: "\(app)-ac"))
            #expect(appConnect.derivedCredentialSupport == support, "\(app) queries \(queries)")
        }
        let refusal = #"-canOpenURL: failed for URL: "appconnectdc://" - error: "This app is not allowed to query for scheme appconnectdc""#
        #expect(phone.console("mail").contains(refusal))
        #expect(phone.console("notes").contains(refusal))
        #expect(phone.console("maps").isEmpty)
        // The system's own view still sees the client; an app that never declared anything is told nothing.
        #expect(phone.kernel.bus.canOpen("appconnectdc://"))
        #expect(!phone.kernel.bus.canOpen("appconnectdc://", from: "stranger"))
        #expect(phone.kernel.bus.canOpen("appconnectdc://", from: "phone"))
        #expect(!phone.kernel.bus.canOpen("nobody://", from: "phone"), "declared but unhandled")
    }

    @Test func anAppHandlesOnlyTheURLTypesItDeclared() throws {
        let phone = try Phone()
        #expect(DerivedCredentialService(brand: "Brand", callbackScheme: "otherdc", appConnect: phone.appConnect) == nil)
        #expect(phone.console("phone").last?.contains("callback scheme otherdc is not among the app's URL types") == true)
        #expect(phone.kernel.bus.owner(of: "otherdc") == nil)
        #expect(!phone.kernel.bus.register(scheme: "otherdc", owner: "phone", on: phone.kernel.node("phone").eventLoop) { _, _ in })
        #expect(phone.kernel.trace.all.contains { $0.event == "scheme-undeclared" && $0["scheme"] == "otherdc" })
        #expect(DerivedCredentialService(brand: "Brand", callbackScheme: "dc", appConnect: phone.appConnect) != nil)
        // AppConnect's own scheme must be declared too.
        let node = phone.kernel.node("mail")
        Phone.install(node, urlSchemes: ["maildc"])
        let mail = try #require(AppConnect(node: node, scheme: "mail-ac"))
        #expect(!mail.start())
        #expect(phone.console("mail").last?.contains("AppConnect scheme mail-ac is not among the app's URL types") == true)
        // The Ivanti client declares its own, per installed version.
        #expect(phone.kernel.bus.declaration(of: "ivanti")?.urlSchemes == ["appconnect", "appconnectdc"])
        phone.ivanti.setInstallation(.old)
        #expect(phone.kernel.bus.declaration(of: "ivanti")?.urlSchemes == ["appconnect"])
        phone.ivanti.setInstallation(.missing)
        #expect(phone.kernel.bus.declaration(of: "ivanti") == nil)
    }
}

/// One app in front: `send` launches the Ivanti client and control does not come back by itself.
@Suite struct AppSwitchTests {
    @Test func sendingBringsTheIvantiClientToTheFrontAndTheAppIsToldWhenItIsBack() throws {
        let phone = try Phone()
        let bus = phone.kernel.bus
        let node = phone.kernel.node("phone")
        let told = Mutex<[URLBus.LifecycleEvent]>([])
        bus.observeLifecycle(of: "phone", on: node.eventLoop) { event in
            told.withLock { $0.append(event) }
            node.trace(event.rawValue)
        }
        #expect(bus.activate("phone"))
        phone.kernel.loop.runDue()
        #expect(bus.foregroundApp == "phone")
        // AppConnect's state messages do not switch apps.
        phone.state { $0.ready = true }
        #expect(bus.foregroundApp == "phone")

        let service = try #require(DerivedCredentialService(brand: "Brand", callbackScheme: "dc", appConnect: phone.appConnect))
        try service.send(phone.credential())
        phone.kernel.loop.runDue()
        #expect(bus.foregroundApp == "ivanti")
        phone.kernel.advance(by: .seconds(300))
        #expect(bus.foregroundApp == "ivanti", "control does not return to the app by itself")
        #expect(try phone.ivanti.requestNewCredential(app: "phone"))
        phone.kernel.loop.runDue()
        #expect(bus.foregroundApp == "phone")
        #expect(told.withLock { $0 } == [.didBecomeActive, .willResignActive, .didBecomeActive])

        // The order: the app sends, the Ivanti client comes to the front (the app resigns), stores, … asks for a new
        // credential, the app comes back, handles the URL and is then told it is active.
        let order = phone.kernel.trace.all.compactMap { e -> String? in
            switch (e.actor, e.event) {
            case ("phone", "credential-sent"), ("phone", "will-resign-active"), ("phone", "new-credential-requested"), ("phone", "did-become-active"),
                ("ivanti", "credential-stored"), ("ivanti", "renewal-requested"):
                return "\(e.actor) \(e.event)"
            case ("bus", "foreground"): return "front \(e["app"] ?? "")"
            default: return nil
            }
        }
        #expect(
            order == [
                "front phone", "phone did-become-active", "phone credential-sent", "front ivanti", "phone will-resign-active",
                "ivanti credential-stored", "ivanti renewal-requested", "front phone", "phone new-credential-requested",
                "phone did-become-active",
            ])
        #expect(!bus.activate("nobody"))
    }
}

@Suite struct DerivedCredentialServiceTests {
    @Test func theOriginalCallFlowStoresTheCredential() throws {
        let phone = try Phone()
        #expect(phone.appConnect.authState == .authorized && phone.appConnect.managedPolicy == .managed && phone.appConnect.isReady)
        #expect(phone.appConnect.derivedCredentialSupport == .present)
        #expect(phone.appConnect.canSendCredential)
        let service = try #require(
            DerivedCredentialService(brand: "Derived Credential Provider Name", callbackScheme: "MyCustomDcScheme", appConnect: phone.appConnect))
        try service.send(phone.credential())
        phone.kernel.loop.runDue()
        #expect(phone.ivanti.lastOutcome?.result == "stored")
        #expect(try phone.ivanti.credentials(of: "phone").first?.callbackScheme == "mycustomdcscheme")
        #expect(phone.kernel.loop.violations.isEmpty)
    }

    @Test func theServiceInitializerFailsOnEmptyParametersAndWithoutSupport() throws {
        let phone = try Phone()
        #expect(DerivedCredentialService(brand: "", callbackScheme: "dc", appConnect: phone.appConnect) == nil)
        #expect(DerivedCredentialService(brand: "Brand", callbackScheme: "", appConnect: phone.appConnect) == nil)
        #expect(DerivedCredentialService(brand: "Brand", callbackScheme: "not a scheme", appConnect: phone.appConnect) == nil)
        #expect(DerivedCredentialService(brand: "Brand", callbackScheme: "provider-ac", appConnect: phone.appConnect) == nil)
        #expect(DerivedCredentialService(brand: "Brand", callbackScheme: "appconnectdc", appConnect: phone.appConnect) == nil)
        for installation in [IvantiClient.Installation.old, .missing] {
            phone.ivanti.setInstallation(installation)
            #expect(DerivedCredentialService(brand: "Brand", callbackScheme: "dc", appConnect: phone.appConnect) == nil)
        }
    }

    @Test func sendReportsTheSDKsErrorCodes() throws {
        let phone = try Phone()
        let service = try #require(DerivedCredentialService(brand: "Brand", callbackScheme: "dc", appConnect: phone.appConnect))
        func code(_ credential: DerivedCredential? = nil) -> Int? {
            do {
                try service.send(credential ?? phone.credential())
                return nil
            } catch {
                return error.code.rawValue
            }
        }
        phone.state { $0.passcodeEntered = false }
        #expect(code() == -1002)
        phone.state {
            $0.passcodeEntered = true
            $0.ready = false
        }
        #expect(code() == -1005)
        phone.state { $0.ready = true }
        let duplicate = try #require(
            DerivedCredential(
                name: "n", serialNumber: "1", expirationDate: Date(timeIntervalSince1970: 1_800_000_000),
                certificates: phone.credential().certificates + phone.credential().certificates.prefix(1),
                appConnect: phone.appConnect))
        #expect(code(duplicate) == -1001)
        phone.ivanti.setInstallation(.old)
        #expect(code() == -1004)
        phone.ivanti.setInstallation(.missing)
        #expect(code() == -1003)
        phone.ivanti.setInstallation(.current)
        #expect(code() == nil)
        phone.kernel.loop.runDue()
        #expect(phone.ivanti.lastOutcome?.result == "stored")
    }

    @Test func anAppThatNeverStartedAppConnectIsNotReady() throws {
        let phone = try Phone(start: false)
        let service = try #require(DerivedCredentialService(brand: "Brand", callbackScheme: "dc", appConnect: phone.appConnect))
        do {
            try service.send(phone.credential())
            Issue.record("sent before AppConnect was ready")
        } catch {
            #expect(error.code == .notReady)
        }
    }

    @Test func renewalRequestsReachTheServiceDelegate() throws {
        let phone = try Phone()
        let recorder = Recorder()
        let service = try #require(DerivedCredentialService(brand: "Brand", callbackScheme: "dc", appConnect: phone.appConnect))
        service.delegate = recorder
        try service.send(phone.credential())
        phone.kernel.loop.runDue()
        #expect(try phone.ivanti.requestNewCredential(app: "phone"))
        phone.kernel.loop.runDue()
        #expect(recorder.renewals.withLock { $0 } == 1)
        #expect(service.newCredentialRequests == 1)
        #expect(service.handle(url: "dc://new"))
        #expect(!service.handle(url: "dc://old"))
        #expect(!service.handle(url: "other://new"))
    }
}

@Suite struct AppConnectAvailabilityTests {
    @Test func theDelegateAndTheStreamHearEveryChange() throws {
        let phone = try Phone(start: false)
        let recorder = Recorder()
        phone.appConnect.delegate = recorder
        let stream = phone.appConnect.secureServicesAvailabilityChanges()
        // Bounded: the kernel's wait below fails ("'collect' is waiting but nothing is scheduled to wake it") if the
        // stream stops short of four changes, and after 1 s of virtual time at most.
        let collected = phone.kernel.spawn("collect") { () -> [SecureServicesAvailability] in
            var seen: [SecureServicesAvailability] = []
            for await availability in stream {
                seen.append(availability)
                if seen.count == 4 { break }
            }
            return seen
        }
        phone.appConnect.start()
        phone.kernel.loop.runDue()
        phone.state { $0.passcodeEntered = false }
        phone.state { $0.managedPolicy = .unmanaged }  // no availability change: nothing is told
        phone.state { $0.passcodeEntered = true }
        #expect(recorder.changes.withLock { $0 } == [.available, .unavailable, .available])
        #expect(try phone.kernel.wait(for: collected, timeout: .seconds(1)) == [.unavailable, .available, .unavailable, .available])
    }

    @Test func anAppReadsBackOnlyItsOwnCertificates() throws {
        let phone = try Phone()
        let service = try #require(DerivedCredentialService(brand: "Brand", callbackScheme: "dc", appConnect: phone.appConnect))
        try service.send(phone.credential())
        phone.kernel.loop.runDue()
        let appConnect = phone.appConnect
        let der = try phone.kernel.run("read") { try await appConnect.certificate(serialNumber: "123-4567-8910", tag: .encryption) }
        #expect(der == Phone.fixture("encryption.cert.der"))

        Phone.install(phone.kernel.node("mail"), urlSchemes: ["mail-ac"])
        let mail = try #require(AppConnect(node: phone.kernel.node("mail"), scheme: "mail-ac"))
        mail.start()
        phone.kernel.loop.runDue()
        #expect(throws: AppConnectError.self) {
            try phone.kernel.run("steal") { try await mail.certificate(serialNumber: "123-4567-8910", tag: .encryption) }
        }
    }
}

/// An impostor on the Ivanti client's schemes, to reach the library's last-resort answers.
@Suite struct ImpostorClientTests {
    /// Handles `appconnect` and `appconnectdc` on node "impostor", answering registrations with `status`.
    static func phone(answering status: AppConnectStatus?) throws -> (Kernel, AppConnect) {
        let kernel = Kernel(seed: 3)
        let impostor = kernel.node("impostor")
        for scheme in [IvantiScheme.appConnect, IvantiScheme.derivedCredential] {
            impostor.bus.register(scheme: scheme, owner: "impostor", on: impostor.eventLoop) { url, _ in
                guard let status, case .register(let appScheme)? = try? AppConnectRequest(parsing: url) else { return }
                impostor.bus.open(status.url(appScheme: appScheme).description, from: "impostor")
            }
        }
        Phone.install(kernel.node("phone"), urlSchemes: ["provider-ac", "dc"])
        let appConnect = try #require(AppConnect(node: kernel.node("phone"), scheme: "provider-ac"))
        appConnect.start()
        kernel.loop.runDue()
        return (kernel, appConnect)
    }

    @Test func anUnusableClientKeyIsAnUnknownError() throws {
        // The all-zero X25519 point gives no shared secret.
        let (kernel, appConnect) = try Self.phone(
            answering: AppConnectStatus(
                authState: .authorized, managedPolicy: .managed, secureServices: .available,
                ready: true, clientKey: Array(repeating: 0, count: 32)))
        // The world lives as long as its kernel.
        defer { withExtendedLifetime(kernel) {} }
        let service = try #require(DerivedCredentialService(brand: "Brand", callbackScheme: "dc", appConnect: appConnect))
        do {
            try service.send(Phone.credential(appConnect: appConnect))
            Issue.record("sealed for an all-zero key")
        } catch {
            #expect(error.code == .unknown)
        }
    }

    @Test func aClientThatNeverAnswersTimesTheCertificateRequestOut() throws {
        let (kernel, appConnect) = try Self.phone(
            answering: AppConnectStatus(
                authState: .authorized, managedPolicy: .managed, secureServices: .available,
                ready: true, clientKey: Array(repeating: 9, count: 32)))
        let started = kernel.now
        #expect(throws: AppConnectError.self) {
            try kernel.run("read") { try await appConnect.certificate(serialNumber: "1", tag: .signing) }
        }
        #expect(kernel.now - started == .seconds(5))
    }
}
