/// The error `sendDerivedCredential:withError:` reports, with the SDK's codes.
public struct DerivedCredentialServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `ACDerivedCredentialServiceErrorCode`.
    public enum Code: Int, Sendable, CaseIterable {
        /// Any other failure, e.g. the Ivanti client's key is unusable for sealing the credential.
        case unknown = -1000
        /// A credential property is invalid.
        case invalid = -1001
        /// Secure services are unavailable: wait for the availability change, then send again.
        case serviceUnavailable = -1002
        /// No Ivanti client is installed (or it disappeared before the credential could be opened).
        case missingClient = -1003
        /// The installed Ivanti client is too old for derived credentials and must be upgraded.
        case oldClient = -1004
        /// AppConnect is not ready.
        case notReady = -1005

        /// The code's name in the SDK (`serviceUnavailable`, …), as the error's `description` shows it.
        public var word: String {
            switch self {
            case .unknown: "unknown"
            case .invalid: "invalid"
            case .serviceUnavailable: "serviceUnavailable"
            case .missingClient: "missingClient"
            case .oldClient: "oldClient"
            case .notReady: "notReady"
            }
        }
    }

    /// The SDK's error code (−1000…−1005), which tells the app what to do about the failure.
    public let code: Code
    /// What was wrong and what was expected.
    public let message: String

    /// An error with `code`, explained by `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The code's number and name, then the message, e.g. `-1001 invalid: …`.
    public var description: String { "\(code.rawValue) \(code.word): \(message)" }
}
