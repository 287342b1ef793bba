import Crypto
import DerivedCredential
import Testing

@Suite struct CredentialPayloadTests {
    static func payload(_ entries: [CredentialPayload.Entry] = [.init(tag: "Authentication", certificate: [1], privateKey: [2])]) -> CredentialPayload {
        CredentialPayload(name: "Name", serialNumber: "123", expirationDate: 1_800_000_000, brand: "Brand", callbackScheme: "mydc", certificates: entries)
    }

    @Test func aWellFormedPayloadHasNoProblemAndRoundTripsThroughJSON() throws {
        let payload = Self.payload([.init(tag: "Authentication", certificate: [1, 2], privateKey: [3]), .init(tag: "Escrow", certificate: [4], privateKey: [5])])
        #expect(payload.structuralProblem() == nil)
        #expect(try CredentialPayload(decoding: payload.encoded()) == payload)
        // Canonical: the same payload always encodes to the same bytes, with the SDK's key names.
        #expect(payload.encoded() == payload.encoded())
        #expect(String(decoding: payload.encoded(), as: UTF8.self).contains("\"CredentialArray\":[{\"Cert\":\"AQI=\",\"PrivateKey\":\"Aw==\",\"Tag\":\"Authentication\"}"))
    }

    @Test func eachStructuralRuleHasItsCode() {
        func code(_ change: (inout CredentialPayload) -> Void) -> CredentialProblem.Code? {
            var payload = Self.payload()
            change(&payload)
            return payload.structuralProblem()?.code
        }
        let entry = CredentialPayload.Entry(tag: "Signing", certificate: [1], privateKey: [2])
        #expect(code { $0.name = "" } == .emptyName)
        #expect(code { $0.serialNumber = "" } == .emptySerial)
        #expect(code { $0.brand = "" } == .emptyBrand)
        #expect(code { $0.callbackScheme = "my dc" } == .badScheme)
        #expect(code { $0.certificates = [] } == .noCertificates)
        #expect(code { $0.certificates = [entry, entry] } == .duplicateTag)
        #expect(code { $0.certificates[0].tag = "Bogus" } == .unknownTag)
        #expect(code { $0.certificates[0].certificate = [] } == .emptyCertificate)
        #expect(code { $0.certificates[0].privateKey = [] } == .emptyPrivateKey)
        #expect(code { $0.certificates[0].certificate = Array(repeating: 0, count: CredentialLimits.maxCertificateBytes + 1) } == .oversized)
        #expect(code { $0.certificates[0].privateKey = Array(repeating: 0, count: CredentialLimits.maxPrivateKeyBytes + 1) } == .oversized)
        #expect(code { $0.name = String(repeating: "n", count: CredentialLimits.maxTextBytes + 1) } == .oversized)
        #expect(code { $0.certificates = Array(repeating: entry, count: CredentialLimits.maxCertificates + 1) } == .oversized)
    }

    @Test func notJSONIsAMalformedPayload() {
        do {
            _ = try CredentialPayload(decoding: Array("{}".utf8))
            Issue.record("decoded {} as a payload")
        } catch {
            #expect(error.code == .malformedPayload)
        }
    }
}

@Suite struct PayloadSealTests {
    static let recipient = try! Curve25519.KeyAgreement.PrivateKey(rawRepresentation: Array(repeating: 7, count: 32))
    static let plaintext = Array("the payload".utf8)

    static func sealed(sender: String = "phone") throws -> PayloadSeal.Sealed {
        try PayloadSeal.seal(plaintext, to: Array(recipient.publicKey.rawRepresentation), ephemeralSecret: Array(repeating: 1, count: 32),
                             nonce: Array(repeating: 2, count: 12), sender: sender)
    }

    @Test func opensForTheRecipientAndTheSenderItWasSealedBy() throws {
        let sealed = try Self.sealed()
        #expect(try PayloadSeal.open(sealed, with: Self.recipient, sender: "phone") == Self.plaintext)
        // Same inputs, same bytes: what the trace shows is reproducible.
        #expect(try Self.sealed() == sealed)
        #expect(!sealed.box.starts(with: Self.plaintext))
    }

    @Test func aLowOrderRecipientKeyIsRefused() {
        #expect(throws: CredentialProblem.self) {
            try PayloadSeal.seal(Self.plaintext, to: Array(repeating: 0, count: 32), ephemeralSecret: Array(repeating: 1, count: 32),
                                 nonce: Array(repeating: 2, count: 12), sender: "phone")
        }
    }

    @Test func anotherSenderAnotherKeyOrATamperedBoxDoesNotOpen() throws {
        let sealed = try Self.sealed()
        let other = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: Array(repeating: 8, count: 32))
        var tampered = sealed.box
        tampered[0] ^= 1
        let attempts: [(PayloadSeal.Sealed, Curve25519.KeyAgreement.PrivateKey, String)] = [
            (sealed, Self.recipient, "mail"),
            (sealed, other, "phone"),
            (PayloadSeal.Sealed(ephemeralPublicKey: sealed.ephemeralPublicKey, nonce: sealed.nonce, box: tampered), Self.recipient, "phone"),
            (PayloadSeal.Sealed(ephemeralPublicKey: sealed.ephemeralPublicKey, nonce: sealed.nonce, box: [1, 2]), Self.recipient, "phone"),
        ]
        for (box, key, sender) in attempts {
            #expect(throws: CredentialProblem.self) { try PayloadSeal.open(box, with: key, sender: sender) }
        }
    }
}
