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
        ivanti = try kernel.run("start ivanti") { try await IvantiClient.start(on: node, configuration: IvantiClient.Configuration(installation: installation)) }
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

    static func fixture(_ file: String) -> [UInt8] {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return [UInt8](FileManager.default.contents(atPath: directory.appendingPathComponent("Fixtures/ivanti/\(file)").path) ?? Data())
    }

    /// 30 days after the simulated calendar's start (2026-01-01).
    static let inAMonth = Date(timeIntervalSince1970: 1_767_225_600 + 30 * 86_400)

    static func credential(serial: String = "123-4567-8910", tags: [CredentialTag] = [.authentication, .encryption, .signing],
                           expires: Date = inAMonth) -> DerivedCredential {
        DerivedCredential(name: "Derived Credential Name", serialNumber: serial, expirationDate: expires,
                          certificates: tags.map { tag in
                              let name = tag.rawValue.lowercased()
                              return .init(tag: tag, certificate: fixture("\(name).cert.der"), privateKey: fixture("\(name).key.der"))
                          })!
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
    @Test func theInitializerFailsOnTheSeedsInvalidCases() {
        let date = Date(timeIntervalSince1970: 0)
        let certificates = [DerivedCredential.Certificate(tag: .signing, certificate: [1], privateKey: [2])]
        #expect(DerivedCredential(name: nil, serialNumber: "1", expirationDate: date, certificates: certificates) == nil)
        #expect(DerivedCredential(name: "", serialNumber: "1", expirationDate: date, certificates: certificates) == nil)
        #expect(DerivedCredential(name: "n", serialNumber: nil, expirationDate: date, certificates: certificates) == nil)
        #expect(DerivedCredential(name: "n", serialNumber: "", expirationDate: date, certificates: certificates) == nil)
        #expect(DerivedCredential(name: "n", serialNumber: "1", expirationDate: nil, certificates: certificates) == nil)
        #expect(DerivedCredential(name: "n", serialNumber: "1", expirationDate: date, certificates: nil) == nil)
        #expect(DerivedCredential(name: "n", serialNumber: "1", expirationDate: date, certificates: []) == nil)
        #expect(DerivedCredential(name: "n", serialNumber: "1", expirationDate: date, certificates: certificates) != nil)
    }
}

@Suite struct DerivedCredentialServiceTests {
    @Test func theSeedsCallFlowStoresTheCredential() throws {
        let phone = try Phone()
        #expect(phone.appConnect.authState == .authorized && phone.appConnect.managedPolicy == .managed && phone.appConnect.isReady)
        #expect(phone.appConnect.derivedCredentialSupport == .present)
        #expect(phone.appConnect.canSendCredential)
        let service = try #require(DerivedCredentialService(brand: "Derived Credential Provider Name", callbackScheme: "MyCustomDcScheme", appConnect: phone.appConnect))
        try service.send(Phone.credential())
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
        func code(_ credential: DerivedCredential = Phone.credential()) -> Int? {
            do {
                try service.send(credential)
                return nil
            } catch {
                return error.code.rawValue
            }
        }
        phone.state { $0.passcodeEntered = false }
        #expect(code() == -1002)
        phone.state { $0.passcodeEntered = true; $0.ready = false }
        #expect(code() == -1005)
        phone.state { $0.ready = true }
        let duplicate = DerivedCredential(name: "n", serialNumber: "1", expirationDate: Date(timeIntervalSince1970: 1_800_000_000),
                                          certificates: Phone.credential().certificates + Phone.credential().certificates.prefix(1))!
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
            try service.send(Phone.credential())
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
        try service.send(Phone.credential())
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
        try service.send(Phone.credential())
        phone.kernel.loop.runDue()
        let appConnect = phone.appConnect
        let der = try phone.kernel.run("read") { try await appConnect.certificate(serialNumber: "123-4567-8910", tag: .encryption) }
        #expect(der == Phone.fixture("encryption.cert.der"))

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
        let appConnect = try #require(AppConnect(node: kernel.node("phone"), scheme: "provider-ac"))
        appConnect.start()
        kernel.loop.runDue()
        return (kernel, appConnect)
    }

    @Test func anUnusableClientKeyIsAnUnknownError() throws {
        // The all-zero X25519 point gives no shared secret.
        let (_, appConnect) = try Self.phone(answering: AppConnectStatus(authState: .authorized, managedPolicy: .managed, secureServices: .available,
                                                                        ready: true, clientKey: Array(repeating: 0, count: 32)))
        let service = try #require(DerivedCredentialService(brand: "Brand", callbackScheme: "dc", appConnect: appConnect))
        do {
            try service.send(Phone.credential())
            Issue.record("sealed for an all-zero key")
        } catch {
            #expect(error.code == .unknown)
        }
    }

    @Test func aClientThatNeverAnswersTimesTheCertificateRequestOut() throws {
        let (kernel, appConnect) = try Self.phone(answering: AppConnectStatus(authState: .authorized, managedPolicy: .managed, secureServices: .available,
                                                                             ready: true, clientKey: Array(repeating: 9, count: 32)))
        let started = kernel.now
        #expect(throws: AppConnectError.self) {
            try kernel.run("read") { try await appConnect.certificate(serialNumber: "1", tag: .signing) }
        }
        #expect(kernel.now - started == .seconds(5))
    }
}
