/// Why a derived credential or a bus URL was refused: a stable code (scenarios and traces match on it) and a
/// detail that says what was wrong and what was expected.
public struct CredentialProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable, kebab-case problem codes.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let malformedURL = Code(rawValue: "malformed-url")
        public static let oversized = Code(rawValue: "oversized")
        public static let undecryptable = Code(rawValue: "undecryptable")
        public static let malformedPayload = Code(rawValue: "malformed-payload")
        public static let emptyName = Code(rawValue: "empty-name")
        public static let emptySerial = Code(rawValue: "empty-serial")
        public static let emptyBrand = Code(rawValue: "empty-brand")
        public static let badScheme = Code(rawValue: "bad-scheme")
        public static let noCertificates = Code(rawValue: "no-certificates")
        public static let unknownTag = Code(rawValue: "unknown-tag")
        public static let duplicateTag = Code(rawValue: "duplicate-tag")
        public static let emptyCertificate = Code(rawValue: "empty-certificate")
        public static let emptyPrivateKey = Code(rawValue: "empty-private-key")
        public static let badCertificate = Code(rawValue: "bad-certificate")
        public static let badPrivateKey = Code(rawValue: "bad-private-key")
        public static let keyMismatch = Code(rawValue: "key-mismatch")
        public static let certificateExpired = Code(rawValue: "certificate-expired")
        public static let certificateNotYetValid = Code(rawValue: "certificate-not-yet-valid")
        public static let servicesUnavailable = Code(rawValue: "services-unavailable")
        public static let credentialExpired = Code(rawValue: "credential-expired")
        public static let expiryTooFar = Code(rawValue: "expiry-too-far")

        /// Every code above: the values the trace events that carry one declare (a module that adds a code declares it
        /// with them itself).
        public static let all: [Code] = [
            .malformedURL, .oversized, .undecryptable, .malformedPayload, .emptyName, .emptySerial, .emptyBrand, .badScheme,
            .noCertificates, .unknownTag, .duplicateTag, .emptyCertificate, .emptyPrivateKey, .badCertificate, .badPrivateKey,
            .keyMismatch, .certificateExpired, .certificateNotYetValid, .servicesUnavailable, .credentialExpired, .expiryTooFar,
        ]
    }

    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code): \(detail)" }
}
