import AppConnect
import DerivedCredential
import Foundation
import IvantiClient
import TestSupport
import Testing
import Wire

/// The same app and Ivanti client on the live wire (real event loops, wall clock, vault on disk).
@Suite struct LiveWireTests {
    @Test func anAppSendsACredentialToTheClientOnTheLiveWire() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ivanti-live-\(UInt64.random(in: 0 ... .max))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let wire = LiveWire(threads: 2)
        let ivanti = try await IvantiClient.start(
            on: wire.node("ivanti"),
            configuration: IvantiClient.Configuration(databasePath: directory.appendingPathComponent("vault.sqlite").path))
        Phone.install(wire.node("phone"), urlSchemes: ["provider-ac", "providerdc"])
        let appConnect = try #require(AppConnect(node: wire.node("phone"), scheme: "provider-ac"))
        let changes = appConnect.secureServicesAvailabilityChanges()
        #expect(appConnect.start())
        _ = try await firstElement(of: changes, within: liveStepLimit, "AppConnect reporting secure services available") { $0 == .available }
        #expect(appConnect.canSendCredential)

        let service = try #require(DerivedCredentialService(brand: "Brand", callbackScheme: "providerdc", appConnect: appConnect))
        // Live, the Ivanti client judges dates by the wall clock (the fixtures are valid until 2035).
        let credential = Phone.credential(serial: "LIVE-1", expires: Date().addingTimeInterval(30 * 86_400), appConnect: appConnect)
        try service.send(credential)
        let deadline = ContinuousClock.now + liveStepLimit
        while ivanti.lastOutcome == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(ivanti.lastOutcome?.result == "stored", "\(String(describing: ivanti.lastOutcome))")
        let der = try await withDeadline(liveStepLimit, "reading back the stored certificate") {
            try await appConnect.certificate(serialNumber: "LIVE-1", tag: .signing)
        }
        #expect(der == Phone.fixture("signing.cert.der"))
        try await ivanti.stop()
        try await wire.shutdown()
    }
}
