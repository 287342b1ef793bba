import Foundation

/// What an app hands to the Ivanti client: the `ACDerivedCredential` properties, the service's brand and
/// callback scheme, and the certificate array, as the JSON that ``PayloadSeal`` seals.
///
/// ``structuralProblem()`` holds every rule that needs no cryptography and no clock, so the app side
/// (before sending) and the Ivanti client (after opening) apply the very same ones.
public struct CredentialPayload: Sendable, Equatable {
    /// One entry of the certificate array: a tag and a DER certificate with its PKCS#8 DER private key.
    public struct Entry: Sendable, Equatable {
        /// Normally a ``CredentialTag`` raw value; kept as text so an unknown tag reaches validation.
        public var tag: String
        public var certificate: [UInt8]
        public var privateKey: [UInt8]

        public init(tag: String, certificate: [UInt8], privateKey: [UInt8]) {
            self.tag = tag
            self.certificate = certificate
            self.privateKey = privateKey
        }
    }

    public var name: String
    public var serialNumber: String
    /// Seconds since the Unix epoch.
    public var expirationDate: Int64
    public var brand: String
    public var callbackScheme: String
    public var certificates: [Entry]

    public init(name: String, serialNumber: String, expirationDate: Int64, brand: String, callbackScheme: String, certificates: [Entry]) {
        self.name = name
        self.serialNumber = serialNumber
        self.expirationDate = expirationDate
        self.brand = brand
        self.callbackScheme = callbackScheme
        self.certificates = certificates
    }

    /// The first rule the payload breaks, in a fixed order, or `nil`.
    public func structuralProblem() -> CredentialProblem? {
        for (field, value) in [("name", name), ("serial number", serialNumber), ("brand", brand)] {
            if value.isEmpty {
                return CredentialProblem(field == "name" ? .emptyName : field == "brand" ? .emptyBrand : .emptySerial, "the \(field) is empty")
            }
            if value.utf8.count > CredentialLimits.maxTextBytes {
                return CredentialProblem(.oversized, "the \(field) has \(value.utf8.count) bytes; at most \(CredentialLimits.maxTextBytes)")
            }
        }
        if !BusURL.isScheme(callbackScheme) {
            return CredentialProblem(
                .badScheme, "callback scheme '\(BusURL.excerpt(callbackScheme))' is not a URL scheme (a letter, then letters, digits, '+', '-', '.')")
        }
        if certificates.isEmpty {
            return CredentialProblem(.noCertificates, "the certificate array is empty; expected 1 to \(CredentialLimits.maxCertificates) entries")
        }
        if certificates.count > CredentialLimits.maxCertificates {
            return CredentialProblem(
                .oversized, "\(certificates.count) certificate entries; at most \(CredentialLimits.maxCertificates), one per tag")
        }
        var seen: Set<String> = []
        for (index, entry) in certificates.enumerated() {
            guard CredentialTag(rawValue: entry.tag) != nil else {
                return CredentialProblem(
                    .unknownTag,
                    "entry \(index) has tag '\(BusURL.excerpt(entry.tag))'; expected one of \(CredentialTag.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            guard seen.insert(entry.tag).inserted else {
                return CredentialProblem(.duplicateTag, "tag \(entry.tag) is used by more than one entry; each tag may name one certificate")
            }
            if entry.certificate.isEmpty { return CredentialProblem(.emptyCertificate, "the \(entry.tag) entry has no certificate data") }
            if entry.privateKey.isEmpty { return CredentialProblem(.emptyPrivateKey, "the \(entry.tag) entry has no private key data") }
            if entry.certificate.count > CredentialLimits.maxCertificateBytes {
                return CredentialProblem(
                    .oversized, "the \(entry.tag) certificate has \(entry.certificate.count) bytes; at most \(CredentialLimits.maxCertificateBytes)")
            }
            if entry.privateKey.count > CredentialLimits.maxPrivateKeyBytes {
                return CredentialProblem(
                    .oversized, "the \(entry.tag) private key has \(entry.privateKey.count) bytes; at most \(CredentialLimits.maxPrivateKeyBytes)")
            }
        }
        return nil
    }

    /// The tags in the payload's order.
    public var tags: [String] { certificates.map(\.tag) }
}

// MARK: - JSON

extension CredentialPayload {
    private struct Wire: Codable {
        struct Entry: Codable {
            let tag: String
            let cert: Data
            let privateKey: Data
            enum CodingKeys: String, CodingKey {
                case tag = "Tag"
                case cert = "Cert"
                case privateKey = "PrivateKey"
            }
        }
        let name: String
        let serialNumber: String
        let expirationDate: Int64
        let brand: String
        let callbackScheme: String
        let credentialArray: [Entry]
        enum CodingKeys: String, CodingKey {
            case name = "Name"
            case serialNumber = "SerialNumber"
            case expirationDate = "ExpirationDate"
            case brand = "Brand"
            case callbackScheme = "CallbackScheme"
            case credentialArray = "CredentialArray"
        }
    }

    /// Canonical JSON (sorted keys, base64 DER), so the same credential always seals to the same bytes.
    public func encoded() -> [UInt8] {
        let wire = Wire(
            name: name, serialNumber: serialNumber, expirationDate: expirationDate, brand: brand, callbackScheme: callbackScheme,
            credentialArray: certificates.map { Wire.Entry(tag: $0.tag, cert: Data($0.certificate), privateKey: Data($0.privateKey)) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings, integers and Data cannot fail.
        return [UInt8](try! encoder.encode(wire))
    }

    /// - throws: ``CredentialProblem`` `malformed-payload` when the JSON is not a credential payload.
    public init(decoding bytes: [UInt8]) throws(CredentialProblem) {
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(bytes))
        } catch {
            throw CredentialProblem(
                .malformedPayload,
                "the opened payload is not credential JSON with Name, SerialNumber, ExpirationDate, Brand, CallbackScheme and CredentialArray [{Tag, Cert, PrivateKey}]"
            )
        }
        self.init(
            name: wire.name, serialNumber: wire.serialNumber, expirationDate: wire.expirationDate, brand: wire.brand,
            callbackScheme: wire.callbackScheme,
            certificates: wire.credentialArray.map { Entry(tag: $0.tag, certificate: [UInt8]($0.cert), privateKey: [UInt8]($0.privateKey)) })
    }
}
