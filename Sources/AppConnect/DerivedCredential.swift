import DerivedCredential
import Foundation

/// `ACDerivedCredentialServiceSupport`.
public enum DerivedCredentialSupport: Int, Sendable, CaseIterable {
    case present = 0
    case oldClient = 1
    case missingClient = 2
    public var word: String { ["present", "oldClient", "missingClient"][rawValue] }
}

/// `ACDerivedCredential`: the credential an app sends to the Ivanti client.
public struct DerivedCredential: Sendable, Equatable {
    /// One entry of the certificates array (the `Tag` / `Cert` / `PrivateKey` dictionary of the SDK).
    public struct Certificate: Sendable, Equatable {
        /// A ``DerivedCredential/CredentialTag`` raw value; any text is accepted here and refused by `send`.
        public let tag: String
        /// The DER-encoded certificate.
        public let certificate: [UInt8]
        /// The certificate's DER-encoded PKCS#8 private key.
        public let privateKey: [UInt8]

        public init(tag: CredentialTag, certificate: [UInt8], privateKey: [UInt8]) {
            self.init(tagName: tag.rawValue, certificate: certificate, privateKey: privateKey)
        }

        public init(tagName: String, certificate: [UInt8], privateKey: [UInt8]) {
            self.tag = tagName
            self.certificate = certificate
            self.privateKey = privateKey
        }
    }

    public let name: String
    public let serialNumber: String
    public let expirationDate: Date
    public let certificates: [Certificate]

    /// `initWithName:serialNumber:expirationDate:certificates:`.
    ///
    /// - parameter appConnect: the app's AppConnect library, whose device console the reason for a `nil` goes
    ///   to (the real library is a process-wide singleton; the workbench runs many apps in one process).
    /// - returns: `nil` when the name or serial number is missing or empty, the date is missing, or the
    ///   certificates are missing or empty — the original initializer's cases — after logging which to the device's console.
    ///   Other problems (tags, key material, sizes) are reported by ``DerivedCredentialService/send(_:)`` as
    ///   ``DerivedCredentialServiceError/Code/invalid``.
    public init?(name: String?, serialNumber: String?, expirationDate: Date?, certificates: [Certificate]?, appConnect: AppConnect) {
        guard let name, !name.isEmpty, let serialNumber, !serialNumber.isEmpty, let expirationDate,
            let certificates, !certificates.isEmpty
        else {
            let problem =
                switch (name, serialNumber, expirationDate, certificates) {
                case (nil, _, _, _): "name is nil"
                case ("", _, _, _): "name is an empty string"
                case (_, nil, _, _): "serialNumber is nil"
                case (_, "", _, _): "serialNumber is an empty string"
                case (_, _, nil, _): "expirationDate is nil"
                case (_, _, _, nil): "certificates is nil"
                default: "certificates is an empty array"
                }
            appConnect.logError("ACDerivedCredential initWithName:serialNumber:expirationDate:certificates: returned nil: \(problem)")
            return nil
        }
        self.name = name
        self.serialNumber = serialNumber
        self.expirationDate = expirationDate
        self.certificates = certificates
    }

    func payload(brand: String, callbackScheme: String) -> CredentialPayload {
        CredentialPayload(
            name: name, serialNumber: serialNumber, expirationDate: Int64(expirationDate.timeIntervalSince1970.rounded(.down)),
            brand: brand, callbackScheme: callbackScheme,
            certificates: certificates.map { .init(tag: $0.tag, certificate: $0.certificate, privateKey: $0.privateKey) })
    }
}
