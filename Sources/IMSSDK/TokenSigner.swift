/// What the host app gives the IMS SDK to sign token prototypes (original 004, "Token Signer"): the SDK hands
/// it an unsigned JWT (`header.payload`) and receives the signed compact JWS, or a failure, through the
/// result handler.
public protocol TokenSigner: Sendable {
    /// Signs `unsignedToken` (usually by asking the host's back end) and reports the outcome once.
    func sign(_ unsignedToken: String, resultHandler: @escaping @Sendable (Result<String, any Error>) -> Void)
}

extension TokenSigner {
    /// The same, for async callers.
    public func sign(_ unsignedToken: String) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            sign(unsignedToken) { continuation.resume(with: $0) }
        }
    }
}

/// Why the ready-made ``URLTokenSigner`` failed, with the original's messages.
public struct TokenSigningError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Which of the signer's checks failed; ``TokenSigningError/isRetryable`` follows from it.
    public enum Kind: Sendable, Equatable {
        /// No HTTP answer at all (refused, reset, timed out).
        case transport
        /// An answer of a media type the signer was told not to take (``URLTokenSigner/ContentTypes/strict``;
        /// the original's "Invalid response type").
        case invalidResponseType
        /// An answer other than 200 (original: "Bad response: <status>").
        case badStatus(Int)
        /// A 200 whose body is not a UTF-8 compact JWS (original: "Problem signing token").
        case undecodableBody
    }

    /// Which failure it was: it decides whether the SDK asks again (``TokenSigningError/isRetryable``).
    public let kind: Kind
    /// The failure in the original signer's words (e.g. `Bad response: 503`); also the error's `description`.
    public let message: String

    /// A failure of `kind`, reported as `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The ``message``, in the original signer's words.
    public var description: String { message }

    /// Whether asking again may help: the back end was unreachable or failed on its side.
    public var isRetryable: Bool {
        switch kind {
        case .transport: true
        case .badStatus(let status): status >= 500
        case .invalidResponseType, .undecodableBody: false
        }
    }
}
