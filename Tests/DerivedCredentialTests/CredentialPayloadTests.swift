import Crypto
import DerivedCredential
import Foundation
import Testing

@Suite struct CredentialPayloadTests {
    static func payload(_ entries: [CredentialPayload.Entry] = [.init(tag: "Authentication", certificate: [1], privateKey: [2])]) -> CredentialPayload
    {
        CredentialPayload(
            name: "Name", serialNumber: "123", expirationDate: 1_800_000_000, brand: "Brand", callbackScheme: "mydc", certificates: entries)
    }

    static let twoEntries: [CredentialPayload.Entry] = [
        .init(tag: "Authentication", certificate: [1, 2], privateKey: [3]), .init(tag: "Escrow", certificate: [4], privateKey: [5]),
    ]

    /// The canonical encoding of `payload(twoEntries)`, written out by hand: the SDK's key names, keys sorted at every
    /// level, DER as standard base64 with padding, no white space.
    static let knownGoodEncoding =
        #"{"Brand":"Brand","CallbackScheme":"mydc","CredentialArray":["#
        + #"{"Cert":"AQI=","PrivateKey":"Aw==","Tag":"Authentication"},{"Cert":"BA==","PrivateKey":"BQ==","Tag":"Escrow"}],"#
        + #""ExpirationDate":1800000000,"Name":"Name","SerialNumber":"123"}"#

    @Test func aWellFormedPayloadHasNoProblemAndEncodesToTheKnownCanonicalBytes() throws {
        let payload = Self.payload(Self.twoEntries)
        #expect(payload.structuralProblem() == nil)
        #expect(String(decoding: payload.encoded(), as: UTF8.self) == Self.knownGoodEncoding)
        // Canonical: a payload built separately with the same values seals to the same bytes.
        #expect(Self.payload(Self.twoEntries).encoded() == payload.encoded())
        #expect(try CredentialPayload(decoding: payload.encoded()) == payload)
    }

    @Test func anIndependentJSONReaderSeesEveryField() throws {
        // JSONSerialization, not the module's own decoder, reads what `encoded()` wrote.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(Self.payload(Self.twoEntries).encoded())) as? [String: Any])
        #expect(Set(object.keys) == ["Name", "SerialNumber", "ExpirationDate", "Brand", "CallbackScheme", "CredentialArray"])
        #expect(object["Name"] as? String == "Name")
        #expect(object["SerialNumber"] as? String == "123")
        #expect((object["ExpirationDate"] as? NSNumber)?.int64Value == 1_800_000_000)
        #expect(object["Brand"] as? String == "Brand")
        #expect(object["CallbackScheme"] as? String == "mydc")
        let entries = try #require(object["CredentialArray"] as? [[String: String]])
        #expect(entries.map { $0["Tag"] } == ["Authentication", "Escrow"])
        #expect(entries.map { $0["Cert"].flatMap { Data(base64Encoded: $0) }.map(Array.init) } == [[1, 2], [4]])
        #expect(entries.map { $0["PrivateKey"].flatMap { Data(base64Encoded: $0) }.map(Array.init) } == [[3], [5]])
    }

    @Test func payloadsWrittenByOthersDecodeWhateverTheKeyOrderAndSpacing() throws {
        // As another implementation might write it: keys in any order, white space, escaped slashes.
        let foreign = """
            {
              "CredentialArray": [ { "Tag": "Authentication", "PrivateKey": "Aw==", "Cert": "AQI=" },
                                   { "PrivateKey": "BQ==", "Cert": "BA==", "Tag": "Escrow" } ],
              "SerialNumber": "123", "Name": "Name", "ExpirationDate": 1800000000,
              "CallbackScheme": "mydc", "Brand": "Brand"
            }
            """
        #expect(try CredentialPayload(decoding: Array(foreign.utf8)) == Self.payload(Self.twoEntries))
        let slashes = #"{"Brand":"B\/rand","CallbackScheme":"mydc","CredentialArray":[],"ExpirationDate":1,"Name":"N","SerialNumber":"1"}"#
        #expect(try CredentialPayload(decoding: Array(slashes.utf8)).brand == "B/rand")
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
        try PayloadSeal.seal(
            plaintext, to: Array(recipient.publicKey.rawRepresentation), ephemeralSecret: Array(repeating: 1, count: 32),
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
            try PayloadSeal.seal(
                Self.plaintext, to: Array(repeating: 0, count: 32), ephemeralSecret: Array(repeating: 1, count: 32),
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
