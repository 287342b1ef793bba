import DerivedCredential
import Foundation

/// `ACDerivedCredentialServiceSupport`.
public enum DerivedCredentialSupport: Int, Sendable, CaseIterable {
    /// An Ivanti client that takes derived credentials is installed (it handles `appconnectdc`).
    case present = 0
    /// Only an Ivanti client too old for derived credentials is installed (it handles `appconnect` alone).
    case oldClient = 1
    /// No Ivanti client is installed, or the app does not list its schemes in `LSApplicationQueriesSchemes`.
    case missingClient = 2
    /// The case's name as scenarios and reports show it: `present`, `oldClient` or `missingClient`.
    public var word: String { ["present", "oldClient", "missingClient"][rawValue] }
}

/// `ACDerivedCredential`: the credential an app sends to the Ivanti client.
public struct DerivedCredential: Sendable, Equatable {
    /// One entry of the certificates array (the `Tag` / `Cert` / `PrivateKey` dictionary of the SDK).
    public struct Certificate: Sendable, Equatable {
        /// A `CredentialTag` raw value; any text is accepted here and refused by `send`.
        public let tag: String
        /// The DER-encoded certificate.
        public let certificate: [UInt8]
        /// The certificate's DER-encoded PKCS#8 private key.
        public let privateKey: [UInt8]

        /// An entry for one of the SDK's tags, with its DER certificate and PKCS#8 private key.
        public init(tag: CredentialTag, certificate: [UInt8], privateKey: [UInt8]) {
            self.init(tagName: tag.rawValue, certificate: certificate, privateKey: privateKey)
        }

        /// An entry under any tag text, even one the SDK does not define (``DerivedCredentialService/send(_:)`` then
        /// refuses the credential as invalid).
        public init(tagName: String, certificate: [UInt8], privateKey: [UInt8]) {
            self.tag = tagName
            self.certificate = certificate
            self.privateKey = privateKey
        }
    }

    /// The credential's name; never empty.
    public let name: String
    /// The credential's serial number, by which the app reads a certificate back
    /// (`AppConnect.certificate(serialNumber:tag:)`); never empty.
    public let serialNumber: String
    /// When the credential expires; it is sent in whole seconds since 1970, rounded down.
    public let expirationDate: Date
    /// The credential's certificates, each with its tag and private key; never empty.
    public let certificates: [Certificate]

    /// `initWithName:serialNumber:expirationDate:certificates:`.
    ///
    /// - parameters:
    ///   - name: the credential's name.
    ///   - serialNumber: the serial number the app reads a certificate back by.
    ///   - expirationDate: when the credential expires.
    ///   - certificates: the credential's certificates, each with its tag and private key.
    ///   - appConnect: the app's AppConnect library, whose device console the reason for a `nil` goes
    ///     to (the real library is a process-wide singleton; the workbench runs many apps in one process).
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
