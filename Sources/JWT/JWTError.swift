/// Why a token was refused: a stable ``Code`` for programs and a message for people that says what was
/// wrong and what was expected.
///
/// A struct over an open set of codes (rather than an enum of cases with payloads) so new reasons can be
/// added without breaking callers that switch on them.
public struct JWTError: Error, CustomStringConvertible, Equatable, Sendable {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Not three base64url parts separated by dots, or a part that is not base64url.
        public static let malformed = Code(rawValue: "malformed")
        /// Longer than the limits allow.
        public static let tooLarge = Code(rawValue: "too-large")
        /// A header or payload that is not the strict JSON object expected.
        public static let invalidJSON = Code(rawValue: "invalid-json")
        /// The same member twice in one JSON object (parsers disagree on which one wins).
        public static let duplicateMember = Code(rawValue: "duplicate-member")
        /// `alg` is not RS256 (`none`, HS256, …) or `typ`/`crit` are not acceptable.
        public static let unsupportedAlgorithm = Code(rawValue: "unsupported-algorithm")
        /// A required claim is absent.
        public static let missingClaim = Code(rawValue: "missing-claim")
        /// A claim of the wrong type or shape (a fractional or quoted timestamp, an empty subject…).
        public static let invalidClaim = Code(rawValue: "invalid-claim")
        /// No certificate is registered for the token's issuer.
        public static let unknownIssuer = Code(rawValue: "unknown-issuer")
        /// The issuer is known but not with this key id.
        public static let unknownKeyID = Code(rawValue: "unknown-kid")
        /// The signature does not verify with the registered key.
        public static let badSignature = Code(rawValue: "bad-signature")
        /// `exp` has passed.
        public static let expired = Code(rawValue: "expired")
        /// `nbf` is still in the future.
        public static let notYetValid = Code(rawValue: "not-yet-valid")
        /// `exp − nbf` is longer than allowed (15 minutes), or not positive.
        public static let lifetimeTooLong = Code(rawValue: "lifetime-too-long")
        /// A key or certificate could not be loaded or used.
        public static let key = Code(rawValue: "key")

        /// Every code above: the values the trace events that carry one declare (a module that adds a code declares it
        /// with them itself).
        public static let all: [Code] = [
            .malformed, .tooLarge, .invalidJSON, .duplicateMember, .unsupportedAlgorithm, .missingClaim, .invalidClaim, .unknownIssuer,
            .unknownKeyID, .badSignature, .expired, .notYetValid, .lifetimeTooLong, .key,
        ]
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
