import DerivedCredential
import IvantiClient
import Testing

/// What the Ivanti client accepts and refuses, with payloads sealed by hand (not by the AppConnect library, so
/// the client's own checks are what is tested).
@Suite struct CredentialValidationTests {
    @Test func aCredentialOfAllFourUsesIsStoredForItsApp() throws {
        let world = try World()
        let outcome = try world.send(
            Fixtures.payload([Fixtures.entry(.authentication), Fixtures.entry(.signing), Fixtures.entry(.encryption), Fixtures.entry(.escrow)]))
        #expect(outcome?.result == "stored")
        let stored = try world.client.credentials(of: "phone")
        #expect(stored.map(\.serialNumber) == ["SN-1"])
        #expect(stored.first?.tags == ["Authentication", "Signing", "Encryption", "Escrow"])
        #expect(try world.client.credentials(of: "mail").isEmpty)
        #expect(world.kernel.loop.violations.isEmpty)
    }

    @Test(arguments: [
        ([Fixtures.entry(.authentication, "mismatched")], CredentialProblem.Code.keyMismatch),
        (
            [
                Fixtures.entry(.encryption),
                CredentialPayload.Entry(
                    tag: "Escrow", certificate: Fixtures.bytes("escrow.cert.der"), privateKey: Fixtures.bytes("encryption.key.der")),
            ], .keyMismatch
        ),
        ([Fixtures.entry(.signing, "expired")], .certificateExpired),
        ([Fixtures.entry(.authentication), Fixtures.entry(.authentication, "signing")], .duplicateTag),
        (
            [CredentialPayload.Entry(tag: "Signing", certificate: [0x30, 0x03, 1, 2, 3], privateKey: Fixtures.bytes("signing.key.der"))],
            .badCertificate
        ),
        ([CredentialPayload.Entry(tag: "Signing", certificate: Fixtures.bytes("signing.cert.der"), privateKey: [0x30, 0x00])], .badPrivateKey),
        (
            [
                CredentialPayload.Entry(
                    tag: "Signing", certificate: Fixtures.bytes("signing.cert.der"),
                    privateKey: Array(repeating: 1, count: CredentialLimits.maxPrivateKeyBytes + 1))
            ], .oversized
        ),
    ])
    func badKeyMaterialIsRefusedAndNothingIsStored(entries: [CredentialPayload.Entry], code: CredentialProblem.Code) throws {
        let world = try World()
        let outcome = try world.send(Fixtures.payload(entries))
        #expect(outcome?.result == "rejected")
        #expect(outcome?.problem == code.rawValue)
        #expect(outcome?.detail.isEmpty == false)
        #expect(try world.client.credentials().isEmpty)
    }

    @Test func credentialDatesAreCheckedOnTheClientsClock() throws {
        let world = try World()
        let entries = [Fixtures.entry(.authentication)]
        #expect(try world.send(Fixtures.payload(expires: 1_767_225_600 - 1, entries))?.problem == "credential-expired")
        #expect(try world.send(Fixtures.payload(expires: 1_767_225_600 + 21 * 366 * 86_400, entries))?.problem == "expiry-too-far")
        // Ten years on, the certificates themselves have expired (they end on 2035-01-01).
        world.kernel.advance(by: .seconds(10 * 366 * 86_400))
        let late = try world.send(Fixtures.payload(expires: 1_767_225_600 + 11 * 366 * 86_400, entries))
        #expect(late?.problem == "certificate-expired")
        #expect(late?.detail.contains("2035-01-01") == true)
    }

    @Test func aPayloadSealedByAnotherAppDoesNotOpen() throws {
        let world = try World()
        let outcome = try world.send(Fixtures.payload([Fixtures.entry(.authentication)]), from: "mail", sealedAs: "phone")
        #expect(outcome?.problem == "undecryptable")
        #expect(try world.client.credentials().isEmpty)
    }

    @Test func malformedAndOversizedURLsAreRefusedWithoutStoppingTheClient() throws {
        let world = try World()
        let huge = "appconnectdc://credential?v=1&box=" + String(repeating: "A", count: CredentialLimits.maxURLBytes)
        #expect(world.open(huge)?.problem == "oversized")
        #expect(world.open("appconnectdc://credential?v=1&epk=AA&nonce=AA&box=AA")?.problem == "malformed-url")
        #expect(world.open("appconnectdc://nothing")?.detail.contains("expected appconnect://register") == true)
        let outcome = try world.send(Fixtures.payload([Fixtures.entry(.signing)]))
        #expect(outcome?.result == "stored")
    }

    @Test func secureServicesMustBeAvailable() throws {
        let world = try World()
        world.client.setState { $0.passcodeEntered = false }
        #expect(try world.send(Fixtures.payload([Fixtures.entry(.signing)]))?.problem == "services-unavailable")
        world.client.setState { $0.passcodeEntered = true }
        #expect(try world.send(Fixtures.payload([Fixtures.entry(.signing)]))?.result == "stored")
    }
}
