/// The error `sendDerivedCredential:withError:` reports, with the SDK's codes.
public struct DerivedCredentialServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `ACDerivedCredentialServiceErrorCode`.
    public enum Code: Int, Sendable, CaseIterable {
        case unknown = -1000
        /// A credential property is invalid.
        case invalid = -1001
        /// Secure services are unavailable: wait for the availability change, then send again.
        case serviceUnavailable = -1002
        case missingClient = -1003
        case oldClient = -1004
        /// AppConnect is not ready.
        case notReady = -1005

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

    public let code: Code
    /// What was wrong and what was expected.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue) \(code.word): \(message)" }
}
